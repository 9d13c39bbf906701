import Testing
@testable import ObjDB

/// ``PageFormat``, the one description of LMDB 0.9's pages, on bytes laid out by hand after
/// `mdb.c` (`MDB_page`, `MDB_node`, `NUMKEYS`, `MDB_IDL`).
struct PageFormatTests {
    /// Little-endian bytes of `value`, `count` of them.
    static func le(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    @Test func aHeaderReadsItsFields() throws {
        // Page 7, pad 12, P_LEAF, lower 20 (two nodes), upper 4000.
        let bytes = Self.le(7, 8) + Self.le(12, 2) + Self.le(0x02, 2) + Self.le(20, 2) + Self.le(4000, 2)
        let header = try #require(bytes.withUnsafeBytes { PageFormat.Header($0) })
        #expect(header.number == 7 && header.pad == 12 && header.flags == PageFormat.PageFlag.leaf)
        #expect(header.lower == 20 && header.upper == 4000)
        #expect(header.nodeCount(limit: 4096) == 2)
        // An overflow page keeps its page count where others keep lower and upper.
        #expect(header.overflowPageCount == 20 | 4000 << 16)
        // Fifteen bytes are no header.
        #expect(bytes.prefix(15).withUnsafeBytes { PageFormat.Header($0) } == nil)
    }

    /// `lower` and `upper` must be possible: the node count is read only from bounds that are.
    @Test(arguments: [
        (16, 16, 4096, 0 as Int?),      // an empty page
        (18, 100, 4096, 1),
        (14, 100, 4096, nil),           // lower inside the header
        (19, 100, 4096, nil),           // lower odd
        (200, 100, 4096, nil),          // lower past upper
        (20, 4097, 4096, nil),          // upper past the page
        (20, 60, 40, nil),              // upper past a sub-page of 40 bytes
    ])
    func nodeCountsComeOnlyFromPossibleBounds(lower: Int, upper: Int, limit: Int, count: Int?) throws {
        let bytes = Self.le(2, 8) + Self.le(0, 2) + Self.le(0x02, 2) + Self.le(UInt64(lower), 2) + Self.le(UInt64(upper), 2)
        let header = try #require(bytes.withUnsafeBytes { PageFormat.Header($0) })
        #expect(header.nodeCount(limit: limit) == count)
    }

    @Test func aNodeHeaderReadsItsFields() throws {
        // lo 0x0102, hi 0x0003, flags F_BIGDATA, ksize 8.
        let bytes = Self.le(0x0102, 2) + Self.le(0x0003, 2) + Self.le(0x01, 2) + Self.le(8, 2)
        let node = try #require(bytes.withUnsafeBytes { PageFormat.Node($0, at: 0) })
        #expect(node.dataSize == 0x0003_0102)
        #expect(node.flags == PageFormat.NodeFlag.bigData && node.keySize == 8)
        // A branch node's child page: lo | hi << 16 | flags << 32.
        #expect(node.childPage == 0x0001_0003_0102)
        #expect(node.shape == PageFormat.Node.shape(flags: PageFormat.NodeFlag.bigData, keySize: 8))
        #expect(bytes.withUnsafeBytes { PageFormat.Node($0, at: 1) } == nil)
        #expect(PageFormat.nodeOffsetSlot(3) == 22)
    }

    @Test func theMapStartsWherePageNumbersSay() throws {
        let page = try #require(UnsafeRawPointer(bitPattern: UInt(0x10_0000)))
        #expect(PageFormat.mapStart(ofPageAt: page, number: 3, pageSize: 4096) == UInt(0x10_0000 - 3 * 4096))
        #expect(PageFormat.mapStart(ofPageAt: page, number: 0x1000, pageSize: 4096) == nil)  // below address 0
        #expect(PageFormat.mapStart(ofPageAt: page, number: .max, pageSize: 4096) == nil)    // overflows
        let inside = try #require(UnsafeRawPointer(bitPattern: UInt(0x10_0123)))
        #expect(PageFormat.pageStart(holding: inside, pageSize: 4096) == page)
    }

    @Test func aFreePageListHoldsWhatItsCountSays() {
        let whole = Self.le(2, 8) + Self.le(9, 8) + Self.le(5, 8)
        whole.withUnsafeBytes { bytes in
            let list = PageFormat.FreePageList(bytes)
            #expect(list.isWhole && list.count == 2 && list.page(0) == 9 && list.page(1) == 5)
        }
        let short = Self.le(3, 8) + Self.le(9, 8)
        short.withUnsafeBytes { #expect(!PageFormat.FreePageList($0).isWhole) }
        let ragged = Self.le(0, 8) + [1]
        ragged.withUnsafeBytes { #expect(!PageFormat.FreePageList($0).isWhole) }
    }
}
