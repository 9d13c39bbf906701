import CLMDB

/// One key–value pair read through a cursor; both point into the memory map.
struct CursorEntry {
    /// The key bytes.
    let key: UnsafeRawBufferPointer
    /// The value bytes.
    let value: UnsafeRawBufferPointer

    /// The key read as an object key (for `MDB_INTEGERKEY` tables).
    var objectKey: UInt64 { key.loadUnaligned(as: UInt64.self) }
    /// The value read as an object key (for multimaps of object keys).
    var valueObjectKey: UInt64 { value.loadUnaligned(as: UInt64.self) }
}

/// An LMDB cursor over one table. Closed when dropped.
///
/// In a write transaction a cursor must be dropped before the transaction ends (LMDB frees
/// write cursors itself); use it in a scope. In a read transaction it may outlive nothing but
/// the transaction's owner, which the holder keeps alive.
struct Cursor: ~Copyable {
    let handle: OpaquePointer
    unowned(unsafe) let environment: Environment
    /// The file's page size if ``forEachRow(from:through:_:)`` may read leaf pages in place
    /// (``LeafPage``), else 0.
    let leafPageSize: Int
    /// Whether values that may lie off their leaf page are checked against the file
    /// (``Environment/inFile(key:value:)``): in read-only transactions; a write transaction's
    /// own pages live in memory of their own.
    let checksValues: Bool
    /// The file's page size, for those checks.
    private let pageSize: Int
    /// Whether the table is `MDB_DUPSORT`, for those checks.
    private let sortsDuplicates: Bool
    /// What an encrypted file encrypts in the table, and its tag; ``TableSeal/none`` otherwise.
    let table: Table
    /// The cipher of an encrypted file (owned by the environment; unmanaged, so that a row
    /// walk does not retain it per row).
    let cipher: Unmanaged<StoreCipher>?
    /// Where opened values live (owned by the transaction's owner).
    let decrypted: Unmanaged<DecryptedValues>?
    /// In a write transaction of an encrypted file, for a keyed table: the entries of the table
    /// that wait to be written (``DeferredKeyPuts``), written before the cursor reads or writes
    /// anything else. `nil` for every other cursor.
    let deferredKeys: Unmanaged<DeferredKeyPuts>?
    /// In a write transaction of an encrypted file that keeps row buckets, for a table of values:
    /// the buckets the transaction changed (``BucketWrites``). `nil` for every other cursor.
    let bucketWrites: Unmanaged<BucketWrites>?
    /// In a read snapshot of an encrypted file, for a table of values: where its row buckets are
    /// read from, and the one read last (``RowBucket``), so that a walk finds the next fifteen
    /// rows without a lookup. `nil` for every other cursor (one word: a walk of an unencrypted
    /// file only tests it).
    let readBuckets: UnsafeMutablePointer<BucketCursor>?
    #if OBJDB_INTERNAL_CHECKS
    /// Tests only: see ``Environment/refusedLeafKeyForTesting``.
    let refusedLeafKey: UInt64?
    /// Tests only: see ``Environment/failingReadsForTesting``.
    let failsForTesting: Bool
    #endif

    /// Where row walks through the cursor (which cannot throw) leave the first error they met,
    /// for the caller to report; `nil` for cursors no walk needs it of.
    let failure: FailureNote?

    /// Opens a cursor on `table` in `txn`; with `readsLeafPages` false, row walks step the
    /// cursor row by row (the slow twin internal checks compare the page walk with). With
    /// `tracksFailures`, a walk that meets an error leaves it in ``failure``.
    init(_ txn: Txn, _ table: Table, readsLeafPages: Bool = true, tracksFailures: Bool = false) throws {
        failure = tracksFailures ? FailureNote() : nil
        txn.useOf(table)
        var cursor: OpaquePointer?
        try lmdbCheck(mdb_cursor_open(txn.handle, table.dbi, &cursor), "mdb_cursor_open", path: txn.environment.path)
        guard let cursor else { throw ObjDBError(.storage, "mdb_cursor_open returned no handle") }
        handle = cursor
        environment = txn.environment
        let inPlace = readsLeafPages && txn.isReadOnly && txn.environment.readsLeafPages && FastPaths.enabled.contains(.leafPages)
        leafPageSize = inPlace ? txn.environment.pageSize : 0
        checksValues = txn.isReadOnly
        pageSize = txn.environment.pageSize
        sortsDuplicates = table.flags.contains(.duplicateSort)
        self.table = table
        cipher = txn.environment.cipher.map { Unmanaged.passUnretained($0) }
        decrypted = txn.decrypted.map { Unmanaged.passUnretained($0) }
        deferredKeys = table.seal == .keys ? txn.deferredKeys.map { Unmanaged.passUnretained($0) } : nil
        bucketWrites = table.seal == .values ? txn.bucketWrites.map { Unmanaged.passUnretained($0) } : nil
        if table.seal == .values && txn.isReadOnly {
            let state = UnsafeMutablePointer<BucketCursor>.allocate(capacity: 1)
            state.initialize(to: BucketCursor(txn: txn.handle, buckets: txn.rowBuckets ?? txn.environment.rowBuckets))
            readBuckets = state
        } else {
            readBuckets = nil
        }
        #if OBJDB_INTERNAL_CHECKS
        refusedLeafKey = txn.environment.refusedLeafKeyForTesting
        failsForTesting = txn.isReadOnly && txn.environment.failingReadsForTesting == table
        #endif
    }

    deinit {
        mdb_cursor_close(handle)
        readBuckets?.deallocate()
    }

    /// Records `error`, met by a walk through the cursor, unless one was recorded before.
    func noteFailure(_ error: any Error) {
        failure?.note(error, path: environment.path)
    }

    /// The row in `value`, the row of object `key`; bytes that are not a row come as
    /// ``RowView/damaged``, noted in ``failure`` for the caller to report.
    @inline(__always)
    func row(_ key: UInt64, _ value: UnsafeRawBufferPointer) -> RowView {
        if let row = RowView(value) { return row }
        return damagedRow(key, byteCount: value.count)
    }

    @inline(never)
    private func damagedRow(_ key: UInt64, byteCount: Int) -> RowView {
        noteFailure(ObjDBError(
            .corruptFile, "The row of object key \(key) is damaged: its \(byteCount) bytes are not a row; run verify() for a full report",
            path: environment.path))
        return .damaged
    }

    /// Performs one cursor operation with `key` as its input (none for a move); `nil` when
    /// LMDB reports `MDB_NOTFOUND`. Inlined: a row walk moves once per row.
    @inline(__always)
    private func get(_ op: MDB_cursor_op, _ key: MDB_val = MDB_val()) throws -> CursorEntry? {
        if deferredKeys != nil { try settleKeys() }
        var k = key
        var v = MDB_val()
        let rc = mdb_cursor_get(handle, &k, &v, op)
        #if OBJDB_INTERNAL_CHECKS
        if failsForTesting { throw ObjDBError.lmdb(MDB_CORRUPTED, operation: "mdb_cursor_get", path: environment.path) }
        #endif
        if rc == MDB_SUCCESS {
            if checksValues && Environment.mayLieOffPage(key: k.mv_data, value: v.mv_data, size: v.mv_size, pageSize: pageSize, sortsDuplicates: sortsDuplicates) {
                // Without a retain of the environment (the cursor's owner keeps it): an index
                // with many objects per key checks the first value of every key.
                // A page of duplicates (`MDB_GET_MULTIPLE`) comes without a key: its own
                // address finds the page it lies in.
                let anchor = k.mv_data ?? v.mv_data
                v = Unmanaged.passUnretained(environment)._withUnsafeGuaranteedRef { $0.inFile(key: anchor, value: v) }
            }
            if table.seal != .none { return try opened(k, v) }
            return CursorEntry(key: k.bytes, value: v.bytes)
        }
        if rc == MDB_NOTFOUND { return nil }
        throw ObjDBError.lmdb(rc, operation: "mdb_cursor_get", path: environment.path)
    }

    /// The first entry of the table.
    func first() throws -> CursorEntry? { try get(MDB_FIRST) }
    /// The last entry of the table.
    func last() throws -> CursorEntry? { try get(MDB_LAST) }
    /// The next entry (next duplicate, then next key). Inlined, so that a row walk calls LMDB
    /// directly (not through one shared out-of-line copy of ``get(_:_:)``).
    @inline(__always)
    func next() throws -> CursorEntry? { try get(MDB_NEXT) }
    /// The previous entry.
    func previous() throws -> CursorEntry? { try get(MDB_PREV) }
    /// The next duplicate of the current key, or `nil` at its last one.
    func nextDuplicate() throws -> CursorEntry? { try get(MDB_NEXT_DUP) }
    /// The first entry of the next key. Inlined: index walks step once per key.
    @inline(__always)
    func nextKey() throws -> CursorEntry? { try get(MDB_NEXT_NODUP) }
    /// The entry at the cursor.
    func current() throws -> CursorEntry? { try get(MDB_GET_CURRENT) }

    /// Every object key of an `MDB_INTEGERKEY` table, ascending, without reading its values (in
    /// an encrypted file, without opening them).
    func allObjectKeys() throws -> [UInt64] {
        try settleKeys()
        var keys: [UInt64] = []
        var k = MDB_val()
        var v = MDB_val()
        var rc = mdb_cursor_get(handle, &k, &v, MDB_FIRST)
        while rc == MDB_SUCCESS {
            if k.mv_size == 8 { keys.append(k.bytes.loadUnaligned(as: UInt64.self)) }
            rc = mdb_cursor_get(handle, &k, &v, MDB_NEXT)
        }
        if rc != MDB_NOTFOUND { try lmdbCheck(rc, "mdb_cursor_get", path: environment.path) }
        return keys
    }

    /// The object key at the cursor (of an `MDB_INTEGERKEY` table), without its value: in an
    /// encrypted file, without opening the value, which a write through the cursor replaces.
    func currentObjectKey() throws -> UInt64? {
        try settleKeys()
        var k = MDB_val()
        var v = MDB_val()
        let rc = mdb_cursor_get(handle, &k, &v, MDB_GET_CURRENT)
        #if OBJDB_INTERNAL_CHECKS
        if failsForTesting { throw ObjDBError.lmdb(MDB_CORRUPTED, operation: "mdb_cursor_get", path: environment.path) }
        #endif
        if rc == MDB_NOTFOUND { return nil }
        try lmdbCheck(rc, "mdb_cursor_get", path: environment.path)
        guard k.mv_size == 8 else { return nil }
        return k.bytes.loadUnaligned(as: UInt64.self)
    }

    /// Positions at exactly `key` (its first duplicate). Inlined, as ``get(_:_:)`` is: index
    /// lookups and keyed iteration seek once per key.
    @inline(__always)
    func seek(exactly key: UnsafeRawBufferPointer) throws -> CursorEntry? {
        if table.seal == .keys { return try withStoredKey(key) { try get(MDB_SET_KEY, MDB_val(bytes: $0)) } }
        return try get(MDB_SET_KEY, MDB_val(bytes: key))
    }
    /// Positions at the first key greater than or equal to `key`. In an index of an encrypted
    /// file keys are hashes, in no useful order: only ``seek(exactly:)`` means anything there.
    func seek(atLeast key: UnsafeRawBufferPointer) throws -> CursorEntry? {
        try withStoredKey(key) { try get(MDB_SET_RANGE, MDB_val(bytes: $0)) }
    }

    /// Stores `value` under `key` through the cursor (`mdb_cursor_put`), which is left on the new
    /// entry. LMDB first looks at the cursor's own page: a key past the last one of the table's
    /// last page, as when keys ascend, is placed there without a search from the root. Only in
    /// write transactions.
    ///
    /// In an encrypted file's keyed table, with `mayWait`, an object key put under a key may
    /// wait to be written (``DeferredKeyPuts``), and the cursor then stays where it was; pass
    /// `false` for an entry the transaction reads back at once.
    /// - Returns: `false` if `flags` forbid overwriting (or duplicating) and the entry exists.
    func put(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: PutFlags = [], mayWait: Bool = true) throws -> Bool {
        if table.seal != .none {
            return try withStoredKey(key) { key in
                if mayWait, let deferredKeys, DeferredKeyPuts.accepts(table, storedKey: key, value: value, flags: flags) {
                    return try deferredKeys._withUnsafeGuaranteedRef {
                        try $0.put(table, storedKey: key, objectKey: value.loadUnaligned(as: UInt64.self), noOverwrite: flags.contains(.noOverwrite))
                    }
                }
                if let bucketWrites, key.count == 8, table.seal == .values {
                    return try putInBucket(key: key.loadUnaligned(as: UInt64.self), value: value, flags: flags, bucketWrites)
                }
                return try withStoredValue(key, value) { try rawPut(key: key, value: $0, flags: flags) }
            }
        }
        return try rawPut(key: key, value: value, flags: flags)
    }

    /// ``put(key:value:flags:)`` of the bytes LMDB is to store.
    func rawPut(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: PutFlags) throws -> Bool {
        try settleKeys()
        var k = MDB_val(bytes: key)
        var v = MDB_val(bytes: value)
        let rc = mdb_cursor_put(handle, &k, &v, flags.rawValue)
        if rc == MDB_KEYEXIST { return false }
        try lmdbCheck(rc, "mdb_cursor_put", path: environment.path)
        return true
    }

    /// Stores a row of `count` bytes under the object key `key` through the cursor (see
    /// ``Txn/storeRow(_:key:count:flags:_:)``): `fill` writes it, then it gets its checksum and,
    /// in an encrypted file, its seal. Returns the stored row, or `nil` if `flags` forbid
    /// overwriting and the key exists. With ``PutFlags/current`` it replaces the value at the
    /// cursor, whose key must be `key`, without a search.
    func storeRow(
        key: UInt64, count: Int, flags: PutFlags = [], _ fill: (UnsafeMutableRawBufferPointer) -> Void
    ) throws -> UnsafeMutableRawBufferPointer? {
        try RowStore.store(key: key, count: count, table: table, cipher: cipher, decrypted: decrypted, buckets: bucketWrites, fill) {
            try reserve(key: key, count: $0, flags: flags)
        }
    }

    /// Reserves `count` bytes under the object key `key` through the cursor (`MDB_RESERVE`; see
    /// ``put(key:value:flags:)``) and returns the space to fill, or `nil` if `flags` forbid
    /// overwriting and the key exists. With ``PutFlags/current`` it replaces the value at the
    /// cursor, whose key must be `key`, without a search. Rows go through
    /// ``storeRow(key:count:flags:_:)``.
    private func reserve(key: UInt64, count: Int, flags: PutFlags = []) throws -> UnsafeMutableRawBufferPointer? {
        var key = key
        return try withUnsafeMutableBytes(of: &key) { keyBytes in
            var k = MDB_val(bytes: UnsafeRawBufferPointer(keyBytes))
            var v = MDB_val(mv_size: count, mv_data: nil)
            let rc = mdb_cursor_put(handle, &k, &v, flags.union(.reserve).rawValue)
            if rc == MDB_KEYEXIST { return nil }
            try lmdbCheck(rc, "mdb_cursor_put", path: environment.path)
            return UnsafeMutableRawBufferPointer(start: v.mv_data, count: count)
        }
    }

    /// Stores the pairs `key`–`objectKeys[i]` of a multimap of object keys (`MDB_DUPFIXED`)
    /// through the cursor in one call (`MDB_MULTIPLE`): after the first, each object key goes
    /// in where the previous one went, with no search from the root, so ascending object keys
    /// cost least. Pairs already stored stay as they are. Only in write transactions.
    func putAll(key: UnsafeRawBufferPointer, objectKeys: [UInt64]) throws {
        try withStoredKey(key) { try rawPutAll(key: $0, objectKeys: objectKeys) }
    }

    private func rawPutAll(key: UnsafeRawBufferPointer, objectKeys: [UInt64]) throws {
        try objectKeys.withUnsafeBytes { try rawPutAll(key: key, values: $0, size: MemoryLayout<UInt64>.size) }
    }

    /// Stores the pairs `key`–value for each `size`-byte value of `values`, in one
    /// `MDB_MULTIPLE` call as ``putAll(key:objectKeys:)`` does, for any table of fixed-size
    /// duplicates (`MDB_DUPFIXED`). Only in write transactions.
    func putAll(key: UnsafeRawBufferPointer, values: UnsafeRawBufferPointer, size: Int) throws {
        try withStoredKey(key) { try rawPutAll(key: $0, values: values, size: size) }
    }

    private func rawPutAll(key: UnsafeRawBufferPointer, values: UnsafeRawBufferPointer, size: Int) throws {
        try settleKeys()
        guard let base = values.baseAddress, size > 0 else { return }
        let total = values.count / size
        var done = 0
        while done < total {
            var k = MDB_val(bytes: key)
            var data = (
                MDB_val(mv_size: size, mv_data: UnsafeMutableRawPointer(mutating: base + done * size)),
                MDB_val(mv_size: total - done, mv_data: nil))
            let rc = withUnsafeMutablePointer(to: &data) {
                $0.withMemoryRebound(to: MDB_val.self, capacity: 2) { mdb_cursor_put(handle, &k, $0, UInt32(MDB_MULTIPLE)) }
            }
            try lmdbCheck(rc, "mdb_cursor_put(MDB_MULTIPLE)", path: environment.path)
            // LMDB reports how many it stored; should it stop short without storing any,
            // the next pair goes in on its own.
            if data.1.mv_size > 0 {
                done += data.1.mv_size
            } else {
                _ = try rawPut(key: key, value: UnsafeRawBufferPointer(start: base + done * size, count: size), flags: [])
                done += 1
            }
        }
    }

    /// The values under the cursor's key in a table of fixed-size duplicates, a page of them at
    /// a time (`MDB_GET_MULTIPLE`, then `MDB_NEXT_MULTIPLE`): `body` gets each page's values
    /// one after the other and returns `false` to stop. The cursor must stand on the key.
    func forEachDuplicatePage(_ body: (UnsafeRawBufferPointer) throws -> Bool) throws {
        var page = try get(MDB_GET_MULTIPLE)
        // A key with one value has no page of duplicates: LMDB then reports success and leaves
        // the data empty, and the value is the entry at the cursor.
        if let first = page, first.value.count == 0 { page = try get(MDB_GET_CURRENT) }
        while let current = page {
            if try !body(current.value) { return }
            page = try get(MDB_NEXT_MULTIPLE)
        }
    }

    /// Deletes the pair `key`–`value` of a multimap through the cursor (`MDB_GET_BOTH`, then
    /// `mdb_cursor_del`). Like a put, the search looks at the cursor's own page before the
    /// root, so neighbouring keys cost less than `mdb_del`, which starts from the root with a
    /// new cursor every time. Only in write transactions.
    /// - Returns: whether the pair existed.
    func delete(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws -> Bool {
        guard try withStoredKey(key, { try rawDelete(key: $0, value: value) }) else { return false }
        if let bucketWrites, key.count == 8 { bucketWrites._withUnsafeGuaranteedRef { $0.removed(table, key: key.loadUnaligned(as: UInt64.self)) } }
        return true
    }

    private func rawDelete(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws -> Bool {
        try settleKeys()
        var k = MDB_val(bytes: key)
        var v = MDB_val(bytes: value)
        let rc = mdb_cursor_get(handle, &k, &v, MDB_GET_BOTH)
        if rc == MDB_NOTFOUND { return false }
        try lmdbCheck(rc, "mdb_cursor_get", path: environment.path)
        try lmdbCheck(mdb_cursor_del(handle, 0), "mdb_cursor_del", path: environment.path)
        return true
    }

    /// Deletes the entry at the cursor (`mdb_cursor_del`); ``next()`` then returns the entry
    /// that followed it. Only in write transactions.
    func deleteCurrent() throws {
        try settleKeys()
        let key = bucketWrites == nil ? nil : try currentObjectKey()
        try lmdbCheck(mdb_cursor_del(handle, 0), "mdb_cursor_del", path: environment.path)
        if let key, let bucketWrites { bucketWrites._withUnsafeGuaranteedRef { $0.removed(table, key: key) } }
    }

    /// The number of duplicates of the current key (`mdb_cursor_count`), for multimaps. Inlined:
    /// an index count asks once per key.
    @inline(__always)
    func duplicateCount() throws -> Int {
        if deferredKeys != nil { try settleKeys() }
        var count = 0
        try lmdbCheck(mdb_cursor_count(handle, &count), "mdb_cursor_count", path: environment.path)
        return count
    }

    /// Positions at the object key `key`; `nil` if it is not there. Seeking near the current
    /// position is cheap: LMDB looks in the current page before descending from the root.
    @inline(__always)
    func seek(exactly key: UInt64) throws -> CursorEntry? {
        var key = key
        return try withUnsafeBytes(of: &key) { try seek(exactly: $0) }
    }

    /// Positions at the first object key greater than or equal to `key`.
    func seek(atLeast key: UInt64) throws -> CursorEntry? {
        var key = key
        return try withUnsafeBytes(of: &key) { try seek(atLeast: $0) }
    }

    /// The next row of `walk`, a walk through this cursor's table (see ``RowWalk``).
    @inline(__always)
    func next(in walk: inout RowWalk) -> (key: UInt64, bytes: UnsafeRawBufferPointer)? { walk.next(self) }

    /// Before a walk of the whole table: in a read snapshot of an encrypted file, room for the
    /// table's rows in the opened values at once (``DecryptedValues/reserve(_:table:)``), up to
    /// ``reservedOpenedRows``: a walk may stop after one row (`first`, a loop that breaks), and
    /// the table's slots are written when made, so room for ten million rows would cost a
    /// gigabyte for one; beyond it the table doubles as rows come.
    func reserveOpenedRows() {
        guard table.seal == .values, checksValues, let decrypted else { return }
        var stat = MDB_stat()
        guard mdb_stat(mdb_cursor_txn(handle), table.dbi, &stat) == MDB_SUCCESS else { return }
        // Rows in buckets take a slot per bucket, not per row.
        let slots = readBuckets?.pointee.buckets == nil ? stat.ms_entries : stat.ms_entries / Int(RowBucket.keysPerBucket) + 16
        decrypted._withUnsafeGuaranteedRef { $0.reserve(min(slots, Self.reservedOpenedRows), table: table.dbi) }
    }

    /// The most rows ``reserveOpenedRows()`` makes room for before a walk (8 MiB of slots).
    static let reservedOpenedRows = 1 << 17

    /// Walks a table of rows (object key → row) from `entry` on, calling `body` with each key and
    /// row up to the key `last`, until `body` returns `false`. Bytes that are not a row come as
    /// ``RowView/damaged`` (see ``row(_:_:)``); a cursor error ends the walk.
    ///
    /// In a read-only transaction each leaf page is read in place (see ``RowWalk``).
    @inline(__always)
    func forEachRow(from entry: CursorEntry?, through last: UInt64 = .max, _ body: (UInt64, RowView) -> Bool) {
        if last == .max { reserveOpenedRows() }
        var walk = RowWalk(from: entry, pageSize: leafPageSize)
        // A page's rows in a loop of their own; the walk steps between pages and reads the rest.
        while walk.forEachRowOnPage(self, { key, value in key <= last && body(key, row(key, value)) }) {
            guard let (key, value) = walk.advance(self), key <= last, body(key, row(key, value)) else { return }
        }
    }

    /// ``forEachRow(from:through:_:)`` handing each row to `sink`.
    ///
    /// For loops whose work per row is more than a few lines: the compiler specializes this
    /// function for the sink's type and inlines ``RowSink/take(_:_:)``, which it does not
    /// promise for a closure (a closure that is not inlined costs a call per row, and keeps its
    /// captured state in memory).
    @inline(__always)
    func forEachRow<Sink: RowSink>(from entry: CursorEntry?, through last: UInt64 = .max, into sink: inout Sink) {
        if last == .max { reserveOpenedRows() }
        var walk = RowWalk(from: entry, pageSize: leafPageSize)
        while walk.forEachRowOnPage(self, through: last, into: &sink) {
            guard let (key, value) = walk.advance(self), key <= last, sink.take(key, row(key, value)) else { return }
        }
    }
}

extension Txn {
    /// The object keys stored under the object key `key` of a multimap of object keys (a
    /// backlink table), ascending.
    func objectKeys(_ table: Table, under key: UInt64) throws -> [UInt64] {
        var target = key
        return try withUnsafeBytes(of: &target) { try objectKeys(table, under: $0) }
    }

    /// The object keys stored under `key` of a multimap of object keys (a backlink or index
    /// table), ascending.
    func objectKeys(_ table: Table, under key: UnsafeRawBufferPointer) throws -> [UInt64] {
        let cursor = try Cursor(self, table)
        var keys: [UInt64] = []
        var entry = try cursor.seek(exactly: key)
        while let current = entry {
            keys.append(current.valueObjectKey)
            entry = try cursor.nextDuplicate()
        }
        return keys
    }
}

/// The first error a read that cannot throw met, kept for its caller to report: a walk through a
/// cursor (``Cursor/failure``), or the query evaluator following links. Used on one thread at a
/// time, as its owner is.
final class FailureNote {
    /// The error, if a read met one.
    var error: ObjDBError?

    /// Records `error` unless one was recorded before.
    func note(_ error: any Error, path: String?) {
        guard self.error == nil else { return }
        self.error = error as? ObjDBError ?? ObjDBError(.storage, "A read failed: \(error)", path: path)
    }

    /// The error recorded, if any, leaving the note empty for the next read.
    func take() -> ObjDBError? {
        guard let error else { return nil }
        self.error = nil
        return error
    }
}
