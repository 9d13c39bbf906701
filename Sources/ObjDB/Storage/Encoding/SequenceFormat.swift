import Foundation

/// The encoding of a list or set column, and of a map's keys and values (``MapFormat``); see
/// `Docs/FileFormat.md`.
///
/// ```
/// sequence := flags:UInt8  count:UInt32LE  nulls:ceil(count/8) bytes  ends:count × W bytes  data
/// ```
///
/// It is the row layout with a 32-bit count: element `i` spans `data[ends[i-1] ..< ends[i]]`, so
/// any element is reached in O(1). An empty sequence is 5 bytes.
enum SequenceFormat {
    /// Bytes before the null bitmap: flags and count.
    static let fixedHeaderSize = 5
    /// The encoding of an empty sequence.
    static let empty: [UInt8] = [0, 0, 0, 0, 0]

    /// Header size for `count` elements with offsets of `width` bytes.
    static func headerSize(count: Int, width: Int) -> Int {
        fixedHeaderSize + (count + 7) / 8 + count * width
    }

    /// Appends the encoding of `count` elements, each given by `element`, to `sink`.
    static func append<Sink: ByteSink>(count: Int, element: (Int) -> ColumnRead, to sink: inout Sink) {
        var dataSize = 0
        for i in 0..<count {
            if case .value(let bytes) = element(i) { dataSize += bytes.count }
        }
        let width = RowFormat.offsetWidth(forDataSize: dataSize)
        sink.append(UInt8(width == 1 ? 0 : width == 2 ? 1 : 2))
        sink.appendLittleEndian(UInt64(count), count: 4)
        var byte: UInt8 = 0
        for i in 0..<count {
            if element(i).isNull { byte |= 1 << UInt8(i & 7) }
            if i & 7 == 7 {
                sink.append(byte)
                byte = 0
            }
        }
        if count & 7 != 0 { sink.append(byte) }
        var end = 0
        for i in 0..<count {
            if case .value(let bytes) = element(i) { end += bytes.count }
            sink.appendLittleEndian(UInt64(end), count: width)
        }
        for i in 0..<count {
            if case .value(let bytes) = element(i) { sink.append(bytes: bytes) }
        }
    }
}

/// A read-only view of an encoded sequence, usually pointing into the memory map.
///
/// Like ``RowView`` it checks the header against the length once and every offset on access;
/// bytes that are not a sequence read as an empty one.
struct SequenceView {
    private let base: UnsafeRawPointer?
    private let length: Int
    private let width: Int
    private let endsStart: Int
    private let dataStart: Int
    /// Number of elements.
    let count: Int

    /// Parses the header; bytes that are not a sequence give an empty view.
    init(_ bytes: UnsafeRawBufferPointer) {
        self.init(parsing: bytes)
    }

    private init(parsing bytes: UnsafeRawBufferPointer) {
        var width = 0
        var count = 0
        if let base = bytes.baseAddress, bytes.count >= SequenceFormat.fixedHeaderSize {
            let flags = base.load(as: UInt8.self)
            count = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 1, as: UInt32.self)))
            width = flags == 0 ? 1 : flags == 1 ? 2 : flags == 2 ? 4 : 0
            // Checked in steps so that a huge count cannot overflow.
            if width == 0 || count > bytes.count || SequenceFormat.headerSize(count: count, width: width) > bytes.count {
                width = 0
            }
        }
        guard width > 0, let base = bytes.baseAddress else {
            self.init(base: nil, length: 0, width: 1, count: 0)
            return
        }
        self.init(base: base, length: bytes.count, width: width, count: count)
    }

    private init(base: UnsafeRawPointer?, length: Int, width: Int, count: Int) {
        self.base = base
        self.length = length
        self.width = width
        self.count = count
        endsStart = SequenceFormat.fixedHeaderSize + (count + 7) / 8
        dataStart = SequenceFormat.headerSize(count: count, width: width)
    }

    /// The view of a column read: a null or absent column is an empty sequence.
    init(_ read: ColumnRead) {
        if case .value(let bytes) = read { self.init(parsing: bytes) } else { self.init(base: nil, length: 0, width: 1, count: 0) }
    }

    private func end(_ i: Int, _ base: UnsafeRawPointer) -> Int {
        let p = endsStart + i * width
        switch width {
        case 1: return Int(base.load(fromByteOffset: p, as: UInt8.self))
        case 2: return Int(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: p, as: UInt16.self)))
        default: return Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: p, as: UInt32.self)))
        }
    }

    /// The element count of `bytes` if they are exactly a well-formed sequence: a valid header,
    /// element ends that never decrease, null elements without bytes, and the data ending where
    /// the bytes end. Reads use the lenient ``init(_:)``; verification uses this.
    static func wellFormedCount(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let view = SequenceView(bytes)
        // A header that does not parse leaves the view without bytes.
        guard let base = view.base else { return nil }
        var previous = 0
        for i in 0..<view.count {
            let end = view.end(i, base)
            let isNull = base.load(fromByteOffset: SequenceFormat.fixedHeaderSize + i / 8, as: UInt8.self) & (1 << UInt8(i & 7)) != 0
            guard end >= previous, !isNull || end == previous else { return nil }
            previous = end
        }
        // The data ends with the bytes.
        guard view.dataStart + previous == bytes.count else { return nil }
        return view.count
    }

    /// Element `i`: its bytes, `.null`, or `.absent` if `i` is out of range or the bytes are damaged.
    func element(_ i: Int) -> ColumnRead {
        guard let base, i >= 0, i < count else { return .absent }
        let nulls = base.load(fromByteOffset: SequenceFormat.fixedHeaderSize + i / 8, as: UInt8.self)
        if nulls & (1 << UInt8(i & 7)) != 0 { return .null }
        let start = i == 0 ? 0 : end(i - 1, base)
        let stop = end(i, base)
        guard start <= stop, dataStart + stop <= length else { return .absent }
        return .value(UnsafeRawBufferPointer(start: base + dataStart + start, count: stop - start))
    }
}

/// Bytewise order of two byte strings: negative, zero or positive.
func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let common = min(a.count, b.count)
    if common > 0, let pa = a.baseAddress, let pb = b.baseAddress {
        let order = memcmp(pa, pb, common)
        if order != 0 { return Int(order) }
    }
    return a.count - b.count
}

/// Whether two byte buffers hold the same bytes: lengths first, then, up to 16 bytes, two
/// overlapping word loads from each (short strings, the common case, cost no call), else one
/// `memcmp`.
@inline(__always)
func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    let count = a.count
    guard count == b.count else { return false }
    // Equal lengths: both empty (either may lack an address), or both have one.
    guard let pa = a.baseAddress, let pb = b.baseAddress else { return true }
    switch count {
    case 8...16:
        // The first 8 bytes and the last 8, which overlap below 16.
        return pa.loadUnaligned(as: UInt64.self) == pb.loadUnaligned(as: UInt64.self)
            && pa.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) == pb.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    case 4..<8:
        return pa.loadUnaligned(as: UInt32.self) == pb.loadUnaligned(as: UInt32.self)
            && pa.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self) == pb.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
    case 0..<4:
        for offset in 0..<count where pa.load(fromByteOffset: offset, as: UInt8.self) != pb.load(fromByteOffset: offset, as: UInt8.self) {
            return false
        }
        return true
    default:
        return memcmp(pa, pb, count) == 0
    }
}
