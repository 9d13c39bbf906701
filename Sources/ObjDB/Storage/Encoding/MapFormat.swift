/// The encoding of a map column (see `Docs/FileFormat.md`, "Sequences and maps"), and its one
/// encoder: every writer of a map column writes through ``appendMap(keys:values:to:)``, and
/// every reader reads through ``MapView``.
///
/// ```
/// map := keysLength:UInt32LE  keys:sequence (keysLength bytes)  values:sequence
/// ```
///
/// Keys and values are sequences (``SequenceFormat``). The keys are UTF-8 strings, distinct, in
/// ascending bytewise order; value `i` belongs to key `i`.
enum MapFormat {
    /// Bytes before the keys: their length.
    static let keysLengthSize = 4

    /// The encoding of an empty map: two empty sequences.
    static let empty: [UInt8] = {
        var bytes: [UInt8] = []
        appendMap(keys: [], values: [], to: &bytes)
        return bytes
    }()

    /// Appends the map of `keys` (UTF-8, distinct, ascending bytewise) and `values` (value `i`
    /// belongs to key `i`) to `sink`.
    static func appendMap<Sink: ByteSink>(keys: [StoredElement], values: [StoredElement], to sink: inout Sink) {
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled { internalCheck(keys.count == values.count, "a map of \(keys.count) keys and \(values.count) values") }
        #endif
        // The keys' length comes first, so they are encoded apart.
        var encodedKeys: [UInt8] = []
        keys.appendEncoded(to: &encodedKeys)
        sink.appendLittleEndian(UInt64(encodedKeys.count), count: keysLengthSize)
        encodedKeys.withUnsafeBytes { sink.append(bytes: $0) }
        values.appendEncoded(to: &sink)
    }
}

/// A read-only view of an encoded map, usually pointing into the memory map: the one reader of
/// ``MapFormat``.
///
/// Reads take bytes as they come (``init(_:)``): bytes that are not a map read as an empty one.
/// Verification takes them only if they are exactly a map, and learns what is wrong otherwise
/// (``checked(_:)``). Both split the bytes in one place (``split(_:)``).
struct MapView {
    /// The keys, sorted by their UTF-8 bytes.
    let keys: SequenceView
    /// The values, in the order of the keys.
    let values: SequenceView

    /// Why bytes are not a map (``checked(_:)``).
    enum Damage: Error, Equatable, CustomStringConvertible {
        /// Too few bytes for the keys' length.
        case tooShort(byteCount: Int)
        /// The keys' length runs past the bytes.
        case keysPastEnd(keysLength: Int, byteCount: Int)
        /// The keys are not exactly a sequence.
        case keys
        /// The values are not exactly a sequence.
        case values
        /// Not as many keys as values.
        case countsDiffer(keys: Int, values: Int)
        /// Key `index` is not UTF-8.
        case keyNotAString(index: Int)
        /// Key `index` does not sort after the one before it.
        case keysOutOfOrder(index: Int)

        /// What is wrong, as a verification report says it.
        var description: String {
            switch self {
            case .tooShort(let count):
                "the map's encoding is damaged: its \(count) bytes cannot hold the keys' length"
            case .keysPastEnd(let length, let count):
                "the map's encoding is damaged: its keys' length \(length) runs past its \(count) bytes"
            case .keys:
                "the map's encoding is damaged: its keys are not a sequence"
            case .values:
                "the map's encoding is damaged: its values are not a sequence"
            case .countsDiffer(let keys, let values):
                "the map's encoding is damaged: it has \(keys) keys and \(values) values"
            case .keyNotAString(let index):
                "key \(index) of the map is not a string"
            case .keysOutOfOrder(let index):
                "the map's keys are not in ascending order (key \(index))"
            }
        }
    }

    /// Parses a map; bytes that are not one give an empty map.
    init(_ read: ColumnRead) {
        guard case .value(let bytes) = read, case .success(let parts) = Self.split(bytes) else {
            self.init(keys: SequenceView(.null), values: SequenceView(.null))
            return
        }
        let keys = SequenceView(parts.keys)
        let values = SequenceView(parts.values)
        // Keys and values must pair up; otherwise the map is damaged.
        if keys.count == values.count {
            self.init(keys: keys, values: values)
        } else {
            self.init(keys: SequenceView(.null), values: SequenceView(.null))
        }
    }

    private init(keys: SequenceView, values: SequenceView) {
        self.keys = keys
        self.values = values
    }

    /// The map in `bytes` if they are exactly a map as ``MapFormat`` writes it: both parts exactly
    /// sequences (``SequenceView/wellFormedCount(_:)``) of as many elements, the keys UTF-8 in
    /// strictly ascending bytewise order; otherwise the first thing wrong.
    static func checked(_ bytes: UnsafeRawBufferPointer) -> Result<MapView, Damage> {
        let parts: (keys: UnsafeRawBufferPointer, values: UnsafeRawBufferPointer)
        switch split(bytes) {
        case .failure(let damage): return .failure(damage)
        case .success(let split): parts = split
        }
        guard let keyCount = SequenceView.wellFormedCount(parts.keys) else { return .failure(.keys) }
        guard let valueCount = SequenceView.wellFormedCount(parts.values) else { return .failure(.values) }
        guard keyCount == valueCount else { return .failure(.countsDiffer(keys: keyCount, values: valueCount)) }
        let map = MapView(keys: SequenceView(parts.keys), values: SequenceView(parts.values))
        var previous: UnsafeRawBufferPointer?
        for i in 0..<keyCount {
            guard case .value(let key) = map.keys.element(i), String(validating: key.bindMemory(to: UInt8.self), as: UTF8.self) != nil
            else { return .failure(.keyNotAString(index: i)) }
            if let previous, compareBytes(previous, key) >= 0 { return .failure(.keysOutOfOrder(index: i)) }
            previous = key
        }
        return .success(map)
    }

    /// The keys' and the values' bytes: the one place the keys' length is read.
    @inline(__always)
    private static func split(_ bytes: UnsafeRawBufferPointer) -> Result<(keys: UnsafeRawBufferPointer, values: UnsafeRawBufferPointer), Damage> {
        let prefix = MapFormat.keysLengthSize
        guard bytes.count >= prefix, let base = bytes.baseAddress else { return .failure(.tooShort(byteCount: bytes.count)) }
        let keysLength = Int(UInt32(littleEndian: base.loadUnaligned(as: UInt32.self)))
        guard keysLength <= bytes.count - prefix else {
            return .failure(.keysPastEnd(keysLength: keysLength, byteCount: bytes.count))
        }
        return .success((
            UnsafeRawBufferPointer(start: base + prefix, count: keysLength),
            UnsafeRawBufferPointer(start: base + prefix + keysLength, count: bytes.count - prefix - keysLength)
        ))
    }

    /// Number of entries.
    var count: Int { keys.count }

    /// The position of `key` (UTF-8 bytes) if present, by binary search over the sorted keys.
    func index(of key: UnsafeRawBufferPointer) -> Int? {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            guard case .value(let candidate) = keys.element(middle) else { return nil }
            let order = compareBytes(candidate, key)
            if order == 0 { return middle }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return nil
    }
}
