import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A leaf page of a table of rows (object key → row), read in place from the memory map so that
/// a table scan steps from row to row without a cursor call per row.
///
/// LMDB's cursor step costs about 130 instructions per entry; reading the next node of the
/// page directly costs about 15. A scan therefore walks each leaf page itself and uses the
/// cursor only to move from one page to the next (see ``Cursor/forEachRow(from:through:_:)``).
///
/// The page layout is LMDB 0.9's, which is not part of `lmdb.h`; ``PageFormat`` describes it,
/// and every offset this type reads comes from there. A node of a table of rows has an 8-byte
/// key and its value on the page, or (`F_BIGDATA`) on overflow pages.
///
/// Nothing is assumed that is not checked first, and whatever does not check out is left to the
/// cursor: pages are read in place only in read-only transactions (whose pages all lie in the
/// map, at page-size-aligned addresses), only with a release of LMDB 0.9 on a 64-bit
/// little-endian machine whose page size is at least the file's, and only once the node the
/// cursor returned has been found at the exact address of the key and value the cursor gave.
/// Every page of a walk must put the map at the same address (``mapStart``, from its page
/// number), and every further node is bounds-checked against the page before it is read.
struct LeafPage {
    /// The start of the page.
    private let base: UnsafeRawPointer
    /// The page size of the file.
    private let size: Int
    /// The start of the node area; every node offset lies at or above it.
    private let upper: Int
    /// Where page 0 would lie if this page is where its header's page number says: the start of
    /// the memory map. Every page of one file gives the same address.
    let mapStart: UInt
    /// The number of nodes on the page.
    let count: Int
    /// The index of the node of the entry the page was found from.
    let index: Int

    /// Whether pages of `environment`'s file can be read in place at all: LMDB 0.9 (whose page
    /// layout this type reads), a 64-bit little-endian machine, and a file page size that is a
    /// power of two no larger than the machine's page size, so that the page-aligned memory
    /// map puts every page at a multiple of the file's page size.
    static func isSupported(pageSize: Int) -> Bool {
        // Releases only: LMDB's development branches also report 0.9 (0.9.70 and up) with
        // other page layouts (see ``LMDBRelease``).
        LMDBRelease.hasVersion09Layout
            && pageSize >= 512 && pageSize & (pageSize - 1) == 0 && pageSize <= Int(getpagesize())
    }

    /// The page of `entry`, an entry a cursor just returned in a read-only transaction; `nil`
    /// when the page is not one this type can read (see the type's notes). `open` gives the value
    /// the cursor returns for a value stored on the page (in an encrypted file, the value
    /// opened: ``Cursor/pageValue(_:_:)``).
    ///
    /// - Complexity: O(1) when the entry is the page's first, O(n) in the page's nodes otherwise.
    @inline(__always)
    init?(holding entry: CursorEntry, pageSize: Int, opening open: (UInt64, UnsafeRawBufferPointer) -> UnsafeRawBufferPointer = { $1 }) {
        guard entry.key.count == 8, let key = entry.key.baseAddress else { return nil }
        let node = key - PageFormat.nodeHeaderSize
        guard let base = PageFormat.pageStart(holding: node, pageSize: pageSize) else { return nil }
        let header = PageFormat.Header(at: base)
        guard header.flags & PageFormat.PageFlag.leaf != 0, header.flags & Self.notLeaf == 0,
            let count = header.nodeCount(limit: pageSize), count > 0
        else { return nil }
        // Pages 0 and 1 are LMDB's meta pages; a page number past the address is not this page's.
        guard header.number >= UInt64(PageFormat.metaPages),
            let mapStart = PageFormat.mapStart(ofPageAt: base, number: header.number, pageSize: pageSize)
        else { return nil }
        self.mapStart = mapStart
        self.base = base
        self.size = pageSize
        self.upper = header.upper
        self.count = count
        // The node's index: its offset is in the page's table of node offsets.
        let offset = node - base
        var index = 0
        while index < count, Int(base.loadUnaligned(fromByteOffset: PageFormat.nodeOffsetSlot(index), as: UInt16.self)) != offset {
            index += 1
        }
        guard index < count else { return nil }
        self.index = index
        // The node must read as the entry exactly: in bounds, an 8-byte key, and either the value
        // in place (at the address and of the size the cursor gave) or on overflow pages.
        switch self.node(at: index) {
        case .row(let key, let stored)?:
            let value = open(key, stored)
            guard value.baseAddress == entry.value.baseAddress, value.count == entry.value.count else { return nil }
        case .big?:
            break
        case nil:
            return nil
        }
    }

    /// One node of the page, read in place.
    enum Node {
        /// A row stored on the page.
        case row(key: UInt64, value: UnsafeRawBufferPointer)
        /// A row on overflow pages: read it through the cursor.
        case big(key: UInt64)

        /// The row's object key.
        var key: UInt64 {
            switch self {
            case .row(let key, _), .big(let key): key
            }
        }
    }

    /// The node at `index`, which must be below ``count``; `nil` if it is not a node of a table
    /// of rows or does not fit in the page.
    @inline(__always)
    func node(at index: Int) -> Node? {
        // Wrapping arithmetic: with `index` below `count`, the entry read lies in the table of
        // node offsets, between the page header and `lower` (checked at `init`).
        let offset = Int(base.loadUnaligned(fromByteOffset: PageFormat.nodeOffsetSlot(index), as: UInt16.self))
        guard PageFormat.nodeArea(upper: upper, limit: size, holds: offset, length: Self.nodeHeaderAndKey) else { return nil }
        let node = base + offset
        let header = PageFormat.Node(at: node)
        let key = node.loadUnaligned(fromByteOffset: PageFormat.nodeHeaderSize, as: UInt64.self)
        switch header.shape {
        case PageFormat.Node.shape(flags: 0, keySize: 8):
            let length = header.dataSize
            guard length <= size - offset - Self.nodeHeaderAndKey else { return nil }
            return .row(key: key, value: UnsafeRawBufferPointer(start: node + Self.nodeHeaderAndKey, count: length))
        case PageFormat.Node.shape(flags: PageFormat.NodeFlag.bigData, keySize: 8):
            return .big(key: key)
        default:
            return nil
        }
    }

    /// The size of a node header and an object key: where a row's value starts in its node.
    private static var nodeHeaderAndKey: Int { PageFormat.nodeHeaderSize + 8 }
    /// `P_BRANCH | P_OVERFLOW | P_META | P_LEAF2 | P_SUBP`.
    private static var notLeaf: UInt16 {
        PageFormat.PageFlag.branch | PageFormat.PageFlag.overflow | PageFormat.PageFlag.meta | PageFormat.PageFlag.leaf2
            | PageFormat.PageFlag.subpage
    }
}
