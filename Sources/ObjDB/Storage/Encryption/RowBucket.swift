/// The byte format of a row bucket (Docs/FileFormat.md, "Encrypted files"): in an encrypted file,
/// the small values of a table keyed by integers (rows, the change log, the outbox) are sealed
/// sixteen consecutive keys together, one AES-GCM message per bucket, because at these sizes
/// AES-GCM costs per message, not per byte (an open of a 45-byte row costs about 128 ns, of 16
/// such rows about 160 ns).
///
/// - The table keeps one entry per key as before, so its cursors, counts and walks are unchanged;
///   the entry's value is empty (``marker``) when the value lies in the key's bucket.
/// - The bucket lies in the `buckets` table under ``storedKey(tag:bucket:)``: the table's tag and
///   the bucket number, big-endian, 16 bytes. Its value is sealed as any value is
///   (``StoreCipher``), under that key and the table's tag, so a bucket moved to another table or
///   number does not authenticate.
/// - Its plaintext is `mask (u16) ‖ 0 (u16) ‖ end (u32) × count ‖ values`: bit `i` of the mask
///   is set when the key `bucket × 16 + i` has a value in the bucket, the `count` ends (little
///   endian, from the first value's start) give each present value's end, in key order.
///
/// A value longer than ``largestValue`` is sealed on its own, as every value was before format 6,
/// and its key's slot stays empty: rewriting a neighbour then does not re-seal it.
enum RowBucket {
    /// The name of the table of buckets.
    static let tableName = "buckets"
    /// Keys per bucket.
    static let keysPerBucket: UInt64 = 16
    /// The longest value kept in a bucket.
    static let largestValue = 512
    /// The value of a table entry whose value lies in its bucket.
    static var marker: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }
    /// Bytes before the ends: the mask and two bytes kept zero.
    static let headerSize = 4

    /// The bucket of object key `key`.
    @inline(__always)
    static func bucket(of key: UInt64) -> UInt64 { key / keysPerBucket }

    /// The slot of object key `key` in its bucket.
    @inline(__always)
    static func slot(of key: UInt64) -> Int { Int(truncatingIfNeeded: key % keysPerBucket) }

    /// Whether a value of `count` bytes is kept in its bucket.
    @inline(__always)
    static func holds(_ count: Int) -> Bool { count <= largestValue }

    /// The key of bucket `bucket` of the table tagged `tag` in the `buckets` table.
    static func storedKey(tag: UInt64, bucket: UInt64) -> (UInt64, UInt64) {
        (tag.bigEndian, bucket.bigEndian)
    }

    /// Calls `body` with the key of bucket `bucket` of the table tagged `tag`.
    @inline(__always)
    static func withStoredKey<R>(tag: UInt64, bucket: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var key = storedKey(tag: tag, bucket: bucket)
        return try withUnsafeBytes(of: &key, body)
    }

    /// The tag and bucket number of a key of the `buckets` table; `nil` for a key of another size.
    static func parseStoredKey(_ key: UnsafeRawBufferPointer) -> (tag: UInt64, bucket: UInt64)? {
        guard key.count == 16 else { return nil }
        return (UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }

    // MARK: Reading

    /// Whether `plain` is a well-formed bucket: its ends ascend and the last one closes it.
    static func isWellFormed(_ plain: UnsafeRawBufferPointer) -> Bool {
        guard plain.count >= headerSize else { return false }
        let mask = UInt16(littleEndian: plain.loadUnaligned(as: UInt16.self))
        guard plain.loadUnaligned(fromByteOffset: 2, as: UInt16.self) == 0 else { return false }
        let count = mask.nonzeroBitCount
        let dataStart = headerSize + 4 * count
        guard plain.count >= dataStart else { return false }
        var previous: UInt32 = 0
        for i in 0..<count {
            let end = UInt32(littleEndian: plain.loadUnaligned(fromByteOffset: headerSize + 4 * i, as: UInt32.self))
            guard end >= previous else { return false }
            previous = end
        }
        return Int(previous) == plain.count - dataStart
    }

    /// The value of slot `slot` in the well-formed bucket `plain` (``isWellFormed(_:)``), or `nil`
    /// when the slot is empty.
    @inline(__always)
    static func value(in plain: UnsafeRawBufferPointer, slot: Int) -> UnsafeRawBufferPointer? {
        let mask = UInt32(UInt16(littleEndian: plain.loadUnaligned(as: UInt16.self)))
        guard mask & (1 << UInt32(slot)) != 0 else { return nil }
        let index = (mask & ((1 << UInt32(slot)) - 1)).nonzeroBitCount
        let dataStart = headerSize + 4 * mask.nonzeroBitCount
        let start = index == 0 ? 0 : Int(UInt32(littleEndian: plain.loadUnaligned(fromByteOffset: headerSize + 4 * (index - 1), as: UInt32.self)))
        let end = Int(UInt32(littleEndian: plain.loadUnaligned(fromByteOffset: headerSize + 4 * index, as: UInt32.self)))
        return UnsafeRawBufferPointer(rebasing: plain[(dataStart + start)..<(dataStart + end)])
    }

    // MARK: Writing

    /// The size of a bucket holding `values` (one per slot, `nil` where the slot is empty).
    static func size(of values: UnsafeBufferPointer<UnsafeRawBufferPointer?>) -> Int {
        var size = headerSize
        for value in values { if let value { size += 4 + value.count } }
        return size
    }

    /// Writes the bucket of `values` (one per slot, `nil` where the slot is empty) into `target`,
    /// which holds ``size(of:)`` bytes.
    static func write(_ values: UnsafeBufferPointer<UnsafeRawBufferPointer?>, into target: UnsafeMutableRawBufferPointer) {
        guard let out = target.baseAddress, target.count >= headerSize else { return }
        var mask: UInt16 = 0
        var count = 0
        for (slot, value) in values.enumerated() where value != nil {
            mask |= 1 << UInt16(slot)
            count += 1
        }
        target.storeBytes(of: mask.littleEndian, as: UInt16.self)
        target.storeBytes(of: 0, toByteOffset: 2, as: UInt16.self)
        var end = 0
        var index = 0
        let dataStart = headerSize + 4 * count
        for value in values {
            guard let value else { continue }
            if let base = value.baseAddress, value.count > 0 {
                (out + dataStart + end).copyMemory(from: base, byteCount: value.count)
            }
            end += value.count
            target.storeBytes(of: UInt32(end).littleEndian, toByteOffset: headerSize + 4 * index, as: UInt32.self)
            index += 1
        }
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled {
            let written = UnsafeRawBufferPointer(target)
            internalCheck(isWellFormed(written), "a row bucket written is not well formed")
            for (slot, value) in values.enumerated() {
                internalCheck(
                    self.value(in: written, slot: slot).map { Array($0) } == value.map { Array($0) },
                    "a row bucket does not read back slot \(slot) as written")
            }
        }
        #endif
    }
}
