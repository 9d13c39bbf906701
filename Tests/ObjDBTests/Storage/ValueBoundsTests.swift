import Testing
@testable import ObjDB

/// Which values a cursor checks against the file (``Environment/mayLieOffPage(key:value:size:pageSize:sortsDuplicates:)``),
/// on a page laid out by hand: a value right after a page header is an overflow page's data —
/// checked — unless it is the first duplicate LMDB read from a page of duplicates, which only a
/// `MDB_DUPSORT` table's node flagged `F_DUPDATA` leads to.
struct ValueBoundsTests {
    static let pageSize = 4096

    /// Runs `body` with two pages: the first holds a leaf node whose key starts at byte 100 and
    /// whose flags are `nodeFlags`; the second is where values are placed.
    private func withPages(nodeFlags: UInt16, _ body: (_ key: UnsafeMutableRawPointer, _ valuePage: UnsafeMutableRawPointer) -> Void) {
        let pages = UnsafeMutableRawPointer.allocate(byteCount: 2 * Self.pageSize, alignment: Self.pageSize)
        defer { pages.deallocate() }
        pages.initializeMemory(as: UInt8.self, repeating: 0, count: 2 * Self.pageSize)
        let key = pages + 100
        // The node header's last four bytes: flags, then the key size (8).
        (key - 4).storeBytes(of: nodeFlags, as: UInt16.self)
        (key - 2).storeBytes(of: 8, as: UInt16.self)
        body(key, pages + Self.pageSize)
    }

    private func checked(_ key: UnsafeMutableRawPointer?, _ value: UnsafeMutableRawPointer, size: Int, sortsDuplicates: Bool) -> Bool {
        Environment.mayLieOffPage(key: key, value: value, size: size, pageSize: Self.pageSize, sortsDuplicates: sortsDuplicates)
    }

    @Test func valuesAfterAPageHeaderAreCheckedUnlessTheyAreDuplicates() {
        let dupData = PageFormat.NodeFlag.dupData
        withPages(nodeFlags: dupData) { key, page in
            // The first duplicate of an index key: LMDB read its page.
            #expect(!checked(key, page + 16, size: 8, sortsDuplicates: true))
            // The same flag in a table without duplicates means nothing to LMDB: checked.
            #expect(checked(key, page + 16, size: 8, sortsDuplicates: false))
            // Where the key's node is unknown (mdb_get): checked.
            #expect(checked(nil, page + 16, size: 8, sortsDuplicates: true))
            // A size that runs past the page is checked whatever the node says.
            #expect(checked(key, page + 16, size: Self.pageSize, sortsDuplicates: true))
        }
        withPages(nodeFlags: PageFormat.NodeFlag.bigData) { key, page in
            // An overflow value (F_BIGDATA): checked, in an index table too.
            #expect(checked(key, page + 16, size: 8, sortsDuplicates: true))
            #expect(checked(key, page + 16, size: 20_000, sortsDuplicates: false))
        }
        withPages(nodeFlags: 0) { key, page in
            // A value inside its leaf page, elsewhere than right after the header: not checked.
            #expect(!checked(key, page + 200, size: 40, sortsDuplicates: false))
            #expect(!checked(key, page + 200, size: 40, sortsDuplicates: true))
            // One that runs past its page: checked.
            #expect(checked(key, page + 4000, size: 200, sortsDuplicates: false))
        }
    }
}
