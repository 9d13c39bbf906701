extension ObjectBase {
    /// Whether the object belongs to a frozen database: it shows one version for ever and
    /// cannot be changed.
    public var isFrozen: Bool { _objdbDatabase?.isFrozen ?? false }

    /// The same stored object, frozen at the version its database reads now: same class,
    /// immutable.
    ///
    /// ```swift
    /// let frozenAnn = ann.freeze()
    /// try db.write { ann.name = "Annie" }
    /// frozenAnn.name                      // still "Ann"
    /// frozenAnn.thaw()?.name              // "Annie"
    /// ```
    ///
    /// Objects frozen from one version share one read transaction with every frozen thing of
    /// that version (see ``Database/freeze()``). A frozen object is confined to the caller like
    /// any object; reach frozen objects on other threads through a frozen collection, which is
    /// `Sendable`. Setting a property of a frozen object stops the program with a message naming
    /// the class and property. Freezing a frozen object returns it; freezing an unmanaged object,
    /// a deleted one, or one inside a write transaction is a programmer error.
    public func freeze() -> Self {
        guard let database = _objdbDatabase, let info = _objdbInfo else {
            objdbFatal("freeze() was called on an unmanaged \(Self.className); only objects stored in a database can be frozen. Add it first, or copy it")
        }
        if database.isFrozen { return self }
        objdbPrecondition(
            !database.isInWriteTransaction,
            "freeze() was called on a '\(info.name)' inside a write transaction; its uncommitted changes belong to no version. Freeze after the commit")
        guard _objdbCurrentRow() != nil else { _objdbInvalidatedAccess() }
        let view = database.freeze()
        let frozenInfo = view.classInfo(named: info.name) ?? info
        return view.materialize(Self.self, frozenInfo, key: _objdbKey, row: nil)
    }

    /// The same stored object in the live database of the calling context, at its newest
    /// version; `nil` if it was deleted since. A live object returns itself.
    ///
    /// The live database is the instance on the same file that the calling actor (or the main
    /// actor) opened, if there is one — so `try db.write { thawed.name = … }` works with the `db`
    /// of that actor — else a new instance (see ``Database/thaw()``); write through
    /// `thawed.database` to be sure.
    public func thaw(isolation: isolated (any Actor)? = #isolation) -> Self? {
        guard let database = _objdbDatabase, let version = database.frozenVersion, let info = _objdbInfo else { return self }
        let live = Database.liveInstance(of: version, isolation: isolation)
        return live.resolveObject(Self.self, className: info.name, key: _objdbKey)
    }
}

extension Database {
    /// The stored object of class `className` with object key `key` in this instance's current
    /// version, as an instance of `type`; `nil` if there is none.
    func resolveObject<T: ObjectBase>(_ type: T.Type, className: String, key: UInt64) -> T? {
        guard let info = classInfo(named: className) else { return nil }
        return object(type, info, key: key)
    }
}
