/// BORROWED: LMDB 0.9's tree and meta records, as its pages store them (`MDB_db` and `MDB_meta`
/// in `mdb.c`; see ``PageFormat`` for the pages, and for who reads them and how).
///
/// | structure | layout |
/// |:--|:--|
/// | tree record `MDB_db` (48 bytes) | pad `UInt32` (the fixed value size of `MDB_DUPFIXED` trees, or the page size in the free tree's record), flags `UInt16`, depth `UInt16`, branch, leaf and overflow page counts, entries, root page, each `UInt64` |
/// | meta page (pages 0 and 1) | after the page header: magic `UInt32` (0xBEEFC0DE), version `UInt32` (1), address `UInt64`, map size `UInt64`, the free tree's and the main tree's records, last page `UInt64`, transaction id `UInt64` |
///
/// Both are read only from bytes that `pread` returned (``PageFile``), bounds-checked; a meta page
/// whose magic number or version is not LMDB 0.9's is not valid (``MetaRecord/isValid``), and the
/// file is refused. They have no fast path, and so no twin.

/// A tree record (`MDB_db`): the root and statistics of one B-tree.
struct TreeRecord: Equatable, Sendable {
    /// The fixed value size of an `MDB_DUPFIXED` tree of duplicates (and, in the free tree's
    /// record of a meta page, the page size).
    var pad: UInt32
    /// The tree's flags (``PageFormat/TreeFlag``).
    var flags: UInt16
    /// Levels of pages from the root to the leaves; 0 for an empty tree.
    var depth: UInt16
    /// Branch pages of the tree.
    var branchPages: UInt64
    /// Leaf pages of the tree.
    var leafPages: UInt64
    /// Overflow pages of the tree's large values.
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
    /// `MDB_MAGIC` on a meta page.
    let magic: UInt32
    /// The data version (`MDB_DATA_VERSION`, 1 in LMDB 0.9).
    let version: UInt32
    /// The map size of the environment that wrote it.
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
        pageFlags = PageFormat.Header(bytes)?.flags ?? 0
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
