import CLMDB

/// What a cursor of a read snapshot of an encrypted file keeps about row buckets
/// (``Cursor/pageValue(_:_:)``).
struct BucketCursor {
    /// The snapshot's transaction.
    let txn: OpaquePointer
    /// The `buckets` table; `nil` in a file without one.
    let buckets: Table?
    /// The bucket read last (`.max`: none yet).
    var bucket: UInt64 = .max
    /// Its plaintext; `nil` when none is stored.
    var plain: UnsafeRawBufferPointer?
}

/// A cursor's reads and writes of an encrypted file's tables: values opened (from their row
/// bucket or their own seal) and sealed, index keys hashed, waiting index entries written first —
/// ``Txn``'s twins (`Txn+Sealing.swift`).
extension Cursor {
    /// The entry `key`–`value` of an encrypted file's table, its value opened if sealed.
    @inline(never)
    func opened(_ key: MDB_val, _ value: MDB_val) throws -> CursorEntry {
        guard table.seal.sealsValue(under: key.bytes) else { return CursorEntry(key: key.bytes, value: value.bytes) }
        guard let cipher, let decrypted else {
            objdbFatal("A cursor on an encrypted file's table \(table.tag) was read without its transaction's cipher")
        }
        // The environment unretained in the path's autoclosure too (a retain and a release per row).
        let environment = Unmanaged.passUnretained(environment)
        do {
            if value.mv_size == 0, table.seal == .values, key.mv_size == 8 {
                return CursorEntry(key: key.bytes, value: try inBucket(key.bytes.loadUnaligned(as: UInt64.self), cipher: cipher, arena: decrypted))
            }
            let plain = try cipher._withUnsafeGuaranteedRef { cipher in
                try decrypted._withUnsafeGuaranteedRef { arena in
                    try Sealing.open(
                        value.bytes, table: table, key: key.bytes, cipher: cipher, into: arena,
                        path: environment._withUnsafeGuaranteedRef { $0.path })
                }
            }
            return CursorEntry(key: key.bytes, value: plain)
        } catch where table.seal == .values {
            // A value that does not authenticate is damage, as bytes that are not a row are: the
            // walk goes on with no bytes (a damaged row, an entry that does not decode).
            noteFailure(error)
            return CursorEntry(key: key.bytes, value: UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    /// The value a row walk hands out for the entry `key`–`stored` read in place from a leaf page
    /// (``RowWalk``): `stored` itself, or in an encrypted file its value opened (from the row
    /// bucket read last, in a few loads, when it lies there). A value that does not open is noted
    /// in ``failure`` and comes as no bytes, which read as a damaged row.
    @inline(__always)
    func pageValue(_ key: UInt64, _ stored: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard let readBuckets else { return stored }
        if stored.count == 0, readBuckets.pointee.bucket == RowBucket.bucket(of: key), let plain = readBuckets.pointee.plain,
            let value = RowBucket.value(in: plain, slot: RowBucket.slot(of: key))
        {
            return value
        }
        return openedPageValue(key, stored)
    }

    /// ``pageValue(_:_:)`` past the bucket read last.
    @inline(never)
    func openedPageValue(_ key: UInt64, _ stored: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var objectKey = key
        let entry = withUnsafeBytes(of: &objectKey) { keyBytes in
            // try?: `opened` notes what does not open and hands out no bytes; it throws only
            // where a lookup would (a missing cipher).
            try? opened(MDB_val(bytes: keyBytes), MDB_val(bytes: stored))
        }
        return entry?.value ?? UnsafeRawBufferPointer(start: nil, count: 0)
    }

    /// The value under `key`, whose entry holds ``RowBucket/marker``, from its bucket.
    func inBucket(_ key: UInt64, cipher: Unmanaged<StoreCipher>, arena: Unmanaged<DecryptedValues>) throws -> UnsafeRawBufferPointer {
        if let readBuckets {
            let bucket = RowBucket.bucket(of: key)
            if readBuckets.pointee.bucket != bucket {
                let txn = Txn(readBuckets.pointee.txn, environment: environment, isReadOnly: true)
                let buckets = readBuckets.pointee.buckets
                let plain = try cipher._withUnsafeGuaranteedRef { cipher in
                    try arena._withUnsafeGuaranteedRef { arena in
                        try BucketReads.bucket(txn, table: table, bucket: bucket, buckets: buckets, cipher: cipher, arena: arena)
                    }
                }
                readBuckets.pointee.bucket = bucket
                readBuckets.pointee.plain = plain
            }
            return try BucketReads.value(in: readBuckets.pointee.plain, key: key, path: environment.path)
        }
        if let bucketWrites {
            // A write transaction's values: written by it, or in the bucket it opened once.
            guard let value = try bucketWrites._withUnsafeGuaranteedRef({ try $0.value(table, key: key) }) else {
                throw BucketReads.missing(key, path: environment.path)
            }
            return value
        }
        guard let txnHandle = mdb_cursor_txn(handle) else { throw ObjDBError(.storage, "A cursor without its transaction", path: environment.path) }
        let txn = Txn(txnHandle, environment: environment, isReadOnly: checksValues)
        return try cipher._withUnsafeGuaranteedRef { cipher in
            try arena._withUnsafeGuaranteedRef { arena in
                try Sealing.inBucket(txn, table: table, key: key, cipher: cipher, arena: arena, writes: nil)
            }
        }
    }

    /// Writes the entries of the cursor's table that wait (``DeferredKeyPuts``), before the
    /// cursor reads or writes anything else.
    @inline(never)
    func settleKeys() throws {
        guard let deferredKeys else { return }
        try deferredKeys._withUnsafeGuaranteedRef { deferred in
            if deferred.holds(table.dbi) { try deferred.flush(table.dbi) }
        }
    }

    /// Calls `body` with the key LMDB stores for `key`: its keyed hash in a ``TableSeal/keys``
    /// table of an encrypted file, else `key` itself.
    @inline(__always)
    func withStoredKey<R>(_ key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard table.seal == .keys, let cipher else { return try body(key) }
        return try cipher._withUnsafeGuaranteedRef { try $0.withIndexKey(key, tag: table.tag, body) }
    }

    /// Calls `body` with the bytes LMDB stores for `value` under `key`: sealed in a table whose
    /// values an encrypted file seals.
    @inline(__always)
    func withStoredValue<R>(
        _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        guard let cipher, table.seal.sealsValue(under: key) else { return try body(value) }
        return try cipher._withUnsafeGuaranteedRef { try $0.sealed(value, tag: table.tag, key: key) }.withUnsafeBytes(body)
    }

    /// ``put(key:value:flags:mayWait:)`` of a value of a table of values, in a file that keeps
    /// row buckets: into its bucket when short enough, else sealed on its own.
    func putInBucket(key: UInt64, value: UnsafeRawBufferPointer, flags: PutFlags, _ buckets: Unmanaged<BucketWrites>) throws -> Bool {
        var objectKey = key
        return try withUnsafeBytes(of: &objectKey) { keyBytes in
            try buckets._withUnsafeGuaranteedRef { try $0.put(table, key: key, value: value) { try rawPut(key: keyBytes, value: $0, flags: flags) } }
        }
    }
}
