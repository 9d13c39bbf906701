/// One encoded element of a collection held in memory (a write transaction's buffered list, set
/// or map): its column bytes, or null.
///
/// Encodings of up to 8 bytes — integers, doubles, dates, booleans, object keys — are kept inline
/// without allocating; equal encodings compare and hash equal.
enum StoredElement: Hashable {
    /// A null element.
    case null
    /// Up to 8 bytes, little-endian in the integer, and their count.
    case inline(UInt64, count: UInt8)
    /// More than 8 bytes.
    case bytes([UInt8])

    /// The element of a column read (`.absent` reads as null).
    init(_ read: ColumnRead) {
        guard case .value(let bytes) = read else {
            self = .null
            return
        }
        self.init(bytes: bytes)
    }

    /// The element holding `bytes`.
    init(bytes: UnsafeRawBufferPointer) {
        if bytes.count <= 8 {
            var value: UInt64 = 0
            for (i, byte) in bytes.enumerated() { value |= UInt64(byte) << UInt64(8 * i) }
            self = .inline(value, count: UInt8(bytes.count))
        } else {
            self = .bytes(Array(bytes))
        }
    }

    /// The element holding `bytes`.
    init(bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { StoredElement(bytes: $0) }
    }

    /// An object key, stored as its 8 native bytes.
    init(objectKey: UInt64) {
        self = .inline(UInt64(littleEndian: objectKey.littleEndian), count: 8)
    }

    /// The object key held by an 8-byte element, if it is one.
    var objectKey: UInt64? {
        if case .inline(let value, 8) = self { return value }
        return nil
    }

    /// Calls `body` with the element as a column read.
    func withRead<R>(_ body: (ColumnRead) throws -> R) rethrows -> R {
        switch self {
        case .null:
            return try body(.null)
        case .inline(let value, let count):
            return try withUnsafeBytes(of: value.littleEndian) { try body(.value(UnsafeRawBufferPointer(rebasing: $0.prefix(Int(count))))) }
        case .bytes(let bytes):
            return try bytes.withUnsafeBytes { try body(.value($0)) }
        }
    }
}

extension Array where Element == StoredElement {
    /// Appends the sequence encoding of the elements to `sink`.
    func appendEncoded<Sink: ByteSink>(to sink: inout Sink) {
        // Inline elements need stable bytes while the encoder reads them: copy them out once.
        var flat: [UInt8] = []
        var ranges: [Range<Int>?] = []
        ranges.reserveCapacity(count)
        for element in self {
            element.withRead { read in
                if case .value(let bytes) = read {
                    let start = flat.count
                    flat.append(contentsOf: bytes)
                    ranges.append(start..<flat.count)
                } else {
                    ranges.append(nil)
                }
            }
        }
        flat.withUnsafeBytes { raw in
            SequenceFormat.append(count: count, element: { i in
                guard let range = ranges[i] else { return .null }
                return .value(UnsafeRawBufferPointer(rebasing: raw[range]))
            }, to: &sink)
        }
    }

    /// The elements of an encoded sequence.
    init(_ view: SequenceView) {
        self = (0..<view.count).map { StoredElement(view.element($0)) }
    }
}
