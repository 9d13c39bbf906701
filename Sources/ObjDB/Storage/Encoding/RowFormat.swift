/// The binary row format (see `Docs/FileFormat.md`).
///
/// ```
/// row    := flags:UInt8  count:UInt16LE  nulls:ceil(count/8) bytes  ends:count × W bytes  data  [crc:UInt32LE]
/// flags  := bits 0–1: W code (0 → 1 byte, 1 → 2 bytes, 2 → 4 bytes); bit 2: the row ends with
///           a checksum (``RowChecksum``, format 3); bits 3–7 zero
/// ends   := little-endian end offset of each column's bytes, relative to the start of data
/// ```
///
/// Column `i` spans `data[ends[i-1] ..< ends[i]]` (with `ends[-1] == 0`), so any column is
/// reached in O(1) without decoding the others. A set bit `i` in `nulls` marks column `i` null.
@usableFromInline
enum RowFormat {
    /// Bytes before the null bitmap: flags and column count.
    @usableFromInline static let fixedHeaderSize = 3
    /// Largest number of columns a row can hold.
    static let maxColumns = Int(UInt16.max)

    /// The smallest offset width (1, 2 or 4 bytes) that can express `dataSize`.
    static func offsetWidth(forDataSize dataSize: Int) -> Int {
        dataSize <= Int(UInt8.max) ? 1 : dataSize <= Int(UInt16.max) ? 2 : 4
    }

    /// Header size for `count` columns with offsets of `width` bytes.
    static func headerSize(columns count: Int, width: Int) -> Int {
        fixedHeaderSize + (count + 7) / 8 + count * width
    }
}

/// What a row holds for one column.
@usableFromInline
enum ColumnRead {
    /// The column's bytes (possibly empty).
    case value(UnsafeRawBufferPointer)
    /// The column is null.
    case null
    /// The row has no such column (written before the column existed) or is malformed there.
    case absent
}

/// Something that answers the columns of one row: a stored row (``RowView``) or one being built
/// (``RowBuilder``). Write paths take it as a generic parameter rather than a closure, so passing
/// a row costs no closure context.
protocol ColumnSource {
    /// The content of column `i`.
    func column(_ i: Int) -> ColumnRead
}

/// A read-only view of one encoded row, usually pointing into the memory map.
///
/// Creating it checks the header against the row's length; every column access checks its
/// offsets, so a damaged row yields ``ColumnRead/absent`` instead of reading out of bounds.
@usableFromInline
struct RowView {
    /// Start of the row.
    @usableFromInline let base: UnsafeRawPointer
    /// The end of the column data: the row's length without its checksum.
    @usableFromInline let storedLength: UInt32
    @usableFromInline let storedDataStart: UInt32
    @usableFromInline let storedColumnCount: UInt16
    /// Offset of the column end table (after the null bitmap), kept so a column read need not
    /// recompute it.
    @usableFromInline let storedEndsStart: UInt16
    @usableFromInline let width: UInt8
    /// Size of the checksum at the end of the row: 4, or 0 for rows written before format 3.
    @usableFromInline let trailer: UInt8

    /// Length of the row in bytes, checksum included.
    var length: Int { Int(storedLength) + Int(trailer) }
    /// Whether the row ends with a checksum (``RowChecksum``).
    var hasChecksum: Bool { trailer != 0 }
    /// Number of columns the row holds.
    var columnCount: Int { Int(storedColumnCount) }
    @inlinable var endsStart: Int { Int(storedEndsStart) }

    /// Parses the header; `nil` if the bytes cannot be a row. Inlined: scans create one per row.
    @inline(__always)
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count >= RowFormat.fixedHeaderSize, bytes.count <= Int(UInt32.max) else { return nil }
        // Bits 0–1: offsets of 1, 2 or 4 bytes; bit 2: a checksum; anything else is not a row.
        let flags = base.load(as: UInt8.self)
        let code = flags & 0x03
        guard flags & ~0x07 == 0, code < 3 else { return nil }
        let trailer = flags & RowChecksum.flag  // 4 when set: the checksum's size
        let width: UInt8 = 1 << code
        let count = UInt16(littleEndian: base.loadUnaligned(fromByteOffset: 1, as: UInt16.self))
        let header = RowFormat.headerSize(columns: Int(count), width: Int(width))
        guard header + Int(trailer) <= bytes.count else { return nil }
        self.base = base
        self.trailer = trailer
        storedLength = UInt32(bytes.count - Int(trailer))
        storedColumnCount = count
        storedEndsStart = UInt16(RowFormat.fixedHeaderSize + (Int(count) + 7) / 8)
        self.width = width
        storedDataStart = UInt32(header)
    }

    /// A row with no columns, standing in for bytes that are not a row: every column reads as
    /// ``ColumnRead/absent``, hence as the property's default.
    static var damaged: RowView { RowView(noColumns: ()) }

    private init(noColumns: ()) {
        // Never dereferenced: every access checks the column count (0) first.
        base = UnsafeRawPointer(bitPattern: MemoryLayout<UInt64>.alignment).unsafelyUnwrapped
        storedLength = 0
        storedColumnCount = 0
        storedEndsStart = UInt16(RowFormat.fixedHeaderSize)
        width = 1
        trailer = 0
        storedDataStart = 0
    }

    /// The bytes of the whole row, checksum included.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: length) }

    /// Whether column `i` is null.
    @inlinable @inline(__always)
    func isNull(_ i: Int) -> Bool {
        let byte = base.load(fromByteOffset: RowFormat.fixedHeaderSize + i >> 3, as: UInt8.self)
        return byte & (1 << UInt8(i & 7)) != 0
    }

    /// The content of column `i`.
    @inlinable @inline(__always)
    func column(_ i: Int) -> ColumnRead {
        guard UInt(bitPattern: i) < UInt(storedColumnCount) else { return .absent }
        if isNull(i) { return .null }
        // Both ends in one switch on the width; the end before column 0 is 0.
        let p = endsStart + i * Int(width)
        let start: Int, stop: Int
        switch width {
        case 1:
            stop = Int(base.load(fromByteOffset: p, as: UInt8.self))
            start = i == 0 ? 0 : Int(base.load(fromByteOffset: p - 1, as: UInt8.self))
        case 2:
            stop = Int(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: p, as: UInt16.self)))
            start = i == 0 ? 0 : Int(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: p - 2, as: UInt16.self)))
        default:
            stop = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: p, as: UInt32.self)))
            start = i == 0 ? 0 : Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: p - 4, as: UInt32.self)))
        }
        let dataStart = Int(storedDataStart)
        guard start <= stop && dataStart + stop <= Int(storedLength) else { return .absent }
        return .value(UnsafeRawBufferPointer(start: base + dataStart + start, count: stop - start))
    }
}

/// Builds rows in reusable buffers: append each column in order, then ``write(into:)``.
///
/// A class over raw buffers, owned by one write transaction, so appending costs no
/// copy-on-write checks and no allocation once the buffers have grown.
final class RowBuilder {
    /// The concatenated column bytes.
    let data = ScratchBuffer(capacity: 256)
    /// Encoders write through this view of ``data``.
    @exclusivity(unchecked) var bytes: _ObjDBBytes
    @exclusivity(unchecked) private var ends: UnsafeMutablePointer<Int>
    @exclusivity(unchecked) private var nulls: UnsafeMutablePointer<Bool>
    @exclusivity(unchecked) private var capacity = 16
    /// Number of columns appended so far.
    @exclusivity(unchecked) private(set) var columnCount = 0

    init() {
        bytes = _ObjDBBytes(data)
        ends = .allocate(capacity: capacity)
        nulls = .allocate(capacity: capacity)
    }

    deinit {
        ends.deallocate()
        nulls.deallocate()
    }

    /// Forgets the previous row, keeping the memory.
    @inline(__always)
    func reset() {
        data.reset()
        columnCount = 0
    }

    /// Closes the column whose bytes were just appended to ``data``.
    @inline(__always)
    func endColumn(isNull: Bool) {
        if columnCount == capacity { grow() }
        ends[columnCount] = data.count
        nulls[columnCount] = isNull
        columnCount += 1
    }

    @inline(never)
    private func grow() {
        let newCapacity = capacity * 2
        let newEnds = UnsafeMutablePointer<Int>.allocate(capacity: newCapacity)
        let newNulls = UnsafeMutablePointer<Bool>.allocate(capacity: newCapacity)
        newEnds.update(from: ends, count: columnCount)
        newNulls.update(from: nulls, count: columnCount)
        ends.deallocate()
        nulls.deallocate()
        ends = newEnds
        nulls = newNulls
        capacity = newCapacity
    }

    /// Appends one column produced by `encode`, which appends its bytes and returns `false` for null.
    @inline(__always)
    func append(_ encode: (inout _ObjDBBytes) -> Bool) {
        let isValue = encode(&bytes)
        endColumn(isNull: !isValue)
    }

    /// Appends a column from raw bytes, or a null column for `nil`.
    func append(raw: UnsafeRawBufferPointer?) {
        if let raw { data.append(bytes: raw) }
        endColumn(isNull: raw == nil)
    }

    /// Appends a column's encoded default value (as the catalog encodes it), or a null
    /// column for `nil`.
    func appendDefault(_ bytes: [UInt8]?) {
        if let bytes {
            bytes.withUnsafeBytes { append(raw: $0) }
        } else {
            append(raw: nil)
        }
    }

    /// Appends a copy of an existing column.
    func append(_ read: ColumnRead) {
        switch read {
        case .value(let bytes):
            data.append(bytes: bytes)
            endColumn(isNull: false)
        case .null, .absent:
            endColumn(isNull: read.isNull)
        }
    }

    /// Replaces the content of some columns of the complete row (`nil` for null). Copies the
    /// row once; only rows of classes with database-maintained columns take this path.
    func replaceColumns(_ replacements: [(column: Int, bytes: [UInt8]?)]) {
        var columns: [[UInt8]?] = (0..<columnCount).map { i in
            if case .value(let bytes) = column(i) { return Array(bytes) }
            return nil
        }
        for (index, bytes) in replacements where index < columns.count { columns[index] = bytes }
        reset()
        for bytes in columns {
            if let bytes { bytes.withUnsafeBytes { append(raw: $0) } } else { append(raw: nil) }
        }
    }

    /// The content of column `i` appended so far; valid until the next change.
    @inline(__always)
    func column(_ i: Int) -> ColumnRead {
        if nulls[i] { return .null }
        let start = i == 0 ? 0 : ends[i - 1]
        return .value(data.bytes(start..<ends[i]))
    }

    /// Calls `body` with a reader of the columns appended so far; the reader is only valid
    /// inside `body`.
    func withColumns<R>(_ body: ((Int) -> ColumnRead) throws -> R) rethrows -> R {
        try body { self.column($0) }
    }

    private var width: Int { RowFormat.offsetWidth(forDataSize: data.count) }

    /// Size of the encoded row, checksum included. Inlined: every row write asks for it.
    @inline(__always)
    var encodedSize: Int { RowFormat.headerSize(columns: columnCount, width: width) + data.count + RowChecksum.size }

    /// Writes the encoded row; `buffer` must be exactly ``encodedSize`` bytes. The checksum's
    /// place is left for ``RowChecksum/seal(_:key:)``, which every row store calls once the row
    /// is in place (copies of stored rows are sealed the same way).
    func write(into buffer: UnsafeMutableRawBufferPointer) {
        // Locals, not properties: stores through `out` could otherwise alias them, and the
        // loops would reload them on every column.
        let count = columnCount, ends = self.ends, nulls = self.nulls
        let source = data.bytes
        let width = RowFormat.offsetWidth(forDataSize: source.count)
        objdbPrecondition(
            buffer.count == RowFormat.headerSize(columns: count, width: width) + source.count + RowChecksum.size,
            "Internal error: RowBuilder.write got a buffer of \(buffer.count) bytes for a row of \(encodedSize) (an ObjDB bug; please report it)")
        objdbPrecondition(count <= RowFormat.maxColumns, "RowBuilder: more than \(RowFormat.maxColumns) columns")
        guard let out = buffer.baseAddress else { return }
        out.storeBytes(of: UInt8(truncatingIfNeeded: width >> 1) | RowChecksum.flag, as: UInt8.self)  // 1, 2, 4 → 0, 1, 2
        out.storeBytes(of: UInt16(count).littleEndian, toByteOffset: 1, as: UInt16.self)
        var p = RowFormat.fixedHeaderSize
        var first = 0
        while first < count {
            var byte: UInt8 = 0
            let stop = min(first + 8, count)
            for i in first..<stop where nulls[i] { byte |= 1 << UInt8(i & 7) }
            out.storeBytes(of: byte, toByteOffset: p, as: UInt8.self)
            p += 1
            first = stop
        }
        switch width {
        case 1:
            for i in 0..<count { out.storeBytes(of: UInt8(truncatingIfNeeded: ends[i]), toByteOffset: p + i, as: UInt8.self) }
        case 2:
            for i in 0..<count {
                out.storeBytes(of: UInt16(truncatingIfNeeded: ends[i]).littleEndian, toByteOffset: p + 2 * i, as: UInt16.self)
            }
        default:
            for i in 0..<count {
                out.storeBytes(of: UInt32(truncatingIfNeeded: ends[i]).littleEndian, toByteOffset: p + 4 * i, as: UInt32.self)
            }
        }
        p += count * width
        if let s = source.baseAddress, !source.isEmpty { (out + p).copyMemory(from: s, byteCount: source.count) }
        (out + p + source.count).storeBytes(of: 0, as: UInt32.self)
    }

    /// The encoded row of object `key` as a new array, sealed (for tests and small writes).
    func encoded(key: UInt64 = 0) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: encodedSize) { buffer, count in
            write(into: UnsafeMutableRawBufferPointer(buffer))
            RowChecksum.seal(UnsafeMutableRawBufferPointer(buffer), key: key)
            count = buffer.count
        }
    }
}

extension RowView: ColumnSource {}

extension RowBuilder: ColumnSource {}

extension ColumnRead {
    /// Whether the column is null.
    var isNull: Bool { if case .null = self { return true } else { return false } }

    /// Whether two reads hold the same bytes and nullness.
    func sameContent(as other: ColumnRead) -> Bool {
        switch (self, other) {
        case (.null, .null), (.absent, .absent): return true
        case let (.value(a), .value(b)): return sameBytes(a, b)
        default: return false
        }
    }
}
