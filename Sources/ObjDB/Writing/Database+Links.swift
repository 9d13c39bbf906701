/// Links between objects: reading and writing to-one links, and keeping the backlink tables in
/// step with every row write.
extension Database {
    // MARK: Classes of links

    /// The runtime information of the class named `name`, if the file has it.
    func classInfo(named name: String) -> ClassInfo? {
        catalog.byName[name]
    }

    /// The class the objects of link column `column` of `info` belong to.
    func targetInfo(_ info: ClassInfo, column: Int) -> ClassInfo? {
        guard column < info.linkTargets.count, let name = info.linkTargets[column] else { return nil }
        return classInfo(named: name)
    }

    /// The link columns of every class that point to objects of `info`'s class.
    func incomingLinks(_ info: ClassInfo) -> [(origin: ClassInfo, column: Int)] {
        if let cached = caches.incomingLinks[info.name] { return cached }
        var found: [(ClassInfo, Int)] = []
        for origin in catalog.byName.values.sorted(by: { $0.classID < $1.classID }) where !origin.isDiscarded {
            for column in origin.linkColumns where origin.linkTargets[column] == info.name {
                found.append((origin, column))
            }
        }
        caches.incomingLinks[info.name] = found
        return found
    }

    // MARK: Objects by key

    /// The object of class `info` with key `key` as an instance of `type`, or `nil` if it does not exist.
    func object<T: ObjectBase>(_ type: T.Type, _ info: ClassInfo, key: UInt64) -> T? {
        guard let row = rows.fetch(info, key: key) else { return nil }
        return materialize(type, info, key: key, row: row)
    }

    // MARK: To-one links

    /// The object a to-one link column points to, or `nil`.
    func linkTarget<T: ObjectBase>(of object: ObjectBase, column: Int, as type: T.Type) -> T? {
        guard case .value(let bytes) = object._objdbRead(column), bytes.count == 8,
            let info = object._objdbInfo, let target = targetInfo(info, column: column)
        else { return nil }
        return self.object(type, target, key: bytes.loadUnaligned(as: UInt64.self))
    }

    /// Points a to-one link column at `value` (the setter of a link property). An unmanaged
    /// value is added first, with everything it links to.
    func setLink(of object: ObjectBase, column: Int, to value: ObjectBase?) {
        guard let info = object._objdbInfo else { return }
        guard let context = writeContext else { cannotWrite("\(info.name).\(info.stored.properties[column].name)") }
        guard context.transaction.acceptsWrites else { return }
        guard let value else {
            setColumn(of: object, column: column) { _ in false }
            return
        }
        guard let key = dooming(context, { try linkableKey(value, from: info, column: column, context) }) else { return }
        setColumn(of: object, column: column) { bytes in
            bytes.appendLittleEndian(key, count: 8)
            return true
        }
    }

    /// The key under which `value` can be linked from `column` of `info`: adding it first if it
    /// is unmanaged. Linking to an object of another database, to a deleted one, or to an
    /// embedded object that already has a parent is a programmer error.
    func linkableKey(_ value: ObjectBase, from info: ClassInfo, column: Int, _ context: WriteContext) throws -> UInt64 {
        // Only the messages of failed preconditions need it: built then, not per link.
        func property() -> String { "\(info.name).\(info.stored.properties[column].name)" }
        guard let owner = value._objdbDatabase else {
            try addObject(value, update: .error, context)
            return value._objdbKey
        }
        objdbPrecondition(owner === self, "Cannot link '\(property())' to an object of another Database instance; look the object up through this Database (db.object(ofType:forPrimaryKey:)) and link that one")
        // The object's cached row answers without a lookup while nothing was written since.
        guard let valueInfo = value._objdbInfo, !valueInfo.isDiscarded, value._objdbCurrentRow() != nil else {
            objdbFatal("Cannot link '\(property())' to a deleted or invalidated object; check isInvalidated before linking it")
        }
        if valueInfo.stored.isEmbedded {
            let owned = try isOwned(valueInfo, key: value._objdbKey, context)
            objdbPrecondition(
                !owned,
                "Cannot link '\(property())' to an embedded \(valueInfo.name) that already belongs to another object; assign a new, unmanaged \(valueInfo.name) instead")
        }
        return value._objdbKey
    }

    /// Whether the embedded object `key` of `info` has a parent: a stored link, or an element of
    /// a collection edited in this transaction and not written back yet.
    func isOwned(_ info: ClassInfo, key: UInt64, _ context: WriteContext) throws -> Bool {
        if try hasIncomingLinks(info, key: key, context) { return true }
        let element = StoredElement(objectKey: key)
        return context.pending.collections.values.contains { pending in
            pending.info.linkTargets[pending.column] == info.name && pending.elements.contains(element)
        }
    }

    /// Whether any link points to the object `key` of `info`: a link property, or a mixed value
    /// (so a cascade stops at an object a mixed value still links to).
    func hasIncomingLinks(_ info: ClassInfo, key: UInt64, _ context: WriteContext) throws -> Bool {
        let txn = try context.transaction.requireTxn()
        for (origin, column) in incomingLinks(info) {
            guard let table = origin.tables.backlinks[column] else { continue }
            if try withUnsafeBytes(of: key, { try txn.get(table, key: $0) }) != nil { return true }
        }
        let origins = mixedLinkOrigins()
        guard !origins.isEmpty else { return false }
        let linkKey = MixedFormat.linkKey(classID: info.classID, key: key)
        for (origin, column) in origins {
            guard let table = origin.tables.mixedLinks[column] else { continue }
            if try linkKey.withUnsafeBytes({ try txn.get(table, key: $0) }) != nil { return true }
        }
        return false
    }

    // MARK: Backlinks

    /// The object keys held by a column of kind `kind`.
    static func linkedKeys(_ read: ColumnRead, kind: ColumnKind) -> [UInt64] {
        switch kind {
        case .value:
            return []
        case .link:
            guard case .value(let bytes) = read, bytes.count == 8 else { return [] }
            return [bytes.loadUnaligned(as: UInt64.self)]
        case .list, .set:
            return keys(of: SequenceView(read))
        case .map:
            return keys(of: MapView(read).values)
        }
    }

    private static func keys(of view: SequenceView) -> [UInt64] {
        (0..<view.count).compactMap { i in
            guard case .value(let bytes) = view.element(i), bytes.count == 8 else { return nil }
            return bytes.loadUnaligned(as: UInt64.self)
        }
    }

    /// Adds and removes the backlink entries of the link columns (of `columns`, or all) whose
    /// targets differ between `old` and `new`. Returns the embedded objects the row no longer
    /// links to: their owner let go of them, so the caller deletes them after writing the row.
    func updateBacklinks<New: ColumnSource>(
        _ info: ClassInfo, key: UInt64, old: RowView?, new: New?, columns: [Int]?, _ context: WriteContext, txn: Txn
    ) throws -> [(ClassInfo, UInt64)] {
        try apply(backlinkChanges(info, old: old, new: new, columns: columns), key: key, context, txn: txn)
    }

    /// The backlink entries to remove and add for a row change, read from the rows without
    /// writing. Callers that write before applying them (index updates) compute them first:
    /// in a large write transaction, LMDB may spill the page `old` points into.
    func backlinkChanges<New: ColumnSource>(_ info: ClassInfo, old: RowView?, new: New?, columns: [Int]?) -> BacklinkChanges {
        var changes = BacklinkChanges()
        guard info.hasLinks else { return changes }
        for column in info.linkColumns where columns?.contains(column) ?? true {
            let kind = info.columnKinds[column]
            let before = old.map { Set(Self.linkedKeys($0.column(column), kind: kind)) } ?? []
            let after = new.map { Set(Self.linkedKeys($0.column(column), kind: kind)) } ?? []
            guard before != after, let table = info.tables.backlinks[column] else { continue }
            let removed = Array(before.subtracting(after))
            changes.tables.append((table, removed, Array(after.subtracting(before))))
            if let target = targetInfo(info, column: column), target.stored.isEmbedded {
                changes.orphans.append(contentsOf: removed.map { (target, $0) })
            }
        }
        for column in info.mixedLinkColumns where columns?.contains(column) ?? true {
            let kind = info.columnKinds[column]
            let before = old.flatMap { Self.mixedLinkKeys($0.column(column), kind: kind) } ?? []
            var after: Set<[UInt8]> = []
            if let new {
                guard let keys = Self.mixedLinkKeys(new.column(column), kind: kind) else {
                    changes.refusal = ObjDBError(
                        .invalidValue,
                        "\(info.name).\(info.stored.properties[column].name) holds lists or dictionaries nested more than \(MixedFormat.maxDepth) deep",
                        className: info.name, propertyName: info.stored.properties[column].name, path: path)
                    continue
                }
                after = keys
            }
            guard before != after, let table = info.tables.mixedLinks[column] else { continue }
            changes.mixed.append((table, Array(before.subtracting(after)), Array(after.subtracting(before))))
        }
        for column in info.untrackedMixedColumns where columns?.contains(column) ?? true {
            guard let new, Self.holdsTrackedMixed(new.column(column), kind: info.columnKinds[column]) else { continue }
            let name = "\(info.name).\(info.stored.properties[column].name)"
            changes.refusal = ObjDBError(
                .invalidValue,
                "\(name) cannot hold a link, a list or a dictionary until the file is upgraded: open it once writable with this version of ObjDB (its mixed values then get their mixed-links table)",
                className: info.name, propertyName: info.stored.properties[column].name, path: path)
        }
        return changes
    }

    /// Whether a mixed column of kind `kind` holds a link, a list or a dictionary (at its top
    /// level or as an element): what only a column with a mixed-links table takes.
    static func holdsTrackedMixed(_ read: ColumnRead, kind: ColumnKind) -> Bool {
        guard case .value(let bytes) = read else { return false }
        func tracked(_ element: ColumnRead) -> Bool {
            guard case .value(let bytes) = element, let (tag, _) = MixedFormat.split(bytes) else { return false }
            return tag == .object || tag == .list || tag == .dictionary
        }
        switch kind {
        case .value, .link: return tracked(read)
        case .list, .set:
            let view = SequenceView(bytes)
            return (0..<view.count).contains { tracked(view.element($0)) }
        case .map:
            let values = MapView(read).values
            return (0..<values.count).contains { tracked(values.element($0)) }
        }
    }

    /// The mixed-links table keys (``MixedFormat/linkKey(classID:key:)``) of the links a mixed
    /// column of kind `kind` holds, at any depth; `nil` when its collections nest deeper than
    /// ``MixedFormat/maxDepth``.
    static func mixedLinkKeys(_ read: ColumnRead, kind: ColumnKind) -> Set<[UInt8]>? {
        guard case .value(let bytes) = read else { return [] }
        var keys = Set<[UInt8]>()
        let add = { (classID: UInt32, key: UInt64) in _ = keys.insert(MixedFormat.linkKey(classID: classID, key: key)) }
        let within: Bool
        switch kind {
        case .value, .link: within = MixedFormat.forEachLink(bytes, add)
        case .list, .set: within = MixedFormat.forEachLink(in: SequenceView(bytes), add)
        case .map: within = MixedFormat.forEachLink(in: MapView(read).values, add)
        }
        return within ? keys : nil
    }

    /// Writes backlink changes for the row of `key`; returns the embedded objects let go of.
    ///
    /// Through the write transaction's cursor on each backlink table (``OpenTransaction/withInsertCursor(_:_:_:)``):
    /// a put or delete looks at the cursor's page before searching from the root, which
    /// `mdb_put` and `mdb_del` (a new cursor each) cannot.
    func apply(_ changes: BacklinkChanges, key: UInt64, _ context: WriteContext, txn: Txn) throws -> [(ClassInfo, UInt64)] {
        if let refusal = changes.refusal { throw refusal }
        var origin = key
        try withUnsafeBytes(of: &origin) { value in
            for change in changes.tables {
                try context.transaction.withInsertCursor(change.table, txn) { cursor in
                    for var target in change.removed {
                        _ = try withUnsafeBytes(of: &target) { try cursor.delete(key: $0, value: value) }
                    }
                    for var target in change.added {
                        _ = try withUnsafeBytes(of: &target) { try cursor.put(key: $0, value: value) }
                    }
                }
            }
            for change in changes.mixed {
                try context.transaction.withInsertCursor(change.table, txn) { cursor in
                    for target in change.removed {
                        _ = try target.withUnsafeBytes { try cursor.delete(key: $0, value: value) }
                    }
                    for target in change.added {
                        _ = try target.withUnsafeBytes { try cursor.put(key: $0, value: value) }
                    }
                }
            }
        }
        return changes.orphans
    }

    /// Deletes embedded objects whose owner let go of them (see ``updateBacklinks``).
    func deleteOrphans(_ orphans: [(ClassInfo, UInt64)], _ context: WriteContext) throws {
        for (target, key) in orphans { try deleteRow(target, key: key, context) }
    }
}

/// Backlink entries to change for one row write (see ``Database/backlinkChanges(_:old:new:columns:)``).
struct BacklinkChanges {
    /// Per backlink table: the targets no longer linked and the targets newly linked.
    var tables: [(table: Table, removed: [UInt64], added: [UInt64])] = []
    /// Embedded targets no longer linked.
    var orphans: [(ClassInfo, UInt64)] = []
    /// Per mixed-links table: the targets (``MixedFormat/linkKey(classID:key:)``) no longer
    /// linked and those newly linked.
    var mixed: [(table: Table, removed: [[UInt8]], added: [[UInt8]])] = []
    /// Why the write cannot be done: a link or nested collection in a mixed column without its
    /// mixed-links table.
    var refusal: ObjDBError?
}
