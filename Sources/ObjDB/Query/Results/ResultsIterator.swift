extension Results {
    /// Walks the objects in key order with an LMDB cursor, reading each row straight from the
    /// memory map.
    ///
    /// If the database moves to another version during the walk (a `refresh()` or a write in
    /// the loop body), the walk continues in the new version after the last key it returned.
    public struct Iterator: IteratorProtocol {
        private let database: Database
        /// Keeps the class information alive while the iterator lives.
        private let info: ClassInfo?
        /// `info`, lent to each step without a retain and a release per object.
        private let infoRef: Unmanaged<ClassInfo>?
        private var walk: SnapshotWalk?
        private var writeWalk: WriteWalk?
        private var lastKey: UInt64?
        private var finished = false
        /// The object returned last, kept to be reused if the caller lets go of it. Typed as
        /// `ObjectBase` so this (unspecialized) code needs no `Optional<Element>` metadata.
        private var recycled: ObjectBase?
        /// For evaluated queries: the matching keys, walked in order.
        private let keys: [UInt64]?
        private var position = 0
        /// Whether objects may be reused for later rows (``FastPaths/objectRecycling``).
        private let recyclesObjects: Bool

        init(database: Database, info: ClassInfo?, keys: [UInt64]? = nil) {
            self.database = database
            self.info = info
            recyclesObjects = (info?.canRecycleObjects ?? false) && FastPaths.enabled.contains(.objectRecycling)
            infoRef = info.map { Unmanaged.passUnretained($0) }
            self.keys = keys
        }

        /// The next object, or `nil` at the end.
        public mutating func next() -> Element? {
            guard !finished, let infoRef, !infoRef._withUnsafeGuaranteedRef({ $0.isDiscarded }) else { return nil }
            // The steps return `ObjectBase`: in this unspecialized code an `Element?` result
            // would look up `Optional<Element>` metadata on every call.
            guard let object = step(infoRef) else { return nil }
            return unsafeDowncast(object, to: Element.self)
        }

        /// The next object of the class `info` describes. The steps take `info` unretained and
        /// use it in place on the per-object path: `ClassInfo` is a class, and holding it would
        /// cost an atomic retain and release per object.
        @inline(__always)
        private mutating func step(_ info: Unmanaged<ClassInfo>) -> ObjectBase? {
            if let keys { return keyedStep(keys, info) }
            if let context = database.writeContext {
                walk = nil
                return writeStep(info, context)
            }
            if writeWalk != nil { writeWalk = nil }
            if walk == nil || walk?.generation != database.generation {
                guard let txn = database.readableTxn(), let snapshot = database.snapshot,
                    let cursor = openCursor(txn, info.takeUnretainedValue().tables.objects)
                else { return finish() }
                let walk = SnapshotWalk(snapshot: snapshot, cursor: cursor, generation: database.generation)
                self.walk = walk
                let after = lastKey
                if after == nil { walk.cursor?.reserveOpenedRows() }
                let entry = reporting { try after.map { try walk.cursor?.seek(atLeast: $0 &+ 1) } ?? walk.cursor?.first() }
                walk.rows = RowWalk(from: entry, pageSize: walk.cursor?.leafPageSize ?? 0)
            }
            return yield(walk?.nextRow(), info)
        }

        /// The next object of an evaluated query. Outside writes, one cursor seeks the keys: when
        /// they ascend (unsorted results), each seek usually stays in the page of the last one.
        private mutating func keyedStep(_ keys: [UInt64], _ info: Unmanaged<ClassInfo>) -> ObjectBase? {
            // Objects deleted since the query was evaluated are skipped.
            while position < keys.count {
                let key = keys[position]
                position += 1
                if database.writeContext != nil {
                    walk = nil
                    if let object = database.object(Element.self, info.takeUnretainedValue(), key: key) { return object }
                    continue
                }
                if walk == nil || walk?.generation != database.generation {
                    guard let txn = database.readableTxn(), let snapshot = database.snapshot,
                        let cursor = openCursor(txn, info.takeUnretainedValue().tables.objects)
                    else { return finish() }
                    walk = SnapshotWalk(snapshot: snapshot, cursor: cursor, generation: database.generation)
                }
                let current = walk
                if let entry = reporting({ try current?.cursor?.seek(exactly: key) }) {
                    return produce(key, database.rows.checked(info, key: key, entry.value), info)
                }
            }
            return finish()
        }

        /// In a write transaction the cursor stays valid while the loop body writes (LMDB adjusts
        /// its cursors), until the transaction ends; a new or closed cursor seeks past the last key.
        private mutating func writeStep(_ info: Unmanaged<ClassInfo>, _ context: WriteContext) -> ObjectBase? {
            // `isOpen` first: a walk is closed before its transaction ends, and only then may
            // its transaction be gone.
            if let walk = writeWalk, walk.isOpen, walk.transaction === context.transaction {
                if let entry = reporting({ try walk.cursor?.next() }), lastKey.map({ entry.objectKey > $0 }) ?? true {
                    return yield((entry.objectKey, entry.value), info)
                }
            }
            let table = info.takeUnretainedValue().objectsTable
            guard let txn = context.transaction.txn, let cursor = openCursor(txn, table) else { return finish() }
            let walk = context.transaction.walk(table, with: cursor)
            writeWalk = walk
            let after = lastKey
            let entry = reporting { try after.map { try walk.cursor?.seek(atLeast: $0 &+ 1) } ?? walk.cursor?.first() }
            return yield(entry.map { ($0.objectKey, $0.value) }, info)
        }

        /// The object of a row (key and bytes) a walk reached; the end of the walk at `nil` or at
        /// a key that does not ascend.
        @inline(__always)
        private mutating func yield(_ row: (key: UInt64, bytes: UnsafeRawBufferPointer)?, _ info: Unmanaged<ClassInfo>) -> ObjectBase? {
            guard let row else { return finish() }
            if let lastKey, row.key <= lastKey { return finish() }
            lastKey = row.key
            return produce(row.key, database.rows.checked(info, key: row.key, row.bytes), info)
        }

        /// The object of `key`, whose row is `row`.
        @inline(__always)
        private mutating func produce(_ key: UInt64, _ row: RowView, _ info: Unmanaged<ClassInfo>) -> ObjectBase? {
            // Reuse the previous object if nothing but this iterator holds it (no strong, weak or
            // unowned reference elsewhere): no allocation, initialisation or deallocation per row.
            // Classes with plain stored properties are never reused, since those would carry
            // values from one object to the next.
            let recycles = recyclesObjects
            // `isOnlyReference` compares its answer with the runtime's under the internal checks.
            if recycles, var object = recycled.take(), ReferenceCountWord.isOnlyReference(&object), object._objdbHasInfo(info) {
                database.reattach(object, key: key, row: row)
                recycled = object
                return object
            }
            let object = database.materialize(Element.self, info.takeUnretainedValue(), key: key, row: row)
            if recycles { recycled = object }
            return object
        }

        /// A cursor on `table` whose walks keep their errors; a failure to open one is reported.
        private func openCursor(_ txn: Txn, _ table: Table) -> Cursor? {
            do {
                return try Cursor(txn, table, tracksFailures: true)
            } catch {
                database.reportReadFailure(error, while: "Iterating over results")
                return nil
            }
        }

        /// The entry a cursor move finds; a failure is reported and ends the iteration (`nil`).
        /// Inlined, with `move`: keyed iteration moves once per object.
        @inline(__always)
        private func reporting(_ move: () throws -> CursorEntry?) -> CursorEntry? {
            do {
                return try move()
            } catch {
                database.reportReadFailure(error, while: "Iterating over results")
                return nil
            }
        }

        private mutating func finish() -> ObjectBase? {
            // A walk that ended on a cursor error says so.
            if let failure = walk?.cursor?.failure?.error { database.reportReadFailure(failure) }
            finished = true
            walk = nil
            writeWalk = nil
            recycled = nil
            return nil
        }
    }
}

/// A cursor over one read snapshot, kept alive together with it.
final class SnapshotWalk {
    /// Keeps the transaction (and the environment) open while the cursor lives.
    let snapshot: ReadTransaction
    /// The cursor; closed first when the walk ends.
    @exclusivity(unchecked) var cursor: Cursor?
    /// The database generation the cursor belongs to.
    let generation: UInt64
    /// The position in the table, reading leaf pages in place (``RowWalk``).
    @exclusivity(unchecked) var rows = RowWalk(from: nil, pageSize: 0)

    init(snapshot: ReadTransaction, cursor: consuming Cursor, generation: UInt64) {
        self.snapshot = snapshot
        self.cursor = consume cursor
        self.generation = generation
    }

    /// The next row of the walk; `nil` at the end or on a cursor error.
    @inline(__always)
    func nextRow() -> (key: UInt64, bytes: UnsafeRawBufferPointer)? { cursor?.next(in: &rows) }

    deinit { cursor = nil }
}
