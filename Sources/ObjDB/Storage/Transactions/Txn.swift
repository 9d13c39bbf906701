import CLMDB

/// A borrowed view of an open transaction (read or write) with the table operations.
///
/// It does not own the transaction: its owner (``ReadTransaction`` or ``WriteTransaction``)
/// must outlive every use. Byte buffers it returns point into the memory map and are valid until
/// the transaction ends or, in a write transaction, until the next write.
struct Txn {
    /// The `MDB_txn` handle.
    let handle: OpaquePointer
    /// The environment, for error context.
    unowned(unsafe) let environment: Environment
    /// Whether the transaction is read-only: every page it reads lies in the memory map.
    let isReadOnly: Bool
    /// Where the values this transaction decrypts live (an encrypted file's); its owner keeps it.
    unowned(unsafe) let decrypted: DecryptedValues?
    /// The index entries an encrypted file's write transaction has not written yet
    /// (``DeferredKeyPuts``); its owner keeps it.
    unowned(unsafe) let deferredKeys: DeferredKeyPuts?
    /// The row buckets an encrypted file's write transaction has changed (``BucketWrites``),
    /// sealed at commit; its owner keeps it. `nil` in read transactions and other files.
    unowned(unsafe) let bucketWrites: BucketWrites?
    /// In a read snapshot of an encrypted file that keeps row buckets, their table (read once
    /// per snapshot); `nil` elsewhere, where ``Environment/rowBuckets`` answers when a marker is met.
    let rowBuckets: Table?

    init(
        _ handle: OpaquePointer, environment: Environment, isReadOnly: Bool, decrypted: DecryptedValues? = nil,
        deferredKeys: DeferredKeyPuts? = nil, bucketWrites: BucketWrites? = nil, rowBuckets: Table? = nil
    ) {
        self.rowBuckets = rowBuckets
        self.handle = handle
        self.environment = environment
        self.isReadOnly = isReadOnly
        self.decrypted = decrypted
        self.deferredKeys = deferredKeys
        self.bucketWrites = bucketWrites
    }

    /// The LMDB transaction id.
    var id: Int { mdb_txn_id(handle) }

    // MARK: Reading

    /// The value stored under an object key, or `nil`.
    func get(_ table: Table, key: UInt64) throws -> UnsafeRawBufferPointer? {
        var key = key
        return try withUnsafeMutableBytes(of: &key) { try get(table, key: UnsafeRawBufferPointer($0)) }
    }

    /// The value stored under `key` (the first duplicate in a multimap), or `nil`. In an
    /// encrypted file, the value opened and the key hashed as the table's ``TableSeal`` says.
    func get(_ table: Table, key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        if table.seal != .none { return try sealedGet(table, key: key) }
        return try rawGet(table, key: key)
    }

    /// ``get(_:key:)`` of what LMDB stores.
    func rawGet(_ table: Table, key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        switch try rawGetOnPage(table, key: key) {
        case .absent: return nil
        case .value(let bytes): return bytes
        case .mayLieOffPage(let v): return try largeValue(table, key: key, v).bytes
        }
    }

    /// What ``getOnPage(_:key:)`` found.
    enum PageRead {
        case absent
        /// The value, within its leaf page.
        case value(UnsafeRawBufferPointer)
        /// A value that may lie outside its leaf page (``Environment/mayLieOffPage(key:value:size:pageSize:sortsDuplicates:)``),
        /// not checked yet: on overflow pages, or the first of a key's many duplicates.
        case mayLieOffPage(MDB_val)
    }

    /// ``get(_:key:)`` without the check of a value that may lie off its leaf page, which needs
    /// a cursor: the caller may have a cheaper way to the answer.
    @inline(__always)
    func getOnPage(_ table: Table, key: UnsafeRawBufferPointer) throws -> PageRead {
        if table.seal != .none { return try sealedGet(table, key: key).map { .value($0) } ?? .absent }
        return try rawGetOnPage(table, key: key)
    }

    /// ``getOnPage(_:key:)`` of what LMDB stores.
    @inline(__always)
    private func rawGetOnPage(_ table: Table, key: UnsafeRawBufferPointer) throws -> PageRead {
        useOf(table)
        try settleKeys(table)
        var k = MDB_val(bytes: key)
        var v = MDB_val()
        var rc = mdb_get(handle, table.dbi, &k, &v)
        #if OBJDB_INTERNAL_CHECKS
        if isReadOnly, environment.failingReadsForTesting == table { rc = MDB_CORRUPTED }
        #endif
        if rc == MDB_NOTFOUND { return .absent }
        try lmdbCheck(rc, "mdb_get", path: environment.path)
        // Only in read-only transactions: a write transaction's own pages are not in the map.
        if isReadOnly && Environment.mayLieOffPage(key: nil, value: v.mv_data, size: v.mv_size, pageSize: environment.pageSize, sortsDuplicates: false) { return .mayLieOffPage(v) }
        return .value(v.bytes)
    }

    /// A value on overflow pages checked against the file (``Environment/inFile(key:value:)``),
    /// its key found on its leaf page with a cursor: `mdb_get` does not say where that is.
    @inline(never)
    private func largeValue(_ table: Table, key: UnsafeRawBufferPointer, _ value: MDB_val) throws -> MDB_val {
        var cursor: OpaquePointer?
        try lmdbCheck(mdb_cursor_open(handle, table.dbi, &cursor), "mdb_cursor_open", path: environment.path)
        defer { mdb_cursor_close(cursor) }
        var k = MDB_val(bytes: key)
        var v = MDB_val()
        guard mdb_cursor_get(cursor, &k, &v, MDB_SET_KEY) == MDB_SUCCESS else { return value }
        return environment.inFile(key: k.mv_data, value: v)
    }

    /// Number of entries (for a multimap: key–value pairs).
    func entryCount(_ table: Table) throws -> Int {
        useOf(table)
        try settleKeys(table)
        var stat = MDB_stat()
        try lmdbCheck(mdb_stat(handle, table.dbi, &stat), "mdb_stat", path: environment.path)
        return stat.ms_entries
    }

    /// Number of entries in LMDB's main table, which lists the named tables of the file. An
    /// LMDB file with entries there but no `meta` table was not written by ObjDB.
    func mainEntryCount() throws -> Int {
        var dbi: MDB_dbi = 0
        try lmdbCheck(mdb_dbi_open(handle, nil, 0, &dbi), "mdb_dbi_open(main)", path: environment.path)
        return try entryCount(Table(dbi: dbi, flags: []))
    }

    /// The names of the file's named tables (the keys of LMDB's main table).
    func tableNames() throws -> [String] {
        var dbi: MDB_dbi = 0
        try lmdbCheck(mdb_dbi_open(handle, nil, 0, &dbi), "mdb_dbi_open(main)", path: environment.path)
        let cursor = try Cursor(self, Table(dbi: dbi, flags: []), readsLeafPages: false)
        var names: [String] = []
        var entry = try cursor.first()
        while let current = entry {
            names.append(String(decoding: current.key, as: UTF8.self))
            entry = try cursor.next()
        }
        return names
    }

    // MARK: Writing

    /// Stores `value` under an object key.
    /// - Returns: `false` if `flags` forbid overwriting and the key exists.
    @discardableResult
    func put(_ table: Table, key: UInt64, value: UnsafeRawBufferPointer, flags: PutFlags = []) throws -> Bool {
        var key = key
        return try withUnsafeMutableBytes(of: &key) {
            try put(table, key: UnsafeRawBufferPointer($0), value: value, flags: flags)
        }
    }

    /// Stores a row of `count` bytes under the object key `key`: `fill` writes it, then its
    /// checksum is sealed into it (``RowChecksum``) and, in an encrypted file, it is sealed with
    /// the cipher. Returns the stored row (valid as a read's bytes), or `nil` if `flags` forbid
    /// overwriting and the key exists.
    func storeRow(
        _ table: Table, key: UInt64, count: Int, flags: PutFlags = [], _ fill: (UnsafeMutableRawBufferPointer) -> Void
    ) throws -> UnsafeMutableRawBufferPointer? {
        try RowStore.store(key: key, count: count, table: table, txn: self, fill) { try reserve(table, key: key, count: $0, flags: flags) }
    }

    /// Reserves `count` bytes under an object key and returns the space to fill (`MDB_RESERVE`),
    /// or `nil` if `flags` forbid overwriting and the key exists. The bytes are stored as they
    /// are: rows go through ``storeRow(_:key:count:flags:_:)``.
    private func reserve(_ table: Table, key: UInt64, count: Int, flags: PutFlags = []) throws -> UnsafeMutableRawBufferPointer? {
        useOf(table)
        var key = key
        return try withUnsafeMutableBytes(of: &key) { keyBytes in
            var k = MDB_val(bytes: UnsafeRawBufferPointer(keyBytes))
            var v = MDB_val(mv_size: count, mv_data: nil)
            let rc = mdb_put(handle, table.dbi, &k, &v, flags.union(.reserve).rawValue)
            if rc == MDB_KEYEXIST { return nil }
            try lmdbCheck(rc, "mdb_put", path: environment.path)
            return UnsafeMutableRawBufferPointer(start: v.mv_data, count: count)
        }
    }

    /// Stores `value` under `key`.
    /// - Returns: `false` if `flags` forbid overwriting (or duplicating) and the entry exists.
    @discardableResult
    func put(_ table: Table, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: PutFlags = []) throws -> Bool {
        if table.seal != .none { return try sealedPut(table, key: key, value: value, flags: flags) }
        return try rawPut(table, key: key, value: value, flags: flags)
    }

    /// ``put(_:key:value:flags:)`` of the bytes LMDB is to store.
    func rawPut(_ table: Table, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: PutFlags = []) throws -> Bool {
        useOf(table)
        try settleKeys(table)
        var k = MDB_val(bytes: key)
        var v = MDB_val(bytes: value)
        let rc = mdb_put(handle, table.dbi, &k, &v, flags.rawValue)
        if rc == MDB_KEYEXIST { return false }
        try lmdbCheck(rc, "mdb_put", path: environment.path)
        return true
    }

    /// Deletes the entry under an object key. - Returns: whether it existed.
    @discardableResult
    func delete(_ table: Table, key: UInt64) throws -> Bool {
        var key = key
        return try withUnsafeMutableBytes(of: &key) { try delete(table, key: UnsafeRawBufferPointer($0), value: nil) }
    }

    /// Deletes `key` (all its duplicates) or, with `value`, only that key–value pair.
    /// - Returns: whether something was deleted.
    @discardableResult
    func delete(_ table: Table, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?) throws -> Bool {
        if table.seal == .keys {
            return try storedKey(table, key).withUnsafeBytes { try rawDelete(table, key: $0, value: value) }
        }
        guard try rawDelete(table, key: key, value: value) else { return false }
        if table.seal == .values, key.count == 8, let bucketWrites { bucketWrites.removed(table, key: key.loadUnaligned(as: UInt64.self)) }
        return true
    }

    private func rawDelete(_ table: Table, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?) throws -> Bool {
        useOf(table)
        try settleKeys(table)
        var k = MDB_val(bytes: key)
        let rc: Int32
        if let value {
            var v = MDB_val(bytes: value)
            rc = mdb_del(handle, table.dbi, &k, &v)
        } else {
            rc = mdb_del(handle, table.dbi, &k, nil)
        }
        if rc == MDB_NOTFOUND { return false }
        try lmdbCheck(rc, "mdb_del", path: environment.path)
        return true
    }

    /// Opens (creating if needed) a table. Only valid in a write transaction; the handle becomes
    /// visible to other transactions when this one commits.
    func openTable(named name: String, flags: TableFlags) throws -> Table {
        try environment.openTableForWriter(named: name, flags: flags, in: handle)
    }

    /// Empties a table, keeping it in the file.
    func empty(_ table: Table) throws {
        useOf(table)
        deferredKeys?.discard(table.dbi)
        try lmdbCheck(mdb_drop(handle, table.dbi, 0), "mdb_drop", path: environment.path)
        if table.seal == .values { try bucketWrites?.emptied(table) }
    }
}

extension MDB_val {
    /// A value pointing at `bytes` (LMDB does not write through it except with `MDB_RESERVE`).
    init(bytes: UnsafeRawBufferPointer) {
        self.init(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
    }

    /// The bytes the value points to.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: mv_data, count: mv_size) }
}
