extension Results {
    /// Walks the objects in key order with an LMDB cursor, reading each row straight from the
    /// memory map.
    ///
    /// If the database moves to another version during the walk (a `refresh()` or a write in
    /// the loop body), the walk continues in the new version after the last key it returned.
    public struct Iterator: IteratorProtocol {
        private let database: Database
        private let info: ClassInfo?
        private var walk: SnapshotWalk?
        private var lastKey: UInt64?
        private var finished = false

        init(database: Database, info: ClassInfo?) {
            self.database = database
            self.info = info
        }

        /// The next object, or `nil` at the end.
        public mutating func next() -> Element? {
            guard !finished, let info, !info.isDiscarded else { return nil }
            if database.isInWriteTransaction {
                walk = nil
                return step(info, seekingIn: database.readableTxn())
            }
            if walk == nil || walk?.generation != database.generation {
                guard let txn = database.readableTxn(), let snapshot = database.snapshot,
                    let cursor = try? Cursor(txn, info.tables.objects)
                else { return finish() }
                walk = SnapshotWalk(snapshot: snapshot, cursor: cursor, generation: database.generation)
                let entry = try? (lastKey.map { try walk?.cursor?.seek(atLeast: $0 &+ 1) } ?? walk?.cursor?.first())
                return yield(entry ?? nil, info)
            }
            return yield((try? walk?.cursor?.next()) ?? nil, info)
        }

        /// In a write transaction rows move as the loop body writes, so each step seeks afresh.
        private mutating func step(_ info: ClassInfo, seekingIn txn: Txn?) -> Element? {
            guard let txn, let cursor = try? Cursor(txn, info.tables.objects) else { return finish() }
            let entry = try? (lastKey.map { try cursor.seek(atLeast: $0 &+ 1) } ?? cursor.first())
            return yield(entry ?? nil, info)
        }

        private mutating func yield(_ entry: CursorEntry?, _ info: ClassInfo) -> Element? {
            guard let entry else { return finish() }
            let key = entry.objectKey
            if let lastKey, key <= lastKey { return finish() }
            lastKey = key
            return database.materialize(Element.self, info, key: key, row: RowView(entry.value) ?? .damaged)
        }

        private mutating func finish() -> Element? {
            finished = true
            walk = nil
            return nil
        }
    }
}

/// A cursor over one read snapshot, kept alive together with it.
final class SnapshotWalk {
    /// Keeps the transaction (and the environment) open while the cursor lives.
    let snapshot: ReadTransaction
    /// The cursor; closed first when the walk ends.
    var cursor: Cursor?
    /// The database generation the cursor belongs to.
    let generation: UInt64

    init(snapshot: ReadTransaction, cursor: consuming Cursor, generation: UInt64) {
        self.snapshot = snapshot
        self.cursor = consume cursor
        self.generation = generation
    }

    deinit { cursor = nil }
}
