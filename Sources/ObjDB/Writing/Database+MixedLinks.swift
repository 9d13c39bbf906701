/// Links held by mixed values (`MixedValue.object`): reading them as objects, and adding the
/// objects they hold before a write encodes them.
extension Database {
    /// The object of class `classID` with key `key` that a mixed value links to, as an instance
    /// of its model class (a ``DynamicObject`` when this process has none), or `nil` if the class
    /// or the object does not exist.
    func mixedTarget(classID: UInt32, key: UInt64) -> Object? {
        guard let info = classInfo(id: classID), let row = rows.fetch(info, key: key) else { return nil }
        // `type.init()`: the model class itself, not the static type a generic would make.
        let object = modelType(named: info.name).init()
        attach(object, info, key: key, row: row)
        return object as? Object
    }

    /// A column or element read as a plain value of `type`, as
    /// ``PersistableType/anyValue(from:)`` gives it, but a mixed value's links as objects of this
    /// database (that decoding has no database, so it reads links as `none`). What dynamic reads,
    /// tools and observers show.
    func anyValue(of read: ColumnRead, _ type: any PersistableType.Type) -> Any? {
        guard type == MixedValue.self else { return type.anyValue(from: read) }
        return MixedValue.decode(read) { mixedTarget(classID: $0, key: $1) }?._objdbAnyValue
    }

    /// The mixed columns of every class whose links are tracked: where links to a deleted object
    /// of any class may be.
    func mixedLinkOrigins() -> [(origin: ClassInfo, column: Int)] {
        if let cached = caches.mixedLinkOrigins { return cached }
        let found = catalog.byName.values.sorted { $0.classID < $1.classID }.filter { !$0.isDiscarded }
            .flatMap { origin in origin.mixedLinkColumns.map { (origin, $0) } }
        caches.mixedLinkOrigins = found
        return found
    }

    /// Whether a mixed value of any class may link to an object of `info`: an entry under its
    /// class id in some mixed-links table (in an encrypted file, whose keys are hashes, any
    /// entry). Lets a bulk delete of a class no mixed value links to skip reading its objects.
    func mayHaveMixedLinks(to info: ClassInfo, _ txn: Txn) throws -> Bool {
        let prefix = MixedFormat.linkKey(classID: info.classID, key: 0).prefix(4)
        for (origin, column) in mixedLinkOrigins() {
            guard let table = origin.tables.mixedLinks[column] else { continue }
            if table.seal == .keys {
                if try txn.entryCount(table) > 0 { return true }
                continue
            }
            let cursor = try Cursor(txn, table)
            let entry = try Array(prefix).withUnsafeBytes { try cursor.seek(atLeast: $0) }
            if let entry, entry.key.starts(with: prefix) { return true }
        }
        return false
    }

    /// The runtime information of the class with id `classID`, if the file has it.
    func classInfo(id classID: UInt32) -> ClassInfo? {
        if let info = caches.classesByID[classID], !info.isDiscarded { return info }
        guard let info = catalog.byName.values.first(where: { $0.classID == classID && !$0.isDiscarded }) else { return nil }
        caches.classesByID[classID] = info
        return info
    }

    /// The model class bound to the class named `name` in this instance (a class of
    /// ``Configuration/objectTypes``, or one used already), or ``DynamicObject``: an instance of
    /// an unbound model class would not read the stored values.
    func modelType(named name: String) -> ObjectBase.Type {
        catalog.byName[name]?.layout?.type ?? DynamicObject.self
    }

    /// Makes every object `value` holds linkable before the value is encoded: adds the unmanaged
    /// ones (with what they link to), and checks the managed ones belong to this database and
    /// exist.
    /// All or nothing: a failure undoes the objects it added.
    func prepareMixedObjects(_ value: MixedValue, _ context: WriteContext) throws {
        let objects = value.heldObjects
        guard !objects.isEmpty else { return }
        try withSavepoint(context) {
            for object in objects {
                // Only a managed `DynamicObject` can be of an embedded class: `EmbeddedObject`
                // is no `Object`.
                if let info = object._objdbInfo, info.stored.isEmbedded {
                    let name = info.name
                    throw ObjDBError(
                        .invalidValue, "A mixed value cannot link to the embedded \(name): an embedded object belongs to one parent's link",
                        className: name, path: path)
                }
                if object._objdbDatabase == nil {
                    _ = try addObject(object, update: .error, context)
                } else {
                    try checkLinkable(object, context)
                }
            }
        }
    }
}

extension MixedValue {
    /// The objects the value holds, at any depth.
    var heldObjects: [Object] {
        switch self {
        case .object(let v): [v]
        case .list(let v): v.flatMap(\.heldObjects)
        case .dictionary(let v): v.values.flatMap(\.heldObjects)
        default: []
        }
    }
}
