/// Bytes with LEB128 varints (7 bits a byte, least significant first): the one writer and
/// reader of them, for the change log's and the outbox's entries (each format adds its own
/// reads of its parts in an extension).
enum VarintBytes {
    /// Appends `value` as a varint.
    static func append(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }
}

/// Reads bytes that may be damaged, every step bounds-checked: `nil` for bytes that end early
/// or a varint that overflows.
struct VarintReader {
    /// The bytes read.
    let bytes: UnsafeRawBufferPointer
    /// Where the next read starts.
    var offset = 0

    /// A reader at the start of `bytes`.
    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Whether every byte was read.
    var isAtEnd: Bool { offset == bytes.count }

    /// The next byte.
    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// The next varint; `nil` past 64 bits.
    mutating func varint() -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while let byte = byte() {
            let bits = UInt64(byte & 0x7F)
            guard shift < 64, shift < 63 || bits <= 1 else { return nil }
            value |= bits << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

    /// The next `count` bytes.
    mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, count <= bytes.count - offset else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }
}
