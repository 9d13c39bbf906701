import Foundation

/// Objects that can be observed: ``Object`` and ``EmbeddedObject``. `observe` is declared on
/// this protocol so that its block receives the model class itself (`ObjectChange<Person>`).
public protocol ObservableObjectBase: ObjectBase {}

extension Object: ObservableObjectBase {}
extension EmbeddedObject: ObservableObjectBase {}

extension ObservableObjectBase {
    /// Calls `block` when a commit changes a property of this object (`.change`, with the
    /// old and new values) or deletes it (`.deleted`, the last call).
    ///
    /// ```swift
    /// let token = ann.observe(keyPaths: [\.name]) { change in
    ///     if case .change(_, let properties) = change { print(properties) }
    /// }
    /// ```
    ///
    /// There is no initial call. Calls come at the database's delivery points (its commits,
    /// ``Database/refresh()``, the main queue or actor of a database opened there). Old
    /// values are given for changes made elsewhere (another instance or process); for this
    /// instance's own writes and for collection properties they are `nil`, as in Realm.
    ///
    /// - Parameters:
    ///   - keyPaths: The properties to watch; others do not call. All of them, and the objects
    ///     they link to, without it.
    ///   - block: Called in the database's isolation domain.
    public func observe(
        keyPaths: [PartialKeyPath<Self>]? = nil, _ block: @escaping (ObjectChange<Self>) -> Void
    ) -> NotificationToken {
        let names = keyPaths?.map { KeyPathNames.require($0, "observe(keyPaths:)") }
        return observe(keyPathNames: names, block)
    }

    /// ``observe(keyPaths:_:)`` with property names (`"dogs.name"` through links).
    public func observe(keyPaths: [String], _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        observe(keyPathNames: keyPaths, block)
    }

    private func observe(keyPathNames: [String]?, _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        guard let database = _objdbDatabase, let info = _objdbInfo else {
            objdbFatal("observe: only objects stored in a database can be observed; add the \(type(of: self)) to a database first")
        }
        objdbPrecondition(!isInvalidated, "observe: the \(info.name) object was deleted; a deleted object cannot be observed")
        let watch = Watch.parse(keyPathNames, info, database, caller: "observe(keyPaths:)")
        let observer = ObjectObserver(object: self, info: info, watch: watch, block: block)
        database.observation().add(observer)
        return observer.control.token()
    }
}

extension Database {
    /// The value a column read holds, as ``ObjectBase/subscript(_:)`` gives it: a link (also in
    /// a mixed value) as an object of the current version; `nil` for collections.
    func value(of read: ColumnRead, _ info: ClassInfo, column: Int) -> Any? {
        switch info.columnKinds[column] {
        case .value:
            return anyValue(of: read, info.valueType(column: column))
        case .link:
            guard case .value(let bytes) = read, bytes.count == 8, let target = targetInfo(info, column: column) else { return nil }
            return object(DynamicObject.self, target, key: bytes.loadUnaligned(as: UInt64.self))
        case .list, .set, .map:
            return nil
        }
    }
}
