/// The outbox's binary form of values (``OutboxFormat``), for the sync protocol's binary frames:
/// one home for the bytes of a ``SyncValue``, whether kept in the file or sent to the service.
package enum SyncValueBytes {
    /// Appends the bytes of `value`.
    package static func append(_ value: SyncValue, to out: inout [UInt8]) {
        OutboxFormat.append(value, to: &out)
    }

    /// Appends `string` as a varint length and its UTF-8 bytes.
    package static func append(_ string: String, to out: inout [UInt8]) {
        OutboxFormat.appendString(string, to: &out)
    }

    /// Appends `value` as a LEB128 varint.
    package static func append(varint value: UInt64, to out: inout [UInt8]) {
        VarintBytes.append(value, to: &out)
    }
}

/// Reads what ``SyncValueBytes`` writes off bytes that may be malformed: every read is bounds-
/// checked and returns `nil` for bytes that end early or hold an unknown tag.
package struct SyncValueReader {
    private var reader: VarintReader

    /// A reader at the start of `bytes` (which must outlive it).
    package init(bytes: UnsafeRawBufferPointer) {
        reader = VarintReader(bytes: bytes)
    }

    /// Whether every byte was read.
    package var isAtEnd: Bool { reader.isAtEnd }
    /// How many bytes were read.
    package var offset: Int { reader.offset }

    /// The next byte.
    package mutating func byte() -> UInt8? { reader.byte() }
    /// The next varint.
    package mutating func varint() -> UInt64? { reader.varint() }
    /// The next varint, as a count of items that each take at least a byte: never more than
    /// the bytes left.
    package mutating func count() -> Int? { reader.count() }
    /// The next string.
    package mutating func string() -> String? { reader.string() }
    /// The next value.
    package mutating func value() -> SyncValue? { reader.value(depth: 0) }
    /// The next `count` bytes.
    package mutating func take(_ count: Int) -> UnsafeRawBufferPointer? { reader.take(count) }
}
