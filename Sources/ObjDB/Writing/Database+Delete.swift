extension Database {
    /// Deletes a stored object. The object, and every other instance of the same stored object,
    /// becomes invalidated (``ObjectBase/isInvalidated``). Deleting it again does nothing.
    ///
    /// Links to it are removed: to-one links become `nil`, and it leaves every list, set and map
    /// that held it. The embedded objects it owns are deleted with it, and so are the objects
    /// it links to through properties with ``DeleteRule/cascade`` when nothing else links to them.
    ///
    /// Deleting an ``EmbeddedObject`` removes it from its parent.
    ///
    /// Calling it outside a write transaction, or with an object this database does not manage,
    /// is a programmer error. A storage failure (such as a full map) makes ``commitWrite()`` throw.
    public func delete(_ object: ObjectBase) {
        let context = requireWriteForDelete()
        guard let owner = object._objdbDatabase, let info = object._objdbInfo else {
            objdbFatal(
                "Database.delete was given an object that is not stored: the \(type(of: object)) is not managed (it was never added, or was built by hand), so there is nothing to delete. Pass the stored object, for example the one db.object(ofType:forPrimaryKey:) or db.objects(_:) returns")
        }
        objdbPrecondition(
            owner === self,
            "Database.delete was given a \(info.name) that belongs to another Database instance; delete it through that instance, or look it up in this one (db.object(ofType:forPrimaryKey:))")
        guard !context.transaction.isDoomed, !info.isDiscarded else { return }
        object._objdbSettleInsert()
        _ = dooming(context) {
            try flushPendingWrites(context)
            try deleting(context) { try deleteObject(info, key: object._objdbKey, context) }
        }
    }

    /// Deletes every object of a sequence (see ``delete(_:)-(ObjectBase)``).
    public func delete<S: Sequence>(_ objects: S) where S.Element: ObjectBase {
        for object in Array(objects) { delete(object) }
    }

    /// Deletes every object of every class. The schema stays.
    public func deleteAll() {
        let context = requireWriteForDelete()
        guard !context.transaction.isDoomed else { return }
        context.pending.collections.removeAll()
        // Entries logged for objects about to go would be written into the emptied tables.
        context.pending.index.removeAll()
        context.pending.fullText.removeAll()
        for info in catalog.byName.values where !info.isDiscarded {
            // try?: a failure dooms the transaction (`storage` records it), and commitWrite() throws it.
            let emptied: Void? = try? context.storage { txn in
                try classChanges(info, context, txn).cleared = true
                try txn.empty(info.tables.objects)
                if let primaryKeys = info.tables.primaryKeys { try txn.empty(primaryKeys) }
                for case let index? in info.tables.indexes { try txn.empty(index) }
                for case let backlinks? in info.tables.backlinks { try txn.empty(backlinks) }
                for case let fullText? in info.tables.fullText { try txn.empty(fullText) }
                for case let mixedLinks? in info.tables.mixedLinks { try txn.empty(mixedLinks) }
            }
            guard emptied != nil else { return }
        }
        generation &+= 1
    }

    /// Runs `body`, a delete, keeping the transaction's record of whether it added or changed
    /// data as it was: the rows a delete rewrites (links to the deleted object removed) do not
    /// make it a transaction that adds or changes data (``TransactionChanges/addsOrChanges``).
    func deleting(_ context: WriteContext, _ body: () throws -> Void) rethrows {
        let addsOrChanges = context.changes.addsOrChanges
        defer { context.changes.addsOrChanges = addsOrChanges }
        try body()
    }

    func requireWriteForDelete() -> WriteContext {
        guard let context = writeContext else {
            objdbFatal("Database.delete and deleteAll() must be called inside a write transaction; wrap the call in db.write { }")
        }
        return context
    }

    // MARK: Delete propagation

    /// Deletes object `key` of `info`: removes the links to it, deletes its row (with the
    /// embedded objects it owns), then cascades along its ``DeleteRule/cascade`` links to objects
    /// nothing else links to. Missing objects are skipped, so cycles end.
    func deleteObject(_ info: ClassInfo, key: UInt64, _ context: WriteContext) throws {
        // Nothing links to the class and it links nowhere: only the row and its keys go.
        if !info.hasLinks && incomingLinks(info).isEmpty && mixedLinkOrigins().isEmpty {
            try deleteRow(info, key: key, context)
            return
        }
        var queue: [(ClassInfo, UInt64)] = [(info, key)]
        while let (info, key) = queue.popLast() {
            let txn = try context.transaction.requireTxn()
            guard let bytes = try txn.get(info.objectsTable, key: key) else { continue }
            let row = RowView(bytes) ?? .damaged
            var cascade: [(ClassInfo, UInt64)] = []
            for column in info.linkColumns where info.stored.properties[column].deleteRule == .cascade {
                guard let target = targetInfo(info, column: column), !target.stored.isEmbedded else { continue }
                cascade.append(contentsOf: Self.linkedKeys(row.column(column), kind: info.columnKinds[column]).map { (target, $0) })
            }
            try unlinkIncoming(info, key: key, context)
            try deleteRow(info, key: key, context)
            for (target, targetKey) in cascade where try !hasIncomingLinks(target, key: targetKey, context) {
                queue.append((target, targetKey))
            }
        }
    }

    /// Removes every link to object `key` of `info`: found through the backlink tables, so the
    /// cost is proportional to the number of links, not to the number of objects.
    private func unlinkIncoming(_ info: ClassInfo, key: UInt64, _ context: WriteContext) throws {
        for (origin, column) in incomingLinks(info) {
            guard let table = origin.tables.backlinks[column] else { continue }
            let txn = try context.transaction.requireTxn()
            for originKey in try txn.objectKeys(table, under: key) {
                guard let old = rows.fetch(origin, key: originKey) else { continue }
                let kind = origin.columnKinds[column]
                let value = Self.column(old.column(column), kind: kind, without: key)
                _ = try value.withUnsafeBytesOrNil { try writeColumn(origin, key: originKey, old: old, column: column, value: $0, context) }
            }
        }
        // Links in mixed values, of any class: each becomes none, or leaves its list or set.
        let target = (classID: info.classID, key: key)
        let linkKey = MixedFormat.linkKey(classID: info.classID, key: key)
        for (origin, column) in mixedLinkOrigins() {
            guard let table = origin.tables.mixedLinks[column] else { continue }
            let txn = try context.transaction.requireTxn()
            for originKey in try linkKey.withUnsafeBytes({ try txn.objectKeys(table, under: $0) }) {
                guard let old = rows.fetch(origin, key: originKey) else { continue }
                let value = Self.mixedColumn(old.column(column), kind: origin.columnKinds[column], without: target)
                _ = try value.withUnsafeBytesOrNil { try writeColumn(origin, key: originKey, old: old, column: column, value: $0, context) }
            }
        }
    }

    /// A mixed column's bytes without the links to `target` (see
    /// ``MixedFormat/removingLink(to:from:)``): `nil` (null) for a value that was such a link.
    private static func mixedColumn(_ read: ColumnRead, kind: ColumnKind, without target: (classID: UInt32, key: UInt64)) -> [UInt8]? {
        guard case .value(let bytes) = read else { return nil }
        var result: [UInt8] = []
        switch kind {
        case .value, .link:
            return MixedFormat.removingLink(to: target, from: bytes)
        case .list:
            MixedFormat.removingLink(to: target, from: SequenceView(bytes), dropping: true).appendEncoded(to: &result)
        case .set:
            // Two members may become equal (`.list([.object(t)])` and `.list([])`): keep the first.
            var seen = Set<StoredElement>()
            MixedFormat.removingLink(to: target, from: SequenceView(bytes), dropping: true)
                .filter { seen.insert(MixedFormat.setMember($0)).inserted }.appendEncoded(to: &result)
        case .map:
            let map = MapView(read)
            MapFormat.appendMap(
                keys: [StoredElement](map.keys), values: MixedFormat.removingLink(to: target, from: map.values, dropping: false), to: &result)
        }
        return result
    }

    /// A link column's bytes without object `key`: `nil` (null) for a to-one link; the other
    /// elements of a list or set; the other entries of a map.
    private static func column(_ read: ColumnRead, kind: ColumnKind, without key: UInt64) -> [UInt8]? {
        let removed = StoredElement(objectKey: key)
        var bytes: [UInt8] = []
        switch kind {
        case .value, .link:
            return nil
        case .list, .set:
            [StoredElement](SequenceView(read)).filter { $0 != removed }.appendEncoded(to: &bytes)
        case .map:
            let map = MapView(read)
            let kept = (0..<map.count).filter { StoredElement(map.values.element($0)) != removed }
            MapFormat.appendMap(
                keys: kept.map { StoredElement(map.keys.element($0)) }, values: kept.map { StoredElement(map.values.element($0)) },
                to: &bytes)
        }
        return bytes
    }
}

extension Optional where Wrapped == [UInt8] {
    /// Calls `body` with the bytes, or with `nil`.
    func withUnsafeBytesOrNil<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        switch self {
        case .some(let bytes): try bytes.withUnsafeBytes { try body($0) }
        case .none: try body(nil)
        }
    }
}
