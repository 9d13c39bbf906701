/// The parts of LMDB 0.9's on-disk format that ObjDB reads itself, without LMDB's code: to check a
/// file before LMDB touches it (``StructureCheck``) and to verify every page of it
/// (``FileWalk``). LMDB's own reads assert on damaged pages and abort the process; these never
/// trust a byte before checking it against the page.
///
/// The format is defined in LMDB's `mdb.c` (not in `lmdb.h`) and has not changed within 0.9:
///
/// | structure | layout |
/// |:--|:--|
/// | page header (16 bytes) | page number `UInt64`, padding `UInt16`, flags `UInt16`, then `lower` and `upper` `UInt16` (or, on an overflow page, the number of pages as `UInt32`) |
/// | node (leaf and branch pages) | `lo`, `hi`, `flags`, `ksize` as `UInt16`, then the key, then (leaf only) the value. A leaf's value size is `lo \| hi << 16`; a branch node's child page is `lo \| hi << 16 \| flags << 32` |
/// | tree record `MDB_db` (48 bytes) | pad `UInt32` (the fixed value size of `MDB_DUPFIXED` trees, or the page size in the free tree's record), flags `UInt16`, depth `UInt16`, branch, leaf and overflow page counts, entries, root page, each `UInt64` |
/// | meta page (pages 0 and 1) | after the header: magic `UInt32` (0xBEEFC0DE), version `UInt32` (1), address `UInt64`, map size `UInt64`, the free tree's and the main tree's records, last page `UInt64`, transaction id `UInt64` |
///
/// Integers are in the machine's byte order; ObjDB reads files on 64-bit little-endian machines.
enum PageFormat {
    /// Size of a page header (`PAGEHDRSZ`).
    static let headerSize = 16
    /// Size of a node header (`NODESIZE`).
    static let nodeHeaderSize = 8
    /// Size of a tree record (`MDB_db`).
    static let treeRecordSize = 48
    /// Offset of the meta record in a meta page.
    static let metaOffset = 16
    /// Size of the meta record (`MDB_meta`).
    static let metaSize = 136
    /// `MDB_MAGIC`.
    static let magic: UInt32 = 0xBEEF_C0DE
    /// `MDB_DATA_VERSION` of LMDB 0.9 releases.
    static let dataVersion: UInt32 = 1
    /// The root page of an empty tree (`P_INVALID`).
    static let invalidPage = UInt64.max
    /// LMDB's longest key (`MDB_MAXKEYSIZE`).
    static let maxKeySize = 511
    /// The number of meta pages at the start of the file.
    static let metaPages = 2

    /// Page flags (`P_*`).
    enum PageFlag {
        static let branch: UInt16 = 0x01
        static let leaf: UInt16 = 0x02
        static let overflow: UInt16 = 0x04
        static let meta: UInt16 = 0x08
        static let leaf2: UInt16 = 0x20
        static let subpage: UInt16 = 0x40
    }

    /// Node flags (`F_*`).
    enum NodeFlag {
        /// The value is on overflow pages; the node holds their first page number.
        static let bigData: UInt16 = 0x01
        /// The value is a tree record: a named table in the main tree, or a tree of duplicates.
        static let subData: UInt16 = 0x02
        /// The key has duplicates: a sub-page, or with ``subData`` a tree of them.
        static let dupData: UInt16 = 0x04
    }

    /// Tree flags (`MDB_db.md_flags`, the persistent `mdb_dbi_open` flags).
    enum TreeFlag {
        static let reverseKey: UInt16 = 0x02
        static let dupSort: UInt16 = 0x04
        static let integerKey: UInt16 = 0x08
        static let dupFixed: UInt16 = 0x10
        static let integerDup: UInt16 = 0x20
        static let reverseDup: UInt16 = 0x40
        /// Every flag a tree record may carry.
        static let all: UInt16 = 0x7E
    }

    /// The number of pages a value of `size` bytes takes on overflow pages (`OVPAGES`).
    static func overflowPages(forValueSize size: Int, pageSize: Int) -> Int {
        (headerSize - 1 + size) / pageSize + 1
    }
}

/// Bounds-checked reads of native-order integers from bytes that may be damaged: a read past the
/// end gives 0 instead of trapping. Callers check every offset against the structure first;
/// this is the second line.
extension UnsafeRawBufferPointer {
    /// The `UInt16` at `offset`, or 0 if it does not lie within the bytes.
    func u16(_ offset: Int) -> UInt16 {
        guard offset >= 0, offset <= count - 2, let base = baseAddress else { return 0 }
        return base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
    }

    /// The `UInt32` at `offset`, or 0 if it does not lie within the bytes.
    func u32(_ offset: Int) -> UInt32 {
        guard offset >= 0, offset <= count - 4, let base = baseAddress else { return 0 }
        return base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
    }

    /// The `UInt64` at `offset`, or 0 if it does not lie within the bytes.
    func u64(_ offset: Int) -> UInt64 {
        guard offset >= 0, offset <= count - 8, let base = baseAddress else { return 0 }
        return base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
    }

    /// The bytes `offset ..< offset + length`, or `nil` if they do not lie within these bytes.
    func slice(_ offset: Int, _ length: Int) -> UnsafeRawBufferPointer? {
        guard offset >= 0, length >= 0, offset <= count, length <= count - offset, let base = baseAddress else {
            return length == 0 ? UnsafeRawBufferPointer(start: nil, count: 0) : nil
        }
        return UnsafeRawBufferPointer(start: base + offset, count: length)
    }
}

/// A tree record (`MDB_db`): the root and statistics of one B-tree.
struct TreeRecord: Equatable, Sendable {
    /// The fixed value size of an `MDB_DUPFIXED` tree of duplicates (and, in the free tree's
    /// record of a meta page, the page size).
    var pad: UInt32
    /// The tree's flags (``PageFormat/TreeFlag``).
    var flags: UInt16
    /// Levels of pages from the root to the leaves; 0 for an empty tree.
    var depth: UInt16
    var branchPages: UInt64
    var leafPages: UInt64
    var overflowPages: UInt64
    /// Key–value pairs, duplicates included.
    var entries: UInt64
    /// The root page, or ``PageFormat/invalidPage`` for an empty tree.
    var root: UInt64

    /// Reads a record from 48 bytes at `offset`; `nil` if they are not there.
    init?(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0) {
        guard bytes.slice(offset, PageFormat.treeRecordSize) != nil else { return nil }
        pad = bytes.u32(offset)
        flags = bytes.u16(offset + 4)
        depth = bytes.u16(offset + 6)
        branchPages = bytes.u64(offset + 8)
        leafPages = bytes.u64(offset + 16)
        overflowPages = bytes.u64(offset + 24)
        entries = bytes.u64(offset + 32)
        root = bytes.u64(offset + 40)
    }

    /// Whether the tree holds nothing.
    var isEmpty: Bool { root == PageFormat.invalidPage }
}

/// A meta page: the root of one committed version of the file.
struct MetaRecord: Equatable, Sendable {
    /// The page (0 or 1) it was read from.
    let pageNumber: Int
    /// The page header's flags (``PageFormat/PageFlag/meta`` on a meta page).
    let pageFlags: UInt16
    let magic: UInt32
    let version: UInt32
    let mapSize: UInt64
    /// The tree of free pages (`FREE_DBI`); its `pad` is the file's page size.
    let freeTree: TreeRecord
    /// The main tree (`MAIN_DBI`), which lists the named tables.
    let mainTree: TreeRecord
    /// The last page in use; the file holds pages `0 ... lastPage` (or fewer: pages that a
    /// transaction allocated and freed again are never written).
    let lastPage: UInt64
    /// The transaction that wrote this meta page.
    let transactionID: UInt64

    /// The page size the meta page declares.
    var pageSize: Int { Int(freeTree.pad) }

    /// Parses the meta record of a meta page; `nil` if the bytes are too short.
    init?(page bytes: UnsafeRawBufferPointer, number: Int) {
        let m = PageFormat.metaOffset
        guard bytes.slice(m, PageFormat.metaSize) != nil,
            let free = TreeRecord(bytes, at: m + 24), let main = TreeRecord(bytes, at: m + 72)
        else { return nil }
        pageNumber = number
        pageFlags = bytes.u16(10)
        magic = bytes.u32(m)
        version = bytes.u32(m + 4)
        mapSize = bytes.u64(m + 16)
        freeTree = free
        mainTree = main
        lastPage = bytes.u64(m + 120)
        transactionID = bytes.u64(m + 128)
    }

    /// Whether LMDB would accept the page as a meta page: its flag, the magic number and the
    /// version (`mdb_env_read_header`).
    var isValid: Bool {
        pageFlags & PageFormat.PageFlag.meta != 0 && magic == PageFormat.magic && version == PageFormat.dataVersion
    }
}
