import CLMDB

/// The row buckets (``RowBucket``) a write transaction of an encrypted file has changed: the
/// values put and removed, by bucket, sealed into the `buckets` table once, at commit
/// (``flushAll()``), however many of a bucket's values the transaction wrote.
///
/// A value put here is marked in its table at once (an empty value, ``RowBucket/marker``), so the
/// table's entries, counts and cursors are those of the transaction; reads of a marked value in
/// the transaction come from here (``value(_:key:)``): the value written, else the bucket as
/// stored, opened once per transaction. One per write transaction of an encrypted file whose
/// format keeps buckets; used on the writer's thread.
final class BucketWrites {
    /// The `buckets` table.
    let buckets: Table
    /// Whether values put go into buckets (fast path ``FastPaths/rowBuckets``); without it they
    /// are sealed on their own, as before format 6, and only the removals are kept.
    let takesValues = FastPaths.enabled.contains(.rowBuckets)
    private let handle: OpaquePointer
    private unowned(unsafe) let environment: Environment
    private unowned(unsafe) let cipher: StoreCipher
    private unowned(unsafe) let arena: DecryptedValues
    /// The buckets read or changed.
    @exclusivity(unchecked) private var touched = BucketRecords()
    /// The record used last, looked at before ``touched``'s index: reads and writes come in key
    /// order.
    @exclusivity(unchecked) private var last: UnsafeMutablePointer<BucketRecord>?
    /// The number of ``last`` in ``touched``.
    @exclusivity(unchecked) private var lastNumber = 0
    /// The values the live snapshots of the version this transaction started from decrypted
    /// (``SharedSnapshotValues``): a stored bucket one of them opened is not opened again. Held,
    /// so that what the transaction reads there stays valid while it lives.
    private let shared: DecryptedValues?
    /// The tables the transaction emptied: their stored buckets are gone, whatever the snapshots
    /// opened.
    @exclusivity(unchecked) private var emptiedTables: [MDB_dbi] = []
    /// Where ``flushAll()`` builds each bucket's plaintext before sealing it, reused.
    @exclusivity(unchecked) private var scratch = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    /// The bucket writes of the write transaction `handle`; the environment, its cipher and the
    /// transaction's values outlive it.
    init(_ handle: OpaquePointer, environment: Environment, buckets: Table, cipher: StoreCipher, arena: DecryptedValues) {
        self.handle = handle
        self.environment = environment
        self.buckets = buckets
        self.cipher = cipher
        self.arena = arena
        // A write transaction's id is the one it will commit as: it reads the version before.
        shared = environment.sharedSnapshotValues.ofLiveSnapshots(of: mdb_txn_id(handle) - 1)
    }

    deinit { scratch.deallocate() }

    private var txn: Txn { Txn(handle, environment: environment, isReadOnly: false) }

    /// ``scratch``, at least `count` bytes long.
    private func scratch(_ count: Int) -> UnsafeMutableRawBufferPointer {
        if scratch.count < count {
            scratch.deallocate()
            scratch = .allocate(byteCount: max(count, 4_096), alignment: 16)
        }
        return UnsafeMutableRawBufferPointer(rebasing: scratch[0..<count])
    }

    /// The number of the record of bucket `bucket` of `table`, made on first use.
    @inline(__always)
    private func touchedBucket(_ table: Table, _ bucket: UInt64) -> Int {
        if let last, last.pointee.bucket == bucket, last.pointee.table.dbi == table.dbi { return lastNumber }
        return touchedBucketSlowly(table, bucket)
    }

    /// ``touchedBucket(_:_:)`` past the record used last: found in, or added to, ``touched``.
    @inline(never)
    private func touchedBucketSlowly(_ table: Table, _ bucket: UInt64) -> Int {
        let number = touched.number(table, bucket)
        last = touched.record(number)
        lastNumber = number
        return number
    }

    /// Puts `value` under `key` of `table` through `put`, the raw put (of a transaction or a
    /// cursor) of the bytes LMDB is to store: into its bucket, the entry marked, when it is short
    /// enough and values go into buckets; else sealed on its own. `false` when `put` refuses
    /// (the key is taken).
    func put(_ table: Table, key: UInt64, value: UnsafeRawBufferPointer, _ put: (UnsafeRawBufferPointer) throws -> Bool) throws -> Bool {
        guard takesValues, RowBucket.holds(value.count) else {
            var objectKey = key
            let sealed = try withUnsafeBytes(of: &objectKey) { try cipher.sealed(value, tag: table.tag, key: $0) }
            guard try sealed.withUnsafeBytes(put) else { return false }
            removed(table, key: key)
            return true
        }
        guard try put(RowBucket.marker) else { return false }
        written(table, key: key, arena.copy(value))
        return true
    }

    /// Records `value` (memory that lives as long as the transaction) as the value under `key`
    /// of `table`, whose entry now holds the marker.
    @inline(__always)
    func written(_ table: Table, key: UInt64, _ value: UnsafeRawBufferPointer) {
        let number = touchedBucket(table, RowBucket.bucket(of: key))
        let slot = RowBucket.slot(of: key)
        touched.values(number)[slot] = value
        let changed = touched.record(number)
        changed.pointee.written |= 1 << UInt16(slot)
        changed.pointee.removed &= ~(1 << UInt16(slot))
    }

    /// Records that the value under `key` of `table` is no longer in its bucket: deleted, or put
    /// on its own.
    func removed(_ table: Table, key: UInt64) {
        let changed = touched.record(touchedBucket(table, RowBucket.bucket(of: key)))
        let bit: UInt16 = 1 << UInt16(RowBucket.slot(of: key))
        changed.pointee.written &= ~bit
        changed.pointee.removed |= bit
    }

    /// The value under `key` of `table`, whose entry holds the marker: written by this
    /// transaction, or in the stored bucket; `nil` when the bucket does not hold it (damage,
    /// which the caller reports).
    func value(_ table: Table, key: UInt64) throws -> UnsafeRawBufferPointer? {
        let number = touchedBucket(table, RowBucket.bucket(of: key))
        let changed = touched.record(number)
        let slot = RowBucket.slot(of: key)
        let bit: UInt16 = 1 << UInt16(slot)
        if changed.pointee.written & bit != 0 { return touched.values(number)[slot] }
        if changed.pointee.removed & bit != 0 { return nil }
        guard let stored = try storedBucket(changed) else { return nil }
        return RowBucket.value(in: stored, slot: slot)
    }

    /// The bucket of `changed` as stored, opened (once per transaction); `nil` when none is
    /// stored.
    private func storedBucket(_ changed: UnsafeMutablePointer<BucketRecord>) throws -> UnsafeRawBufferPointer? {
        if changed.pointee.loaded { return changed.pointee.stored }
        let table = changed.pointee.table
        let bucket = changed.pointee.bucket
        if let shared, !emptiedTables.contains(table.dbi), let known = BucketReads.remembered(table: table, bucket: bucket, in: shared) {
            changed.pointee.stored = known
            changed.pointee.loaded = true
            return known
        }
        let plain = try RowBucket.withStoredKey(tag: table.tag, bucket: bucket) { key -> UnsafeRawBufferPointer? in
            guard let sealed = try txn.rawGet(buckets, key: key) else { return nil }
            do {
                return try BucketReads.open(sealed, table: table, bucket: bucket, key: key, cipher: cipher, arena: arena, path: environment.path)
            } catch let error as ObjDBError where error.code == .corruptFile {
                // A damaged bucket holds nothing this transaction can read: its values read as
                // missing (damage), and a write to the bucket replaces it with what it wrote,
                // so a damaged row can still be deleted or rewritten.
                return nil
            }
        }
        changed.pointee.stored = plain
        changed.pointee.loaded = true
        return plain
    }

    /// Forgets every change to `table` and deletes its stored buckets: the table was emptied.
    func emptied(_ table: Table) throws {
        if !emptiedTables.contains(table.dbi) { emptiedTables.append(table.dbi) }
        // The table's buckets are deleted below: its records forget what the transaction did,
        // and hold no stored bucket.
        for number in 0..<touched.count where touched.record(number).pointee.table.dbi == table.dbi {
            touched.record(number).pointee = BucketRecord(table: table, bucket: touched.record(number).pointee.bucket, loaded: true)
        }
        var cursor: OpaquePointer?
        try lmdbCheck(mdb_cursor_open(handle, buckets.dbi, &cursor), "mdb_cursor_open", path: environment.path)
        defer { mdb_cursor_close(cursor) }
        try RowBucket.withStoredKey(tag: table.tag, bucket: 0) { first in
            while true {
                var k = MDB_val(bytes: first)
                var v = MDB_val()
                let rc = mdb_cursor_get(cursor, &k, &v, MDB_SET_RANGE)
                if rc == MDB_NOTFOUND { return }
                try lmdbCheck(rc, "mdb_cursor_get", path: environment.path)
                guard RowBucket.parseStoredKey(k.bytes)?.tag == table.tag else { return }
                try lmdbCheck(mdb_cursor_del(cursor, 0), "mdb_cursor_del", path: environment.path)
            }
        }
    }

    /// Seals every changed bucket into the `buckets` table, in key order: before the commit.
    func flushAll() throws {
        let records = touched
        var order = (0..<records.count).filter { records.record($0).pointee.isChanged }
        func precedes(_ a: Int, _ b: Int) -> Bool {
            let a = records.record(a).pointee
            let b = records.record(b).pointee
            return (a.table.tag, a.bucket) < (b.table.tag, b.bucket)
        }
        // Usually in order already: keys are written ascending.
        if !zip(order, order.dropFirst()).allSatisfy({ precedes($0, $1) }) { order.sort(by: precedes) }
        last = nil
        touched = BucketRecords()
        guard !order.isEmpty else { return }
        var cursor: OpaquePointer?
        try lmdbCheck(mdb_cursor_open(handle, buckets.dbi, &cursor), "mdb_cursor_open", path: environment.path)
        defer { mdb_cursor_close(cursor) }
        let values = UnsafeMutableBufferPointer<UnsafeRawBufferPointer?>.allocate(capacity: Int(RowBucket.keysPerBucket))
        defer { values.deallocate() }
        for number in order { try flush(records.record(number), written: records.values(number), values: values, cursor: cursor) }
    }

    /// Seals the bucket of `record` (its values written in `written`) into the `buckets` table
    /// through `cursor`, with the stored bucket's other values, or deletes it when none is
    /// left; nothing when the transaction changed none of its stored values. `values` is room
    /// for 16 values.
    private func flush(
        _ record: UnsafeMutablePointer<BucketRecord>, written: UnsafeMutablePointer<UnsafeRawBufferPointer>,
        values: UnsafeMutableBufferPointer<UnsafeRawBufferPointer?>, cursor: OpaquePointer?
    ) throws {
        let all: UInt16 = .max
        let bucket = record.pointee
        let base = bucket.written | bucket.removed == all ? nil : try storedBucket(record)
        var changes = bucket.written != 0
        var any = false
        for slot in 0..<Int(RowBucket.keysPerBucket) {
            let bit: UInt16 = 1 << UInt16(slot)
            if bucket.written & bit != 0 {
                values[slot] = written[slot]
            } else if bucket.removed & bit != 0 {
                values[slot] = nil
                // A slot the stored bucket did not hold changes nothing (a value put on its own).
                if base.map({ RowBucket.value(in: $0, slot: slot) != nil }) ?? (bucket.written | bucket.removed == all) { changes = true }
            } else {
                values[slot] = base.flatMap { RowBucket.value(in: $0, slot: slot) }
            }
            if values[slot] != nil { any = true }
        }
        guard changes else { return }
        try RowBucket.withStoredKey(tag: bucket.table.tag, bucket: bucket.bucket) { key in
            var k = MDB_val(bytes: key)
            guard any else {
                var v = MDB_val()
                let rc = mdb_cursor_get(cursor, &k, &v, MDB_SET_KEY)
                if rc == MDB_NOTFOUND { return }
                try lmdbCheck(rc, "mdb_cursor_get", path: environment.path)
                try lmdbCheck(mdb_cursor_del(cursor, 0), "mdb_cursor_del", path: environment.path)
                return
            }
            let size = RowBucket.size(of: UnsafeBufferPointer(values))
            let plain = scratch(size)
            RowBucket.write(UnsafeBufferPointer(values), into: plain)
            var v = MDB_val(mv_size: StoreCipher.sealedSize(size), mv_data: nil)
            try lmdbCheck(mdb_cursor_put(cursor, &k, &v, PutFlags.reserve.rawValue), "mdb_cursor_put", path: environment.path)
            #if OBJDB_INTERNAL_CHECKS
            // Tests only: a wrong byte in the bucket for the check below to catch.
            if FastPaths.broken.contains(.rowBuckets), size > RowBucket.headerSize, let last = plain.last { plain[size - 1] = last ^ 0xFF }
            #endif
            let sealed = UnsafeMutableRawBufferPointer(start: v.mv_data, count: v.mv_size)
            try cipher.seal(UnsafeRawBufferPointer(plain), tag: bucket.table.tag, key: key, into: sealed)
            #if OBJDB_INTERNAL_CHECKS
            if internalChecksEnabled { checkSealed(UnsafeRawBufferPointer(sealed), key: key, table: bucket.table, values: UnsafeBufferPointer(values)) }
            #endif
        }
    }

    #if OBJDB_INTERNAL_CHECKS
    /// The bucket's slow twin: each value as it would read sealed on its own (its plaintext),
    /// against the sealed bucket opened again.
    private func checkSealed(_ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, table: Table, values: UnsafeBufferPointer<UnsafeRawBufferPointer?>) {
        let opened = cipher.open(sealed, tag: table.tag, key: key) { plain in
            RowBucket.isWellFormed(plain) && values.indices.allSatisfy { slot in
                RowBucket.value(in: plain, slot: slot).map { Array($0) } == values[slot].map { Array($0) }
            }
        }
        internalCheck(opened == true, "rowBuckets: a sealed bucket does not open to the values written")
    }
    #endif
}

/// Opening the buckets that hold values of encrypted tables, for reads and write transactions.
enum BucketReads {
    /// `sealed`, the bucket `bucket` of `table` stored under `key`, opened into `arena`;
    /// ``ObjDBError/Code/corruptFile`` when it does not authenticate or is not well formed.
    static func open(
        _ sealed: UnsafeRawBufferPointer, table: Table, bucket: UInt64, key: UnsafeRawBufferPointer, cipher: StoreCipher,
        arena: DecryptedValues, path: String
    ) throws -> UnsafeRawBufferPointer {
        guard sealed.count >= StoreCipher.overhead else { throw damaged(bucket, path: path) }
        let plain = arena.allocate(sealed.count - StoreCipher.overhead)
        guard cipher.open(sealed, tag: table.tag, key: key, into: plain), RowBucket.isWellFormed(UnsafeRawBufferPointer(plain)) else {
            throw damaged(bucket, path: path)
        }
        return UnsafeRawBufferPointer(plain)
    }

    /// The bucket `bucket` of `table`, opened, in a read snapshot (whose `arena` remembers the
    /// buckets it opened) or a write transaction of a file without ``BucketWrites``; `nil` when
    /// none is stored. ``ObjDBError/Code/corruptFile`` when it is damaged, or the file has no
    /// buckets table.
    static func bucket(
        _ txn: Txn, table: Table, bucket: UInt64, buckets: Table?, cipher: StoreCipher, arena: DecryptedValues
    ) throws -> UnsafeRawBufferPointer? {
        if let known = remembered(table: table, bucket: bucket, in: arena) { return known }
        guard let buckets else {
            throw ObjDBError(
                .corruptFile, "A value of object keys \(bucket &* RowBucket.keysPerBucket) and on lies in a bucket, but the file has no buckets table; run verify() for a full report",
                path: txn.environment.path)
        }
        return try RowBucket.withStoredKey(tag: table.tag, bucket: bucket) { stored in
            guard let sealed = try txn.rawGet(buckets, key: stored) else { return nil }
            let opened = try open(sealed, table: table, bucket: bucket, key: stored, cipher: cipher, arena: arena, path: txn.environment.path)
            var bucketNumber = bucket
            return withUnsafeBytes(of: &bucketNumber) { arena.remember(opened, table: rememberedTable(table), key: $0) }
        }
    }

    /// The bucket `bucket` of `table` as a snapshot's `values` opened it before, if they hold it.
    static func remembered(table: Table, bucket: UInt64, in values: DecryptedValues) -> UnsafeRawBufferPointer? {
        var bucketNumber = bucket
        return withUnsafeBytes(of: &bucketNumber) { values.opened(table: rememberedTable(table), key: $0) }
    }

    /// The table a snapshot's values remember the buckets of `table` under: its handle with the
    /// top bit set, as buckets are not object keys.
    private static func rememberedTable(_ table: Table) -> UInt32 { table.dbi | 0x8000_0000 }

    /// The value under `key` in the bucket `plain` (`nil`: none stored), or the error of a value
    /// missing from its bucket.
    @inline(__always)
    static func value(in plain: UnsafeRawBufferPointer?, key: UInt64, path: @autoclosure () -> String) throws -> UnsafeRawBufferPointer {
        guard let plain, let value = RowBucket.value(in: plain, slot: RowBucket.slot(of: key)) else { throw missing(key, path: path()) }
        return value
    }

    /// The error of a value missing from its bucket.
    static func missing(_ key: UInt64, path: String) -> ObjDBError {
        ObjDBError(
            .corruptFile, "The value under object key \(key) is missing from its bucket: the file was damaged or altered; run verify() for a full report",
            key: "\(key)", path: path)
    }

    static func damaged(_ bucket: UInt64, path: String) -> ObjDBError {
        ObjDBError(
            .corruptFile,
            "The encrypted bucket of object keys \(bucket &* RowBucket.keysPerBucket)–\(bucket &* RowBucket.keysPerBucket &+ RowBucket.keysPerBucket &- 1) does not authenticate: it was damaged or altered; run verify() for a full report",
            path: path)
    }
}
