/// Encodings of single column values inside a row (see `Docs/FileFormat.md`).
///
/// Integers of every width are stored as the shortest little-endian two's-complement form of
/// 0, 1, 2, 4 or 8 bytes (the row's offset table records the length). Floating-point values are
/// their IEEE-754 bits, little-endian. Every decoder returns `nil` for bytes of the wrong size.
@usableFromInline
enum ColumnCodec {
    /// Appends `value` in the compact integer form.
    @inline(__always)
    static func appendInteger<Sink: ByteSink>(_ value: Int64, to bytes: inout Sink) {
        let count: Int
        if value == 0 {
            return
        } else if Int64(Int8(truncatingIfNeeded: value)) == value {
            count = 1
        } else if Int64(Int16(truncatingIfNeeded: value)) == value {
            count = 2
        } else if Int64(Int32(truncatingIfNeeded: value)) == value {
            count = 4
        } else {
            count = 8
        }
        bytes.appendLittleEndian(UInt64(bitPattern: value), count: count)
    }

    /// Reads a compact integer.
    @inlinable @inline(__always)
    static func integer(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        switch bytes.count {
        case 0: return 0
        case 1: return Int64(Int8(bitPattern: bytes.load(as: UInt8.self)))
        case 2: return Int64(Int16(littleEndian: bytes.loadUnaligned(as: Int16.self)))
        case 4: return Int64(Int32(littleEndian: bytes.loadUnaligned(as: Int32.self)))
        case 8: return Int64(littleEndian: bytes.loadUnaligned(as: Int64.self))
        default: return nil
        }
    }

    /// Appends the 8 little-endian bytes of a `Double`.
    @inline(__always)
    static func appendDouble<Sink: ByteSink>(_ value: Double, to bytes: inout Sink) {
        bytes.appendLittleEndian(value.bitPattern, count: 8)
    }

    /// Reads a `Double`.
    @inlinable @inline(__always)
    static func double(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard bytes.count == 8 else { return nil }
        return Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)))
    }

    /// Appends the 4 little-endian bytes of a `Float`.
    @inline(__always)
    static func appendFloat<Sink: ByteSink>(_ value: Float, to bytes: inout Sink) {
        bytes.appendLittleEndian(UInt64(value.bitPattern), count: 4)
    }

    /// Reads a `Float`.
    @inlinable @inline(__always)
    static func float(_ bytes: UnsafeRawBufferPointer) -> Float? {
        guard bytes.count == 4 else { return nil }
        return Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
    }

    /// Reads a one-byte `Bool`.
    @inlinable @inline(__always)
    static func bool(_ bytes: UnsafeRawBufferPointer) -> Bool? {
        guard bytes.count == 1 else { return nil }
        return bytes.load(as: UInt8.self) != 0
    }
}
