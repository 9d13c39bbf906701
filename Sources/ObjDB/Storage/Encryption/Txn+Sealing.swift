/// The reads and writes of an encrypted file's tables: the one place values are sealed and
/// opened, and index keys hashed, on their way into and out of LMDB (with ``Cursor``'s twins).
extension Txn {
    /// The cipher of the file; only called for tables with a ``TableSeal``, which only an
    /// encrypted file's environment gives.
    var cipher: StoreCipher {
        guard let cipher = environment.cipher else { objdbFatal("a sealed table in a file opened without a cipher") }
        return cipher
    }

    /// The key LMDB stores for `key` in `table`: its keyed hash in a ``TableSeal/keys`` table.
    func storedKey(_ table: Table, _ key: UnsafeRawBufferPointer) -> [UInt8] {
        table.seal == .keys ? cipher.indexKey(key, tag: table.tag) : Array(key)
    }

    /// Writes the entries of `table` that wait in ``DeferredKeyPuts``, before anything else uses
    /// the table. Inlined: every read and write of a table in a write transaction asks; only
    /// keyed tables ever hold waiting entries, so a row's read looks no further than its seal.
    @inline(__always)
    func settleKeys(_ table: Table) throws {
        guard table.seal == .keys, let deferredKeys, deferredKeys.holds(table.dbi) else { return }
        try deferredKeys.flush(table.dbi)
    }

    /// Writes the entries of every table that wait in ``DeferredKeyPuts``: before figures are
    /// read from LMDB's own records (`mdb_stat`) of several tables.
    func settleAllKeys() throws {
        try deferredKeys?.flushAll()
    }

    /// ``get(_:key:)`` of a table with a seal.
    @inline(never)
    func sealedGet(_ table: Table, key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        if table.seal == .keys {
            return try cipher.withIndexKey(key, tag: table.tag) { try rawGet(table, key: $0) }
        }
        if table.seal == .values, key.count == 8, let decrypted,
            let inBucket = try valueFromBucket(table, key: key.loadUnaligned(as: UInt64.self), arena: decrypted)
        {
            return inBucket
        }
        guard let stored = try rawGet(table, key: key) else { return nil }
        guard table.seal.sealsValue(under: key) else { return stored }
        guard let decrypted else { objdbFatal("a transaction of an encrypted file without its decrypted values") }
        if stored.count == 0, table.seal == .values, key.count == 8 {
            return try Sealing.inBucket(self, table: table, key: key.loadUnaligned(as: UInt64.self), cipher: cipher, arena: decrypted, writes: bucketWrites)
        }
        return try Sealing.open(stored, table: table, key: key, cipher: cipher, into: decrypted, path: environment.path)
    }

    /// The value under `key` of `table` (a ``TableSeal/values`` table) read from its row bucket
    /// without looking at its entry first; `nil` when its bucket does not hold it (a value sealed
    /// on its own, no value, or a file without buckets), and the entry then says which.
    ///
    /// A slot holds a value exactly when the key's entry holds the marker: every write keeps the
    /// two together in one transaction (a write transaction of a file with buckets always has its
    /// ``BucketWrites``). So a lookup pays one search of a B-tree (the bucket's),
    /// as a lookup of a value sealed on its own does, and a bucket opened before is not searched
    /// for at all.
    @inline(__always)
    private func valueFromBucket(_ table: Table, key: UInt64, arena: DecryptedValues) throws -> UnsafeRawBufferPointer? {
        if let bucketWrites {
            useOf(table)
            return try bucketWrites.value(table, key: key)
        }
        guard isReadOnly, let rowBuckets else { return nil }
        do {
            let plain = try BucketReads.bucket(self, table: table, bucket: RowBucket.bucket(of: key), buckets: rowBuckets, cipher: cipher, arena: arena)
            return plain.flatMap { RowBucket.value(in: $0, slot: RowBucket.slot(of: key)) }
        } catch let error as ObjDBError where error.code == .corruptFile {
            // A damaged bucket: the entry says whether the value lay in it (the damage, then
            // reported) or is sealed on its own, and still readable.
            return nil
        }
    }

    /// ``put(_:key:value:flags:)`` of a table with a seal.
    @inline(never)
    func sealedPut(_ table: Table, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: PutFlags) throws -> Bool {
        if table.seal == .keys {
            return try cipher.withIndexKey(key, tag: table.tag) { stored in
                if let deferredKeys, DeferredKeyPuts.accepts(table, storedKey: stored, value: value, flags: flags) {
                    return try deferredKeys.put(
                        table, storedKey: stored, objectKey: value.loadUnaligned(as: UInt64.self), noOverwrite: flags.contains(.noOverwrite))
                }
                return try rawPut(table, key: stored, value: value, flags: flags)
            }
        }
        guard table.seal.sealsValue(under: key) else { return try rawPut(table, key: key, value: value, flags: flags) }
        if table.seal == .values, key.count == 8, let bucketWrites {
            return try bucketWrites.put(table, key: key.loadUnaligned(as: UInt64.self), value: value) {
                try rawPut(table, key: key, value: $0, flags: flags)
            }
        }
        let sealed = try cipher.sealed(value, tag: table.tag, key: key)
        return try sealed.withUnsafeBytes { try rawPut(table, key: key, value: $0, flags: flags) }
    }
}

/// Opening sealed values, for ``Txn`` and ``Cursor``.
enum Sealing {
    /// The value under `key` of `table` (a ``TableSeal/values`` table), whose entry holds
    /// ``RowBucket/marker``: from `writes` in a write transaction that keeps buckets, else from
    /// the stored bucket. ``ObjDBError/Code/corruptFile`` when the bucket does not hold it.
    @inline(never)
    static func inBucket(
        _ txn: Txn, table: Table, key: UInt64, cipher: StoreCipher, arena: DecryptedValues, writes: BucketWrites?
    ) throws -> UnsafeRawBufferPointer {
        guard let writes else {
            let plain = try BucketReads.bucket(
                txn, table: table, bucket: RowBucket.bucket(of: key), buckets: txn.rowBuckets ?? txn.environment.rowBuckets, cipher: cipher, arena: arena)
            return try BucketReads.value(in: plain, key: key, path: txn.environment.path)
        }
        guard let value = try writes.value(table, key: key) else { throw BucketReads.missing(key, path: txn.environment.path) }
        return value
    }

    /// `stored` opened into `arena`; a value that does not authenticate is damage
    /// (``ObjDBError/Code/corruptFile``), never read as another value.
    @inline(__always)
    static func open(
        _ stored: UnsafeRawBufferPointer, table: Table, key: UnsafeRawBufferPointer, cipher: StoreCipher,
        into arena: DecryptedValues, path: @autoclosure () -> String
    ) throws -> UnsafeRawBufferPointer {
        guard stored.count >= StoreCipher.overhead else { throw damaged(key: key, path: path()) }
        if key.count == 8 {
            let opened = arena.value(table: table.dbi, objectKey: key.loadUnaligned(as: UInt64.self), count: stored.count - StoreCipher.overhead) {
                cipher.open(stored, tag: table.tag, key: key, into: $0)
            }
            guard let opened else { throw damaged(key: key, path: path()) }
            return opened
        }
        if let known = arena.opened(table: table.dbi, key: key) { return known }
        let plain = arena.allocate(stored.count - StoreCipher.overhead)
        guard cipher.open(stored, tag: table.tag, key: key, into: plain) else { throw damaged(key: key, path: path()) }
        return arena.remember(UnsafeRawBufferPointer(plain), table: table.dbi, key: key)
    }

    /// The error of a value that does not authenticate under `key`.
    static func damaged(key: UnsafeRawBufferPointer, path: String) -> ObjDBError {
        let name = key.count == 8 ? "object key \(key.loadUnaligned(as: UInt64.self))" : "record '\(String(decoding: key, as: UTF8.self))'"
        return ObjDBError(
            .corruptFile,
            "The encrypted value under \(name) does not authenticate: it was damaged or altered; run verify() for a full report",
            key: key.count == 8 ? "\(key.loadUnaligned(as: UInt64.self))" : nil, path: path)
    }
}

/// Storing a row: written in place in an unencrypted file, sealed in an encrypted one.
enum RowStore {
    /// Stores a row of `count` bytes under `key`, written by `fill` and given its checksum;
    /// `reserve` reserves the stored size in LMDB (or returns `nil` when the key is taken).
    /// Returns the row's plaintext bytes.
    @inline(__always)
    static func store(
        key: UInt64, count: Int, table: Table, cipher: Unmanaged<StoreCipher>?, decrypted: Unmanaged<DecryptedValues>?,
        buckets: Unmanaged<BucketWrites>?,
        _ fill: (UnsafeMutableRawBufferPointer) -> Void, reserve: (Int) throws -> UnsafeMutableRawBufferPointer?
    ) throws -> UnsafeMutableRawBufferPointer? {
        guard table.seal == .values else {
            guard let space = try reserve(count) else { return nil }
            fill(space)
            RowChecksum.seal(space, key: key)
            return space
        }
        guard let cipher, let decrypted else {
            objdbFatal("A row of an encrypted file's table \(table.tag) was to be stored without its transaction's cipher")
        }
        let plain = decrypted._withUnsafeGuaranteedRef { $0.allocate(count) }
        fill(plain)
        RowChecksum.seal(plain, key: key)
        if let buckets, RowBucket.holds(count), buckets._withUnsafeGuaranteedRef({ $0.takesValues }) {
            guard try reserve(0) != nil else { return nil }
            buckets._withUnsafeGuaranteedRef { $0.written(table, key: key, UnsafeRawBufferPointer(plain)) }
            return plain
        }
        guard let space = try reserve(StoreCipher.sealedSize(count)) else { return nil }
        var objectKey = key
        try withUnsafeBytes(of: &objectKey) { key in
            try cipher._withUnsafeGuaranteedRef { try $0.seal(UnsafeRawBufferPointer(plain), tag: table.tag, key: key, into: space) }
        }
        buckets?._withUnsafeGuaranteedRef { $0.removed(table, key: key) }
        return plain
    }

    /// ``store(key:count:table:cipher:decrypted:_:reserve:)`` in `txn`.
    @inline(__always)
    static func store(
        key: UInt64, count: Int, table: Table, txn: Txn,
        _ fill: (UnsafeMutableRawBufferPointer) -> Void, reserve: (Int) throws -> UnsafeMutableRawBufferPointer?
    ) throws -> UnsafeMutableRawBufferPointer? {
        try store(
            key: key, count: count, table: table, cipher: txn.environment.cipher.map { Unmanaged.passUnretained($0) },
            decrypted: txn.decrypted.map { Unmanaged.passUnretained($0) }, buckets: txn.bucketWrites.map { Unmanaged.passUnretained($0) },
            fill, reserve: reserve)
    }
}
