import CObjDBChecksum

/// The checksum at the end of a row (file format 3; see `Docs/FileFormat.md`): CRC-32C of the
/// object key's 8 little-endian bytes followed by the row's bytes before the checksum.
///
/// A row whose flags byte has ``flag`` set ends with the 4-byte checksum; rows written by
/// format 1 and 2 have no checksum and are read as before. The key is part of the checksum, so a
/// row found under another key (a changed key byte) fails it like a changed value does.
/// Computing it costs a few nanoseconds per row with the CPU's CRC instructions.
enum RowChecksum {
    /// The row flag of a row that ends with a checksum.
    static let flag: UInt8 = 0x04
    /// Size of the checksum.
    static let size = 4

    /// The checksum of the row of `key` whose bytes before the checksum are `body`. (ObjDB runs
    /// on little-endian machines only, where the key's bytes in memory are its little-endian bytes.)
    @inline(__always)
    static func compute(key: UInt64, body: UnsafeRawBufferPointer) -> UInt32 {
        objdb_crc32c_row(key, body.baseAddress, body.count)
    }

    /// Stores the checksum of a row that has the flag (a row without it is left as it is).
    @inline(__always)
    static func seal(_ row: UnsafeMutableRawBufferPointer, key: UInt64) {
        guard row.count >= RowFormat.fixedHeaderSize + size, let base = row.baseAddress,
            base.load(as: UInt8.self) & flag != 0
        else { return }
        let end = row.count - size
        let crc = compute(key: key, body: UnsafeRawBufferPointer(start: base, count: end))
        base.storeBytes(of: crc.littleEndian, toByteOffset: end, as: UInt32.self)
    }

    /// Whether a row's checksum matches its bytes and key; `nil` for a row without a checksum.
    @inline(__always)
    static func matches(_ row: RowView, key: UInt64) -> Bool? {
        guard row.hasChecksum else { return nil }
        let body = UnsafeRawBufferPointer(start: row.base, count: row.length - size)
        let stored = UInt32(littleEndian: row.base.loadUnaligned(fromByteOffset: row.length - size, as: UInt32.self))
        return stored == compute(key: key, body: body)
    }

    /// Whether a row may be read: it has no checksum, or its checksum matches its bytes and key.
    /// The per-row test of reads (``matches(_:key:)`` without the optional).
    @inline(__always)
    static func admits(_ row: RowView, key: UInt64) -> Bool {
        guard row.hasChecksum else { return true }
        // With a checksum, the row's column data ends where the checksum starts.
        let end = Int(row.storedLength)
        let stored = UInt32(littleEndian: row.base.loadUnaligned(fromByteOffset: end, as: UInt32.self))
        return stored == objdb_crc32c_row(key, row.base, end)
    }

    /// Whether the CPU's CRC instructions compute the checksums (else a table does).
    static var usesHardware: Bool { objdb_crc32c_is_hardware() != 0 }
}

/// CRC-32C over byte buffers (the function ``RowChecksum`` uses), for other checksummed records.
enum Checksum {
    /// CRC-32C of `bytes`, continuing from `crc` (0 to start).
    static func crc32c(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        objdb_crc32c(crc, bytes.baseAddress, bytes.count)
    }
}
