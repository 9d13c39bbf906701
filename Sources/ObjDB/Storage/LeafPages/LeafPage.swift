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
/// The page layout is LMDB 0.9's on-disk format, which is not part of `lmdb.h` (`mdb.c` defines
/// it, and the format has not changed within 0.9):
///
/// | offset | size | field |
/// |---:|---:|:---|
/// | 0 | 8 | page number |
/// | 8 | 2 | padding |
/// | 10 | 2 | flags (`P_LEAF` = 0x02) |
/// | 12 | 2 | `lower`: the end of the node offsets, so the node count is `(lower - 16) / 2` |
/// | 14 | 2 | `upper`: the start of the node area |
/// | 16 | 2 each | offsets of the nodes from the page start, in key order |
///
/// and each node: the value size in two 16-bit halves (low first), 16-bit flags (`F_BIGDATA` =
/// 0x01 when the value lives on overflow pages), the 16-bit key size, the key, then the value.
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
    /// when the page is not one this type can read (see the type's notes).
    ///
    /// - Complexity: O(1) when the entry is the page's first, O(n) in the page's nodes otherwise.
    @inline(__always)
    init?(holding entry: CursorEntry, pageSize: Int) {
        guard entry.key.count == 8, let key = entry.key.baseAddress else { return nil }
        let node = key - Self.nodeHeader
        let base = UnsafeRawPointer(bitPattern: UInt(bitPattern: node) & ~UInt(pageSize - 1))
        guard let base else { return nil }
        let flags = base.loadUnaligned(fromByteOffset: 10, as: UInt16.self)
        let lower = Int(base.loadUnaligned(fromByteOffset: 12, as: UInt16.self))
        let upper = Int(base.loadUnaligned(fromByteOffset: 14, as: UInt16.self))
        guard flags & Self.leaf != 0, flags & Self.notLeaf == 0,
            lower >= Self.pageHeader, lower & 1 == 0, lower <= upper, upper <= pageSize
        else { return nil }
        let count = (lower - Self.pageHeader) / 2
        guard count > 0 else { return nil }
        // Pages 0 and 1 are LMDB's meta pages; a page number past the address is not this page's.
        let number = base.loadUnaligned(as: UInt64.self)
        let (distance, overflow) = UInt(truncatingIfNeeded: number).multipliedReportingOverflow(by: UInt(pageSize))
        guard number >= 2, !overflow, distance <= UInt(bitPattern: base) else { return nil }
        mapStart = UInt(bitPattern: base) - distance
        self.base = base
        self.size = pageSize
        self.upper = upper
        self.count = count
        // The node's index: its offset is in the page's table of node offsets.
        let offset = node - base
        var index = 0
        while index < count, Int(base.loadUnaligned(fromByteOffset: Self.pageHeader + 2 * index, as: UInt16.self)) != offset {
            index += 1
        }
        guard index < count else { return nil }
        self.index = index
        // The node must read as the entry exactly: in bounds, an 8-byte key, and either the value
        // in place (at the address and of the size the cursor gave) or on overflow pages.
        switch self.node(at: index) {
        case .row(_, let value)?:
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
        let offset = Int(base.loadUnaligned(fromByteOffset: Self.pageHeader &+ 2 &* index, as: UInt16.self))
        guard offset >= upper, offset + 2 * Self.nodeHeader <= size else { return nil }
        let node = base + offset
        let header = node.loadUnaligned(as: UInt64.self)
        let key = node.loadUnaligned(fromByteOffset: Self.nodeHeader, as: UInt64.self)
        switch header >> 32 {
        case Self.plainNode:
            let length = Int(truncatingIfNeeded: header & 0xFFFF_FFFF)
            guard length <= size - offset - 2 * Self.nodeHeader else { return nil }
            return .row(key: key, value: UnsafeRawBufferPointer(start: node + 2 * Self.nodeHeader, count: length))
        case Self.bigNode:
            return .big(key: key)
        default:
            return nil
        }
    }

    /// The size of a page header (`PAGEHDRSZ`).
    private static let pageHeader = 16
    /// The size of a node header (`NODESIZE`), and of an object key.
    private static let nodeHeader = 8
    /// `P_LEAF`.
    private static let leaf: UInt16 = 0x02
    /// `P_BRANCH | P_OVERFLOW | P_META | P_LEAF2 | P_SUBP`.
    private static let notLeaf: UInt16 = 0x01 | 0x04 | 0x08 | 0x20 | 0x40
    /// A node's flags and key size (the upper half of its first word) for an 8-byte key and a
    /// value on the page.
    private static let plainNode: UInt64 = 8 << 16
    /// The same with `F_BIGDATA`: the value is on overflow pages.
    private static let bigNode: UInt64 = 8 << 16 | 0x01
}
