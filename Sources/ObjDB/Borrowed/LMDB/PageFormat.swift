/// BORROWED: LMDB 0.9's on-disk page format, the one description of it in ObjDB.
///
/// **What is borrowed.** The layout of LMDB's pages and nodes, which `mdb.c` defines and
/// `lmdb.h` does not publish (`MDB_page`, `MDB_node`, `PAGEHDRSZ`, `NODESIZE`, `P_*`, `F_*`,
/// `NUMKEYS`, `OVPAGES`); the tree and meta records are in ``TreeRecord`` and ``MetaRecord``.
///
/// | structure | layout |
/// |:--|:--|
/// | page header (16 bytes) | page number `UInt64`; `pad` `UInt16` (the key size of a `P_LEAF2` page); flags `UInt16`; then `lower` and `upper` `UInt16` — the end of the table of node offsets and the start of the node area — or, on an overflow page, the number of pages as `UInt32` |
/// | table of node offsets | from byte 16 to `lower`, one `UInt16` per node in key order, each the node's offset from the page start; so a page holds `(lower - 16) / 2` nodes |
/// | node (8-byte header) | `lo`, `hi`, `flags`, `ksize` as `UInt16`, then the key, then (leaf only) the value. A leaf's value size is `lo \| hi << 16` (with `F_BIGDATA` the value is on overflow pages and the node holds their first page number); a branch node's child page is `lo \| hi << 16 \| flags << 32` |
/// | free-page record | a value of the free tree (`MDB_IDL`): a count, then that many page numbers, each `UInt64` |
///
/// Integers are in the machine's byte order. From LMDB 0.9 (`MDB_DATA_VERSION` 1), unchanged
/// across its releases; ObjDB is built and tested against the system's 0.9 (0.9.24 on the
/// reference Linux image).
///
/// **Who reads it, and how each read is verified at run time.**
/// - The in-place leaf reader (``LeafPage``, for ``RowWalk``) reads pages in the memory map only
///   where ``LMDBRelease/hasVersion09Layout`` holds (a release of 0.9 on a 64-bit little-endian
///   machine) and the file's page size allows it, and uses a page only after the entry the cursor
///   returned is found on it at the exact address LMDB gave; every further node is
///   bounds-checked, and every page must put the map at the same address (``mapStart(ofPageAt:number:pageSize:)``).
/// - The page checker (``FileWalk``, ``StructureCheck``, ``MetaPages``) reads the file with
///   `pread` and trusts no byte before checking it against the page; a file whose meta pages do
///   not carry LMDB 0.9's magic number and data version is refused (``MetaRecord/isValid``).
/// - The check of values off their leaf page (``Environment/inFile(key:value:)``) reads a leaf's
///   page number and a node's flags from the page LMDB handed out. It runs whatever LMDB's
///   version (it guards against damaged files, not a fast path).
///
/// **Fast path and slow twin.** ``FastPaths/leafPages``: with it off, table walks step the
/// cursor row by row; with internal checks, every page read in place is compared with the
/// cursor's rows (``RowWalk/checkAgainstCursor(_:_:standingAt:)``). The page checker has no
/// twin: it is itself the slow, checked reader (LMDB's own reads assert on damaged pages).
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
        /// `P_BRANCH`: an inner page of a tree, whose nodes point at child pages.
        static let branch: UInt16 = 0x01
        /// `P_LEAF`: a page of a tree's entries.
        static let leaf: UInt16 = 0x02
        /// `P_OVERFLOW`: the first page of a value too large for its leaf.
        static let overflow: UInt16 = 0x04
        /// `P_META`: page 0 or 1.
        static let meta: UInt16 = 0x08
        /// `P_DIRTY`: a page a write transaction changed; LMDB may leave it set on sub-pages.
        static let dirty: UInt16 = 0x10
        /// `P_LEAF2`: a leaf of fixed-size keys without nodes (duplicates of `MDB_DUPFIXED` tables).
        static let leaf2: UInt16 = 0x20
        /// `P_SUBP`: a sub-page of duplicates inside a leaf node.
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
        /// `MDB_REVERSEKEY`: keys compare from their last byte.
        static let reverseKey: UInt16 = 0x02
        /// `MDB_DUPSORT`: a key may have several values, kept sorted.
        static let dupSort: UInt16 = 0x04
        /// `MDB_INTEGERKEY`: keys are native `UInt32` or `UInt64`.
        static let integerKey: UInt16 = 0x08
        /// `MDB_DUPFIXED`: a key's values all have one size.
        static let dupFixed: UInt16 = 0x10
        /// `MDB_INTEGERDUP`: values are native integers.
        static let integerDup: UInt16 = 0x20
        /// `MDB_REVERSEDUP`: values compare from their last byte.
        static let reverseDup: UInt16 = 0x40
        /// Every flag a tree record may carry.
        static let all: UInt16 = 0x7E
    }

    /// The number of pages a value of `size` bytes takes on overflow pages (`OVPAGES`).
    static func overflowPages(forValueSize size: Int, pageSize: Int) -> Int {
        (headerSize - 1 + size) / pageSize + 1
    }

    // MARK: Pages

    /// A page header.
    struct Header {
        /// The page's number.
        let number: UInt64
        /// `mp_pad`: on a `P_LEAF2` page (fixed-size keys), the size of each key.
        let pad: UInt16
        /// The page's flags (``PageFlag``).
        let flags: UInt16
        /// `mp_lower`: where the table of node offsets ends.
        let lower: Int
        /// `mp_upper`: where the node area starts.
        let upper: Int

        /// The header of the page at `page`, whose first ``PageFormat/headerSize`` bytes the
        /// caller knows to be readable.
        @inline(__always)
        init(at page: UnsafeRawPointer) {
            number = page.loadUnaligned(as: UInt64.self)
            pad = page.loadUnaligned(fromByteOffset: 8, as: UInt16.self)
            flags = page.loadUnaligned(fromByteOffset: 10, as: UInt16.self)
            lower = Int(page.loadUnaligned(fromByteOffset: 12, as: UInt16.self))
            upper = Int(page.loadUnaligned(fromByteOffset: 14, as: UInt16.self))
        }

        /// The header at the start of `bytes`, or `nil` if they are shorter than a header.
        init?(_ bytes: UnsafeRawBufferPointer) {
            guard let start = bytes.slice(0, PageFormat.headerSize)?.baseAddress else { return nil }
            self.init(at: start)
        }

        /// The number of nodes (`NUMKEYS`), if `lower` and `upper` are possible for a page (or
        /// sub-page) of `limit` bytes: `lower` at or past the header and even, at most `upper`,
        /// and `upper` at most `limit`. A page may read as holding no nodes.
        @inline(__always)
        func nodeCount(limit: Int) -> Int? {
            guard lower >= PageFormat.headerSize, lower & 1 == 0, lower <= upper, upper <= limit else { return nil }
            return (lower - PageFormat.headerSize) / 2
        }

        /// On an overflow page, the number of pages its value spans (`mp_pages`, where other
        /// pages have `lower` and `upper`).
        var overflowPageCount: UInt32 { UInt32(truncatingIfNeeded: lower) | UInt32(truncatingIfNeeded: upper) << 16 }
    }

    /// Where the offset of node `index` is stored, from the page start: the table of node
    /// offsets follows the header.
    @inline(__always)
    static func nodeOffsetSlot(_ index: Int) -> Int {
        headerSize &+ 2 &* index
    }

    /// Whether `length` bytes at `offset` lie in the node area of a page of `limit` bytes whose
    /// node area starts at `upper`.
    @inline(__always)
    static func nodeArea(upper: Int, limit: Int, holds offset: Int, length: Int) -> Bool {
        offset >= upper && offset + length <= limit
    }

    // MARK: Nodes

    /// A node's header, read as one word.
    struct Node {
        /// The header as one native word: the value size (`mn_lo | mn_hi << 16`) or a branch's
        /// child page in bits 0–31, the flags (`mn_flags`) in bits 32–47 (also the child page's
        /// bits 32–47 on a branch page), the key size (`mn_ksize`) in bits 48–63.
        let header: UInt64

        /// The header of the node at `node`, whose first ``PageFormat/nodeHeaderSize`` bytes the
        /// caller knows to be readable.
        @inline(__always)
        init(at node: UnsafeRawPointer) {
            header = node.loadUnaligned(as: UInt64.self)
        }

        /// The header of the node at `offset` of `bytes`, or `nil` if it does not lie within them.
        init?(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
            guard let start = bytes.slice(offset, PageFormat.nodeHeaderSize)?.baseAddress else { return nil }
            self.init(at: start)
        }

        /// On a leaf page, the value's size (the size on overflow pages with ``NodeFlag/bigData``).
        var dataSize: Int { Int(truncatingIfNeeded: header & 0xFFFF_FFFF) }
        /// The node's flags (``NodeFlag``).
        var flags: UInt16 { UInt16(truncatingIfNeeded: header >> 32) }
        /// The key's size; the key follows the header.
        var keySize: Int { Int(truncatingIfNeeded: header >> 48) }
        /// On a branch page, the child page.
        var childPage: UInt64 { header & 0xFFFF_FFFF_FFFF }
        /// The flags and the key size together (the header's upper half), to compare with
        /// ``shape(flags:keySize:)`` in one step.
        var shape: UInt64 { header >> 32 }

        /// The upper half of the header of a node with `flags` and a key of `keySize` bytes.
        @inline(__always)
        static func shape(flags: UInt16, keySize: Int) -> UInt64 {
            UInt64(truncatingIfNeeded: keySize) << 16 | UInt64(flags)
        }

        /// The flags of the node whose key LMDB handed out at `key` (a pointer into its page).
        @inline(__always)
        static func flags(ofKeyAt key: UnsafeRawPointer) -> UInt16 {
            Node(at: key - PageFormat.nodeHeaderSize).flags
        }
    }

    // MARK: The memory map

    /// The start of the page that holds `address` in a memory map of pages of `pageSize` bytes
    /// (a power of two): LMDB maps the file at a page-aligned address.
    @inline(__always)
    static func pageStart(holding address: UnsafeRawPointer, pageSize: Int) -> UnsafeRawPointer? {
        UnsafeRawPointer(bitPattern: UInt(bitPattern: address) & ~UInt(pageSize - 1))
    }

    /// Where page 0 lies if the page at `page` is page `number` of the memory map: the map's
    /// start; `nil` if `number` pages of `pageSize` bytes do not fit below `page`.
    @inline(__always)
    static func mapStart(ofPageAt page: UnsafeRawPointer, number: UInt64, pageSize: Int) -> UInt? {
        let (distance, overflow) = UInt(truncatingIfNeeded: number).multipliedReportingOverflow(by: UInt(pageSize))
        guard !overflow, distance <= UInt(bitPattern: page) else { return nil }
        return UInt(bitPattern: page) - distance
    }

    // MARK: The free-page tree

    /// A value of the free-page tree (`MDB_IDL`): the number of pages, then each page number.
    struct FreePageList {
        private let bytes: UnsafeRawBufferPointer

        /// The list in `bytes`.
        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        /// The number of pages the list says it holds.
        var count: UInt64 { bytes.u64(0) }
        /// Whether the bytes are whole words and hold the ``count`` pages the list says.
        var isWhole: Bool { bytes.count >= 8 && bytes.count % 8 == 0 && count <= UInt64(bytes.count / 8 - 1) }
        /// Page `index` (below ``count``).
        func page(_ index: Int) -> UInt64 { bytes.u64(8 * (index + 1)) }
    }
}
