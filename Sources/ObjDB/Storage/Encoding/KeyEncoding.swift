/// The order-preserving encoding of primary keys and indexed values (see `Docs/FileFormat.md`).
///
/// Comparing two encoded keys bytewise (as LMDB does) orders them like their values:
///
/// | type | bytes after the tag |
/// |---|---|
/// | integers | `Int64` big-endian with the sign bit flipped |
/// | `Bool` | one byte, 0 or 1 |
/// | `String` | UTF-8 bytes, cut at ``maxLength`` |
/// | `Double`, `Float`, `Date` | IEEE-754 bits of the `Double`, big-endian, negatives inverted |
/// | `UUID`, `ObjectId` | their 16 or 12 bytes |
///
/// Every key starts with a tag byte, `0x00` for `nil` and `0x01` for a value, so `nil` sorts
/// first and no key is empty (LMDB rejects empty keys). LMDB keys are at most 511 bytes, so
/// longer keys are cut; a cut key may match several values, and lookups verify the candidates
/// against their rows.
enum KeyEncoding {
    /// Longest encoded key, tag included.
    static let maxLength = 480
    /// Tag of `nil`.
    static let nullTag: UInt8 = 0
    /// Tag of a value.
    static let valueTag: UInt8 = 1

    /// Encodes the key of a column read from a row, whose values are of `kind`.
    /// - Returns: `false` if the column cannot be decoded as `kind` (a damaged row).
    static func append<Sink: ByteSink>(_ read: ColumnRead, kind: ScalarKind, to key: inout Sink) -> Bool {
        guard case .value(let bytes) = read else {
            key.append(nullTag)
            return true
        }
        key.append(valueTag)
        switch kind {
        case .integer:
            guard let v = ColumnCodec.integer(bytes) else { return false }
            appendBigEndian(UInt64(bitPattern: v) ^ (1 << 63), to: &key)
        case .bool:
            guard let v = ColumnCodec.bool(bytes) else { return false }
            key.append(v ? 1 : 0)
        case .double:
            guard let v = ColumnCodec.double(bytes) else { return false }
            appendOrdered(v, to: &key)
        case .float:
            guard let v = ColumnCodec.float(bytes) else { return false }
            appendOrdered(Double(v), to: &key)
        case .bytes:
            key.append(bytes: UnsafeRawBufferPointer(rebasing: bytes.prefix(maxLength - 1)))
        case .fixedBytes:
            key.append(bytes: bytes)
        }
        return true
    }

    /// The key of the integer `v`, as ``append(_:kind:to:)`` writes it: the tag and 8 bytes.
    static func integerKey(_ v: Int64) -> [UInt8] {
        var key = IntegerKey(v)
        return withUnsafeBytes(of: &key) { Array($0) }
    }

    /// The key of an integer as a value, without an array: its 9 bytes are the key.
    struct IntegerKey {
        /// ``KeyEncoding/valueTag``.
        let tag = KeyEncoding.valueTag
        /// The value with its sign bit flipped, big-endian.
        let value: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

        init(_ v: Int64) {
            value = unsafeBitCast((UInt64(bitPattern: v) ^ (1 << 63)).bigEndian, to: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8).self)
        }
    }

    /// Whether a key produced by ``append(_:kind:to:)`` may have been cut, so that equal keys do
    /// not prove equal values.
    static func mayBeTruncated(_ key: some Collection<UInt8>) -> Bool { key.count >= maxLength }

    /// Whether a key of `count` bytes may have been cut.
    static func mayBeTruncated(count: Int) -> Bool { count >= maxLength }

    @inline(__always)
    private static func appendBigEndian<Sink: ByteSink>(_ v: UInt64, to key: inout Sink) {
        withUnsafeBytes(of: v.bigEndian) { key.append(bytes: $0) }
    }

    /// IEEE-754 order: flip the sign bit of positives, invert all bits of negatives. `-0.0` is
    /// keyed as `0.0`, which it equals.
    private static func appendOrdered<Sink: ByteSink>(_ v: Double, to key: inout Sink) {
        let bits = (v == 0 ? 0 : v).bitPattern
        appendBigEndian(bits & (1 << 63) == 0 ? bits ^ (1 << 63) : ~bits, to: &key)
    }
}

/// How the storage layer reads a column for key encoding; the schema maps each property type
/// to one of these.
enum ScalarKind: Sendable {
    /// Compact integer (every integer width).
    case integer
    /// One-byte boolean.
    case bool
    /// 8-byte IEEE double (`Double`, `Date`).
    case double
    /// 4-byte IEEE float.
    case float
    /// Variable bytes compared bytewise (`String`, `Data`, `Decimal`).
    case bytes
    /// Fixed-size bytes compared bytewise (`UUID`, `ObjectId`).
    case fixedBytes
}
