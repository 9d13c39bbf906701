extension FileWalk {
    /// Walks `table` as ``walk(_:readingLeaves:visit:)`` does, handing `visit` each value opened
    /// where the file seals it (``cipher``; see ``TableSeal``), or taken from its row bucket
    /// (``RowBucket``; ``readBuckets(_:)`` must have read them); a value that does not
    /// authenticate, or is missing from its bucket, goes to `failed` with its key instead.
    func walkOpened(
        _ table: NamedTree, visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void,
        failed: (UnsafeRawBufferPointer) -> Void
    ) {
        guard let cipher else {
            walk(table, visit: visit)
            return
        }
        let seal = TableSeal(flags: TableFlags(rawValue: UInt32(table.record.flags)), encrypted: true)
        let tag = StoreCipher.tag(ofTable: table.name)
        if seal == .values { buckets?.walked.insert(tag) }
        walk(table) { key, value in
            guard seal.sealsValue(under: key) else { return visit(key, value) }
            if value.count == 0, seal == .values, key.count == 8 {
                guard let buckets, buckets.value(tag: tag, key: key.loadUnaligned(as: UInt64.self), cipher: cipher, { visit(key, $0) }) else {
                    return failed(key)
                }
                return
            }
            if cipher.open(value, tag: tag, key: key, { visit(key, $0) }) == nil { failed(key) }
        }
    }

    /// Reads the `buckets` table of an encrypted file, for ``walkOpened(_:visit:failed:)``.
    func readBuckets(_ tree: NamedTree) {
        let buckets = StoredBuckets()
        walk(tree) { key, value in
            guard let (tag, bucket) = RowBucket.parseStoredKey(key) else {
                report.add(VerificationProblem(.table, "The buckets table has a key of \(key.count) bytes", table: tree.name))
                return
            }
            buckets.sealed[tag, default: [:]][bucket] = Array(value)
        }
        self.buckets = buckets
    }

    /// Reports the values of row buckets no entry of their table refers to, after every table
    /// was walked: values a deleted entry left behind, or buckets of no table.
    func reportUnreferencedBuckets(tableName: (UInt64) -> String?) {
        guard let buckets, let cipher else { return }
        for (tag, byBucket) in buckets.sealed.sorted(by: { $0.key < $1.key }) {
            guard let name = tableName(tag) else {
                report.add(VerificationProblem(.table, "The buckets table holds \(byBucket.count) bucket(s) of no table of the file", table: RowBucket.tableName))
                continue
            }
            // A table not read value by value (a removed class's, or any when the schema does
            // not read) has its own report; its buckets are not counted against it.
            guard buckets.walked.contains(tag) else { continue }
            for (bucket, sealed) in byBucket.sorted(by: { $0.key < $1.key }) {
                let used = buckets.referenced[tag]?[bucket] ?? 0
                let mask = RowBucket.withStoredKey(tag: tag, bucket: bucket) { key in
                    sealed.withUnsafeBytes { cipher.open($0, tag: tag, key: key) { RowBucket.isWellFormed($0) ? $0.loadUnaligned(as: UInt16.self) : nil } }
                }
                guard let mask, let mask else {
                    report.add(VerificationProblem(
                        .table, "The bucket \(bucket) of '\(name)' does not authenticate: it was damaged or altered", table: RowBucket.tableName))
                    continue
                }
                let unused = UInt16(littleEndian: mask) & ~used
                if unused != 0 {
                    report.add(VerificationProblem(
                        .table, "The bucket \(bucket) of '\(name)' holds \(unused.nonzeroBitCount) value(s) no entry of the table refers to",
                        table: RowBucket.tableName))
                }
            }
        }
    }

    /// The key an index or primary-key table named `table` stores for the encoded key `key`:
    /// its keyed hash in an encrypted file.
    func storedIndexKey(_ key: [UInt8], table: String) -> [UInt8] {
        guard let cipher else { return key }
        return key.withUnsafeBytes { cipher.indexKey($0, tag: StoreCipher.tag(ofTable: table)) }
    }
}

/// The row buckets of an encrypted file as a verification reads them: sealed, by table tag and
/// bucket number, opened as entries refer to them.
final class StoredBuckets {
    /// The sealed buckets.
    var sealed: [UInt64: [UInt64: [UInt8]]] = [:]
    /// The slots entries referred to, by table tag and bucket number.
    var referenced: [UInt64: [UInt64: UInt16]] = [:]
    /// The tags of the tables whose values were read with their buckets.
    var walked: Set<UInt64> = []
    /// The bucket opened last, by tag and number, and its plaintext (`nil`: it did not open).
    private var last: (tag: UInt64, bucket: UInt64, plain: [UInt8]?)?

    /// Calls `visit` with the value under `key` of the table tagged `tag` in its bucket; `false`
    /// when the bucket is missing, does not authenticate or does not hold it.
    func value(tag: UInt64, key: UInt64, cipher: StoreCipher, _ visit: (UnsafeRawBufferPointer) -> Void) -> Bool {
        let bucket = RowBucket.bucket(of: key)
        let slot = RowBucket.slot(of: key)
        referenced[tag, default: [:]][bucket, default: 0] |= 1 << UInt16(slot)
        if last?.tag != tag || last?.bucket != bucket {
            let plain: [UInt8]? = sealed[tag]?[bucket].flatMap { stored in
                RowBucket.withStoredKey(tag: tag, bucket: bucket) { k in
                    stored.withUnsafeBytes { s in cipher.open(s, tag: tag, key: k) { RowBucket.isWellFormed($0) ? Array($0) : nil } } ?? nil
                }
            }
            last = (tag, bucket, plain)
        }
        guard let plain = last?.plain else { return false }
        return plain.withUnsafeBytes { bytes in
            guard let value = RowBucket.value(in: bytes, slot: slot) else { return false }
            visit(value)
            return true
        }
    }
}
