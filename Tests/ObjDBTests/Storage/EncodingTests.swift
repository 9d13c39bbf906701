import Foundation
import Testing
@testable import ObjDB

/// The row and key encodings, tested directly against values known independently.
struct EncodingTests {
    @Test func rowColumnsRoundTripWithEveryOffsetWidth() {
        for dataSize in [0, 10, 300, 70_000] {
            let builder = RowBuilder()
            [UInt8]([1, 2, 3]).withUnsafeBytes { builder.append(raw: $0) }
            builder.append(raw: nil)
            [UInt8](repeating: 7, count: dataSize).withUnsafeBytes { builder.append(raw: $0) }
            builder.append { _ in true }   // empty but not null
            let encoded = builder.encoded()
            #expect(encoded.count == builder.encodedSize)
            encoded.withUnsafeBytes { bytes in
                guard let row = RowView(bytes) else {
                    Issue.record("row did not parse")
                    return
                }
                #expect(row.columnCount == 4)
                guard case .value(let a) = row.column(0) else { Issue.record("column 0"); return }
                #expect(Array(a) == [1, 2, 3])
                #expect(row.column(1).isNull)
                guard case .value(let c) = row.column(2) else { Issue.record("column 2"); return }
                #expect(c.count == dataSize && c.allSatisfy { $0 == 7 })
                guard case .value(let d) = row.column(3) else { Issue.record("column 3"); return }
                #expect(d.isEmpty)
                if case .absent = row.column(4) {} else { Issue.record("column 4 should be absent") }
                if case .absent = row.column(-1) {} else { Issue.record("column -1 should be absent") }
            }
        }
    }

    @Test func onlyTheThreeOffsetWidthsParse() {
        // One column of one byte: flags, count 1, no nulls, end 1 (width 1), the byte, then enough
        // spare bytes that a wider offset table (8 or 16 bytes) would fit if the flags allowed one.
        // Bit 2 (a checksum at the end) may accompany each width; every other bit is refused.
        for flags in 0...255 {
            let valid = flags & ~0x07 == 0 && flags & 0x03 < 3
            let width = valid ? 1 << (flags & 0x03) : 1
            let bytes: [UInt8] = [UInt8(flags), 1, 0, 0] + [1] + [UInt8](repeating: 0, count: width - 1) + [42]
                + [UInt8](repeating: 0, count: 24)
            bytes.withUnsafeBytes { buffer in
                let row = RowView(buffer)
                #expect((row != nil) == valid, "flags \(flags)")
                #expect(row.map(\.hasChecksum) ?? false == (valid && flags & 0x04 != 0), "flags \(flags)")
                if let row, case .value(let column) = row.column(0) {
                    #expect(Array(column) == [42], "flags \(flags)")
                } else if row != nil {
                    Issue.record("flags \(flags): column 0 did not read")
                }
            }
        }
    }

    @Test func sameBytesComparesLengthAndContent() {
        let cases: [([UInt8], [UInt8], Bool)] = [
            ([], [], true), ([1], [1], true), ([1, 2, 3], [1, 2, 3], true),
            ([1, 2, 3], [1, 2, 4], false), ([1, 2], [1, 2, 3], false), ([], [0], false), ([0], [], false),
        ]
        for (a, b, expected) in cases {
            a.withUnsafeBytes { x in b.withUnsafeBytes { y in #expect(sameBytes(x, y) == expected, "\(a) vs \(b)") } }
        }
        // An empty buffer without an address equals any empty buffer.
        [UInt8]().withUnsafeBytes { #expect(sameBytes(UnsafeRawBufferPointer(start: nil, count: 0), $0)) }
    }

    @Test func sameBytesSeesADifferenceAtEveryPositionOfEveryLength() {
        // Each length compares in its own way (bytes, two 4-byte words, two 8-byte words,
        // memcmp). The buffers start at an odd offset, so the word loads are unaligned, and sit
        // between guard bytes that differ from one side to the other: a load outside a buffer
        // would change the answer.
        func compare(_ a: [UInt8], _ b: [UInt8]) -> Bool {
            let x = [0xAA] + a + Array(repeating: 0xAA, count: 8)
            let y = [0x55] + b + Array(repeating: 0x55, count: 8)
            return x.withUnsafeBytes { x in
                y.withUnsafeBytes { y in
                    sameBytes(UnsafeRawBufferPointer(rebasing: x[1..<1 + a.count]), UnsafeRawBufferPointer(rebasing: y[1..<1 + b.count]))
                }
            }
        }
        for count in 0...40 {
            let a = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(compare(a, a), "length \(count)")
            for position in 0..<count {
                var b = a
                b[position] ^= 0x80
                #expect(!compare(a, b), "length \(count), byte \(position)")
            }
        }
    }

    @Test func randomBytesNeverReadOutOfBounds() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes.withUnsafeBytes { buffer in
                guard let row = RowView(buffer) else { return }
                for i in 0..<max(row.columnCount, 1) + 1 {
                    if case .value(let column) = row.column(i) {
                        let start = column.baseAddress.map { $0 - buffer.baseAddress! } ?? 0
                        #expect(start >= 0 && start + column.count <= buffer.count)
                    }
                }
            }
        }
    }

    @Test func compactIntegersUseTheShortestForm() {
        let cases: [(Int64, Int)] = [(0, 0), (1, 1), (-128, 1), (127, 1), (128, 2), (-32768, 2), (40_000, 4), (Int64(Int32.min), 4), (1 << 40, 8), (.min, 8), (.max, 8)]
        for (value, length) in cases {
            var bytes: [UInt8] = []
            ColumnCodec.appendInteger(value, to: &bytes)
            #expect(bytes.count == length, "\(value)")
            #expect(bytes.withUnsafeBytes { ColumnCodec.integer($0) } == value)
        }
        #expect([UInt8](repeating: 0, count: 3).withUnsafeBytes { ColumnCodec.integer($0) } == nil)
    }

    /// Sorting encoded keys bytewise must sort the values.
    func expectOrderPreserved<T: Comparable>(_ values: [T], kind: ScalarKind, encode: (T, inout [UInt8]) -> Void) {
        let keyed = values.map { value -> (T, [UInt8]) in
            var column: [UInt8] = []
            encode(value, &column)
            var key: [UInt8] = []
            let ok = column.withUnsafeBytes { KeyEncoding.append(.value($0), kind: kind, to: &key) }
            #expect(ok)
            return (value, key)
        }
        let byKey = keyed.sorted { $0.1.lexicographicallyPrecedes($1.1) }.map(\.0)
        #expect(byKey == values.sorted())
    }

    @Test func integerKeysSortLikeIntegers() {
        var generator = SystemRandomNumberGenerator()
        let values: [Int64] = [.min, -1, 0, 1, .max, -256, 255] + (0..<500).map { _ in Int64.random(in: .min ... .max, using: &generator) }
        expectOrderPreserved(Array(Set(values)), kind: .integer) { ColumnCodec.appendInteger($0, to: &$1) }
    }

    @Test func integerKeysMatchTheColumnKeyEncoding() {
        var generator = SystemRandomNumberGenerator()
        let values: [Int64] = [.min, .min + 1, -1, 0, 1, 127, 128, -129, .max] + (0..<200).map { _ in Int64.random(in: .min ... .max, using: &generator) }
        for value in values {
            var column: [UInt8] = []
            ColumnCodec.appendInteger(value, to: &column)
            var key: [UInt8] = []
            _ = column.withUnsafeBytes { KeyEncoding.append(.value($0), kind: .integer, to: &key) }
            #expect(KeyEncoding.integerKey(value) == key, "\(value)")
        }
    }

    @Test func doubleKeysSortLikeDoubles() {
        var generator = SystemRandomNumberGenerator()
        let values: [Double] = [-.infinity, -.greatestFiniteMagnitude, -1, -.leastNonzeroMagnitude, 0, .leastNonzeroMagnitude, 1, .greatestFiniteMagnitude, .infinity]
            + (0..<500).map { _ in Double.random(in: -1e12...1e12, using: &generator) }
        expectOrderPreserved(Array(Set(values)), kind: .double) { ColumnCodec.appendDouble($0, to: &$1) }
    }

    @Test func stringKeysSortByUTF8AndNilSortsFirst() {
        let values = ["", "a", "ab", "b", "Z", "é", "中", "🧑‍🚀", "a\u{0}"]
        expectOrderPreserved(values.map { Array($0.utf8) }.map { UTF8Sortable($0) }, kind: .bytes) { $1.append(contentsOf: $0.bytes) }
        var nilKey: [UInt8] = []
        _ = KeyEncoding.append(.null, kind: .bytes, to: &nilKey)
        var emptyKey: [UInt8] = []
        _ = [UInt8]().withUnsafeBytes { KeyEncoding.append(.value($0), kind: .bytes, to: &emptyKey) }
        #expect(nilKey.lexicographicallyPrecedes(emptyKey))
        #expect(!emptyKey.isEmpty)   // LMDB refuses empty keys
    }

    @Test func longStringKeysAreCut() {
        let long = [UInt8](repeating: 65, count: 5_000)
        var key: [UInt8] = []
        _ = long.withUnsafeBytes { KeyEncoding.append(.value($0), kind: .bytes, to: &key) }
        #expect(key.count == KeyEncoding.maxLength)
        #expect(KeyEncoding.mayBeTruncated(key))
    }
}

/// Bytes ordered lexicographically, like LMDB compares keys.
struct UTF8Sortable: Comparable {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    static func < (a: UTF8Sortable, b: UTF8Sortable) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
}

/// The row builder grows past its initial capacity and is reusable after `reset()`.
struct RowBuilderReuseTests {
    /// Null bitmaps that end exactly on, just before and just after a byte boundary, with the last
    /// column null.
    @Test(arguments: [0, 1, 7, 8, 9, 15, 16, 17]) func nullBitmapsAtByteEdges(columns: Int) {
        let builder = RowBuilder()
        let isNull = (0..<columns).map { $0 == columns - 1 || $0 % 3 == 1 }
        for column in 0..<columns {
            if isNull[column] { builder.append(raw: nil) } else { [UInt8(column)].withUnsafeBytes { builder.append(raw: $0) } }
        }
        let encoded = builder.encoded()
        #expect(encoded.count == RowFormat.fixedHeaderSize + (columns + 7) / 8 + columns + isNull.filter { !$0 }.count + RowChecksum.size)
        encoded.withUnsafeBytes { bytes in
            guard let row = RowView(bytes) else { Issue.record("no row"); return }
            #expect(row.columnCount == columns)
            for column in 0..<columns {
                if isNull[column] {
                    #expect(row.column(column).isNull, "column \(column) of \(columns)")
                } else if case .value(let value) = row.column(column) {
                    #expect(Array(value) == [UInt8(column)], "column \(column) of \(columns)")
                } else {
                    Issue.record("column \(column) of \(columns) missing")
                }
            }
            if case .absent = row.column(columns) {} else { Issue.record("column \(columns) should be absent") }
        }
    }

    @Test func manyColumnsAndReuse() {
        let builder = RowBuilder()
        for round in 0..<3 {
            builder.reset()
            for column in 0..<40 {
                if (column + round) % 3 == 0 {
                    builder.append(raw: nil)
                } else {
                    [UInt8](repeating: UInt8(column), count: column % 5).withUnsafeBytes { builder.append(raw: $0) }
                }
            }
            let encoded = builder.encoded()
            encoded.withUnsafeBytes { bytes in
                guard let row = RowView(bytes) else { Issue.record("no row"); return }
                #expect(row.columnCount == 40)
                for column in 0..<40 {
                    if (column + round) % 3 == 0 {
                        #expect(row.column(column).isNull)
                    } else if case .value(let value) = row.column(column) {
                        #expect(Array(value) == [UInt8](repeating: UInt8(column), count: column % 5))
                    } else {
                        Issue.record("column \(column) missing")
                    }
                }
            }
        }
    }
}
