/// A named table of the main tree: its name and tree record.
struct NamedTree: Sendable {
    /// The table's name (`meta`, `c3`, `c3.pk`, …).
    let name: String
    /// Its tree record.
    let record: TreeRecord
}

/// Walks the B-trees of one committed version of an LMDB file page by page, with bounds-checked
/// reads of its own (``PageFile``), never through LMDB's cursors, which assert on damaged pages
/// and abort the process.
///
/// It checks every page it reaches: the header (number, flags, bounds), every node (offsets,
/// sizes, flags), the order of keys and duplicates, the range each branch gives its children,
/// overflow pages, sub-pages and trees of duplicates, and each tree's page and entry counts
/// against its record. A page that does not check out is reported and not descended into.
/// Pages are counted once each, so that a page reached twice, or both in a tree and in the
/// free list, is reported, and at the end every page of the version must be in a tree, in the
/// free list, or a meta page (``finishAccounting()``).
///
/// Problems go to ``report``; entries go to the visitor a walk is given, one call per key and
/// value (per duplicate in `MDB_DUPSORT` tables).
final class FileWalk {
    /// The file.
    let file: PageFile
    /// The meta page of the version walked.
    let meta: MetaRecord
    /// The file's page size.
    let pageSize: Int
    /// What the walk found.
    var report: VerificationReport
    /// Pages reached so far, for the accounting. (Unchecked exclusivity: only this walk's own
    /// methods, one at a time, touch it; the dynamic check cost more than the insert.)
    @exclusivity(unchecked) private var used: PageSet
    /// Set when some page could not be reached, so that the page count is expected to fall short.
    private var incomplete = false
    /// The cipher of an encrypted file, for the checks of what its tables hold
    /// (``walkOpened(_:visit:failed:)``); `nil` for a plain file, or when no key was given.
    var cipher: StoreCipher?
    /// The row buckets of an encrypted file (``readBuckets(_:)``), for
    /// ``walkOpened(_:visit:failed:)``.
    var buckets: StoredBuckets?

    /// The most levels a tree may have (LMDB's cursor stack).
    static let maximumDepth = 32

    init(file: PageFile, meta: MetaRecord, report: VerificationReport) {
        self.file = file
        self.meta = meta
        self.pageSize = meta.pageSize
        self.report = report
        var set = PageSet(limit: meta.lastPage)
        _ = set.insert(0)
        _ = set.insert(1)
        used = set
        self.report.pagesChecked += PageFormat.metaPages
    }

    private func problem(_ kind: VerificationProblem.Kind, _ message: String, tree: String?, page: UInt64? = nil) {
        report.add(VerificationProblem(kind, message, table: tree, page: page.map { Int(truncatingIfNeeded: $0) }))
    }

    // MARK: Trees

    /// Walks the tree of free pages and counts the pages it lists.
    func walkFreeTree(readingLeaves: Bool = true) {
        let tree = "(free pages)"
        if meta.freeTree.flags & PageFormat.TreeFlag.integerKey == 0 && !meta.freeTree.isEmpty {
            problem(.metaPage, "The free-page tree is not keyed by integers", tree: tree, page: UInt64(meta.pageNumber))
        }
        walk(meta.freeTree, name: tree, readingLeaves: readingLeaves) { key, value in
            self.countFreePages(value, tree: tree, key: key)
        }
    }

    /// Walks the main tree and returns the named tables it lists, and the keys of entries that
    /// are not named tables.
    func walkMainTree() -> (tables: [NamedTree], otherKeys: [String]) {
        var tables: [NamedTree] = []
        var others: [String] = []
        let tree = "(main)"
        walk(meta.mainTree, name: tree, readingLeaves: true, namedTables: true) { key, value in
            let name = String(decoding: key, as: UTF8.self)
            if let record = TreeRecord(value), value.count == PageFormat.treeRecordSize {
                tables.append(NamedTree(name: name, record: record))
            } else {
                others.append(name)
            }
        }
        return (tables, others)
    }

    /// Walks a named table, calling `visit` with each key and value (each duplicate of a key in an
    /// `MDB_DUPSORT` table). Without `readingLeaves`, only branch pages are read: leaf pages are
    /// checked to lie within the file and counted, and `visit` is not called.
    func walk(_ table: NamedTree, readingLeaves: Bool = true, visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) {
        if table.record.flags & ~PageFormat.TreeFlag.all != 0 {
            problem(.page, "The table's record has unknown flags \(table.record.flags)", tree: table.name)
        }
        walk(table.record, name: table.name, readingLeaves: readingLeaves, visit: visit)
    }

    /// After every tree was walked: every page up to the last must have been reached exactly once.
    func finishAccounting() {
        guard !incomplete else { return }
        let expected = meta.lastPage + 1
        let reached = UInt64(used.population)
        if reached < expected {
            problem(
                .accounting,
                "\(expected - reached) of the version's \(expected) pages are in no tree and not in the free list",
                tree: nil)
        }
    }

    /// After every tree was walked, leaves or not, and the free tree in full: the pages past the
    /// end of the file must all be free (a transaction that allocates and frees a page never
    /// writes it). Any other missing page is a leaf's overflow page, unread at open: the file
    /// was cut short.
    func checkFileCoversVersion() {
        let filePages = UInt64(file.fileSize) / UInt64(pageSize)
        guard filePages <= meta.lastPage else { return }
        let missing = meta.lastPage + 1 - filePages
        let allFree = missing <= UInt64(used.population) && (filePages...meta.lastPage).allSatisfy { used.contains($0) }
        if !allFree {
            problem(
                .page,
                "The file ends at page \(filePages) but its version uses pages up to \(meta.lastPage): the file is truncated",
                tree: nil)
        }
    }

    // MARK: Walking one tree

    /// The shape of the tree being walked.
    private struct Shape {
        let name: String
        let keys: KeyOrder
        let duplicates: KeyOrder
        let dupSort: Bool
        let dupFixed: Bool
        /// A tree of one key's duplicates: its keys are the values, its leaves carry no data.
        let isDuplicateTree: Bool
        /// The key size of `P_LEAF2` leaves (trees of duplicates of `MDB_DUPFIXED` tables), else 0.
        let fixedSize: Int
        let depth: Int
        let readsLeaves: Bool
        /// The main tree, whose `F_SUBDATA` entries are named tables.
        let namedTables: Bool
    }

    /// Counts of what a walk found, compared with the tree's record.
    private struct Tally {
        var branchPages: UInt64 = 0
        var leafPages: UInt64 = 0
        var overflowPages: UInt64 = 0
        var entries: UInt64 = 0
    }

    private func walk(
        _ record: TreeRecord, name: String, readingLeaves: Bool, namedTables: Bool = false,
        visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void
    ) {
        let shape = Shape(
            name: name, keys: KeyOrder(keysOf: record.flags), duplicates: KeyOrder(duplicatesOf: record.flags),
            dupSort: record.flags & PageFormat.TreeFlag.dupSort != 0,
            dupFixed: record.flags & PageFormat.TreeFlag.dupFixed != 0,
            isDuplicateTree: false, fixedSize: 0, depth: Int(record.depth), readsLeaves: readingLeaves,
            namedTables: namedTables)
        var tally = Tally()
        walkTree(record, shape, &tally) { key, value in visit(key, value) }
    }

    /// Walks a tree from its record and checks the record's counts.
    private func walkTree(
        _ record: TreeRecord, _ shape: Shape, _ tally: inout Tally,
        visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void
    ) {
        if record.isEmpty {
            if record.depth != 0 || record.entries != 0 || record.branchPages != 0 || record.leafPages != 0 || record.overflowPages != 0 {
                problem(.accounting, "An empty tree's record has non-zero counts", tree: shape.name)
            }
            return
        }
        guard record.depth >= 1, Int(record.depth) <= Self.maximumDepth else {
            problem(.accounting, "The tree's depth \(record.depth) is impossible", tree: shape.name)
            incomplete = true
            return
        }
        let before = report.problems.count + report.omittedProblems
        walkPage(record.root, level: 1, low: nil, high: nil, shape, &tally, visit: visit)
        // Counts are compared only when the walk reached everything without a problem.
        guard shape.readsLeaves, report.problems.count + report.omittedProblems == before else { return }
        if tally.branchPages != record.branchPages || tally.leafPages != record.leafPages
            || tally.overflowPages != record.overflowPages
        {
            problem(
                .accounting,
                "The tree has \(tally.branchPages) branch, \(tally.leafPages) leaf and \(tally.overflowPages) overflow pages, its record says \(record.branchPages), \(record.leafPages) and \(record.overflowPages)",
                tree: shape.name)
        }
        if tally.entries != record.entries {
            problem(.accounting, "The tree has \(tally.entries) entries, its record says \(record.entries)", tree: shape.name)
        }
    }

    /// Claims page `number` (and the `count - 1` overflow pages after it) for a tree: it must lie
    /// after the meta pages, up to the last page, within the file, and not be claimed yet.
    private func claim(_ number: UInt64, count: UInt64 = 1, tree: String) -> Bool {
        guard locate(number, count: count, tree: tree) else { return false }
        for page in number...(number + count - 1) where !used.insert(page) {
            problem(.accounting, "Page \(page) is used twice", tree: tree, page: page)
            return false
        }
        return true
    }

    /// Checks that page `number` (and the `count - 1` overflow pages after it) lie after the meta
    /// pages, up to the last page, and within the file.
    private func locate(_ number: UInt64, count: UInt64 = 1, tree: String) -> Bool {
        let (last, overflow) = number.addingReportingOverflow(count - 1)
        guard number >= UInt64(PageFormat.metaPages), !overflow, last <= meta.lastPage else {
            problem(.page, "A reference to page \(number) lies outside the version's pages 2…\(meta.lastPage)", tree: tree, page: number)
            incomplete = true
            return false
        }
        guard file.contains(pages: number, count: count, pageSize: pageSize) else {
            problem(
                .accounting,
                "Page \(number) lies past the end of the file (\(file.fileSize) bytes): the file is truncated",
                tree: tree, page: number)
            incomplete = true
            return false
        }
        return true
    }

    /// Reads a claimed page and checks that its header carries its number.
    private func readPage(_ number: UInt64, tree: String) -> [UInt8]? {
        let bytes: [UInt8]?
        do {
            bytes = try file.page(number, pageSize: pageSize)
        } catch {
            problem(.page, "Page \(number) cannot be read: \(error)", tree: tree, page: number)
            return nil
        }
        guard let bytes else {
            problem(.accounting, "Page \(number) lies past the end of the file: the file is truncated", tree: tree, page: number)
            return nil
        }
        report.pagesChecked += 1
        let stored = bytes.withUnsafeBytes { PageFormat.Header($0)?.number ?? 0 }
        guard stored == number else {
            problem(.page, "Page \(number) carries the number \(stored) in its header", tree: tree, page: number)
            return nil
        }
        return bytes
    }

    private func walkPage(
        _ number: UInt64, level: Int, low: UnsafeRawBufferPointer?, high: UnsafeRawBufferPointer?, _ shape: Shape, _ tally: inout Tally,
        visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void
    ) {
        guard claim(number, tree: shape.name) else { return }
        guard let page = readPage(number, tree: shape.name) else {
            incomplete = true
            return
        }
        page.withUnsafeBytes { p in
            let header = PageFormat.Header(p)
            let flags = header?.flags ?? 0
            let isLeafLevel = level == shape.depth
            let expected = isLeafLevel
                ? PageFormat.PageFlag.leaf | (shape.fixedSize > 0 ? PageFormat.PageFlag.leaf2 : 0)
                : PageFormat.PageFlag.branch
            guard let header, flags == expected else {
                problem(
                    .page,
                    "Page \(number) has flags 0x\(String(flags, radix: 16)) where a \(isLeafLevel ? "leaf" : "branch") page of level \(level) of \(shape.depth) belongs",
                    tree: shape.name, page: number)
                incomplete = true
                return
            }
            guard let count = nodeCount(header, limit: pageSize, page: number, tree: shape.name) else {
                incomplete = true
                return
            }
            if isLeafLevel {
                tally.leafPages += 1
                if shape.fixedSize > 0 {
                    walkFixedLeaf(p, count: count, page: number, low: low, high: high, shape, &tally, visit: visit)
                } else {
                    walkLeaf(p, header, count: count, page: number, low: low, high: high, shape, &tally, visit: visit)
                }
            } else {
                tally.branchPages += 1
                walkBranch(p, header, count: count, page: number, level: level, low: low, high: high, shape, &tally, visit: visit)
            }
        }
    }

    /// The node count of a page (or sub-page) of `limit` bytes (``PageFormat/Header/nodeCount(limit:)``),
    /// at least 1.
    private func nodeCount(_ header: PageFormat.Header, limit: Int, page: UInt64, tree: String) -> Int? {
        guard let count = header.nodeCount(limit: limit) else {
            problem(.page, "Page \(page) has impossible bounds (lower \(header.lower), upper \(header.upper))", tree: tree, page: page)
            return nil
        }
        guard count >= 1 else {
            problem(.page, "Page \(page) holds no entries", tree: tree, page: page)
            return nil
        }
        return count
    }

    /// The node at `index` of a page or sub-page: its offset, checked to lie in the node area
    /// with room for its header, and its header.
    private func node(
        _ p: UnsafeRawBufferPointer, _ header: PageFormat.Header, _ index: Int, page: UInt64, tree: String
    ) -> (offset: Int, node: PageFormat.Node)? {
        let offset = Int(p.u16(PageFormat.nodeOffsetSlot(index)))
        guard PageFormat.nodeArea(upper: header.upper, limit: p.count, holds: offset, length: PageFormat.nodeHeaderSize),
            let node = PageFormat.Node(p, at: offset)
        else {
            problem(.page, "Node \(index) of page \(page) lies outside the page's node area (offset \(offset))", tree: tree, page: page)
            return nil
        }
        return (offset, node)
    }

    /// Checks that `key` may be in the tree and comes after `previous` and within `low ..< high`.
    private func checkOrder(
        _ key: UnsafeRawBufferPointer, previous: UnsafeRawBufferPointer?, low: UnsafeRawBufferPointer?, high: UnsafeRawBufferPointer?,
        order: KeyOrder, page: UInt64, what: String, tree: String
    ) -> Bool {
        guard order.accepts(size: key.count) else {
            problem(.page, "A \(what) of \(key.count) bytes on page \(page) cannot be in this table", tree: tree, page: page)
            return false
        }
        if let previous, order.compare(previous, key) >= 0 {
            problem(.keyOrder, "The \(what)s of page \(page) are not in ascending order", tree: tree, page: page)
            return false
        }
        if let low, order.compare(low, key) > 0 {
            problem(.keyOrder, "A \(what) on page \(page) sorts before the range its parent page gives it", tree: tree, page: page)
            return false
        }
        if let high, order.compare(key, high) >= 0 {
            problem(.keyOrder, "A \(what) on page \(page) sorts after the range its parent page gives it", tree: tree, page: page)
            return false
        }
        return true
    }

    private func walkBranch(
        _ p: UnsafeRawBufferPointer, _ header: PageFormat.Header, count: Int, page: UInt64, level: Int, low: UnsafeRawBufferPointer?, high: UnsafeRawBufferPointer?,
        _ shape: Shape, _ tally: inout Tally, visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void
    ) {
        // The keys point into `p`, which stays valid while the children are walked (they are
        // walked inside the parent's `withUnsafeBytes`): no copy of a key per child.
        var children: [(page: UInt64, key: UnsafeRawBufferPointer)] = []
        children.reserveCapacity(count)
        var previous: UnsafeRawBufferPointer?
        let order = shape.isDuplicateTree ? shape.duplicates : shape.keys
        for index in 0..<count {
            guard let (offset, node) = node(p, header, index, page: page, tree: shape.name) else {
                incomplete = true
                return
            }
            guard let key = p.slice(offset + PageFormat.nodeHeaderSize, node.keySize) else {
                problem(.page, "The key of node \(index) of branch page \(page) runs past the page", tree: shape.name, page: page)
                incomplete = true
                return
            }
            // The first node's key is not used: the first child holds everything below the second key.
            if index > 0 {
                // `low` only for the first key: the later ones sort after it (checked against `previous`).
                guard checkOrder(key, previous: previous, low: previous == nil ? low : nil, high: high, order: order, page: page, what: "key", tree: shape.name)
                else {
                    incomplete = true
                    return
                }
                previous = key
            }
            children.append((node.childPage, key))
        }
        for (index, child) in children.enumerated() {
            let childLow = index == 0 ? low : child.key
            let childHigh = index == children.count - 1 ? high : children[index + 1].key
            if level + 1 == shape.depth && !shape.readsLeaves {
                // Structure only: the leaf must exist in the file, and is counted as used; it is
                // not read.
                if claim(child.page, tree: shape.name) { tally.leafPages += 1 }
            } else {
                walkPage(child.page, level: level + 1, low: childLow, high: childHigh, shape, &tally, visit: visit)
            }
        }
    }

    private func walkLeaf(
        _ p: UnsafeRawBufferPointer, _ header: PageFormat.Header, count: Int, page: UInt64, low: UnsafeRawBufferPointer?, high: UnsafeRawBufferPointer?,
        _ shape: Shape, _ tally: inout Tally, visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void
    ) {
        var previous: UnsafeRawBufferPointer?
        let order = shape.isDuplicateTree ? shape.duplicates : shape.keys
        for index in 0..<count {
            guard let (offset, node) = node(p, header, index, page: page, tree: shape.name) else {
                incomplete = true
                return
            }
            let dataSize = node.dataSize
            let flags = node.flags
            let keySize = node.keySize
            let keyStart = offset + PageFormat.nodeHeaderSize
            guard let key = p.slice(keyStart, keySize) else {
                problem(.page, "The key of node \(index) of leaf page \(page) runs past the page", tree: shape.name, page: page)
                incomplete = true
                return
            }
            guard checkOrder(key, previous: previous, low: previous == nil ? low : nil, high: high, order: order, page: page,
                             what: shape.isDuplicateTree ? "value" : "key", tree: shape.name)
            else {
                incomplete = true
                return
            }
            previous = key
            if shape.isDuplicateTree {
                // The keys of a tree of duplicates are the values; its nodes carry no data.
                guard flags == 0, dataSize == 0 else {
                    problem(.page, "Node \(index) of page \(page) in a tree of duplicates carries data", tree: shape.name, page: page)
                    incomplete = true
                    return
                }
                tally.entries += 1
                visit(key, key)
                continue
            }
            let inPlaceSize = flags & PageFormat.NodeFlag.bigData != 0 ? 8 : dataSize
            guard let data = p.slice(keyStart + keySize, inPlaceSize) else {
                problem(.page, "The value of node \(index) of leaf page \(page) runs past the page", tree: shape.name, page: page)
                incomplete = true
                return
            }
            leafValue(key: key, data: data, dataSize: dataSize, flags: flags, page: page, shape, &tally, visit: visit)
        }
    }

    /// Interprets one leaf node's value by its flags and visits the entries it holds.
    private func leafValue(
        key: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer, dataSize: Int, flags: UInt16, page: UInt64,
        _ shape: Shape, _ tally: inout Tally, visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void
    ) {
        let big = PageFormat.NodeFlag.bigData, sub = PageFormat.NodeFlag.subData, dup = PageFormat.NodeFlag.dupData
        switch flags {
        case 0:
            tally.entries += 1
            visit(key, data)
        case big:
            guard let value = overflowValue(start: data.u64(0), size: dataSize, shape.name, &tally) else {
                incomplete = true
                return
            }
            tally.entries += 1
            value.withUnsafeBytes { visit(key, $0) }
        case sub where shape.namedTables:
            tally.entries += 1
            visit(key, data)
        case dup where shape.dupSort:
            subpageValues(key: key, data: data, page: page, shape, &tally, visit: visit)
        case dup | sub where shape.dupSort:
            guard data.count == PageFormat.treeRecordSize, let record = TreeRecord(data) else {
                problem(.page, "A tree of duplicates on page \(page) has a record of \(data.count) bytes", tree: shape.name, page: page)
                incomplete = true
                return
            }
            let fixed = shape.dupFixed ? Int(record.pad) : 0
            guard !shape.dupFixed || (fixed > 0 && fixed <= PageFormat.maxKeySize) else {
                problem(.page, "A tree of duplicates on page \(page) has the value size \(fixed)", tree: shape.name, page: page)
                incomplete = true
                return
            }
            let duplicates = Shape(
                name: shape.name, keys: shape.duplicates, duplicates: shape.duplicates, dupSort: false, dupFixed: shape.dupFixed,
                isDuplicateTree: true, fixedSize: fixed, depth: Int(record.depth), readsLeaves: true, namedTables: false)
            var own = Tally()
            walkTree(record, duplicates, &own) { value, _ in visit(key, value) }
            tally.entries += own.entries
        default:
            problem(.page, "A node on page \(page) has flags 0x\(String(flags, radix: 16)), which this table cannot have", tree: shape.name, page: page)
            incomplete = true
        }
    }

    /// Visits the duplicates stored in a sub-page (a node's value in an `MDB_DUPSORT` table).
    private func subpageValues(
        key: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer, page: UInt64, _ shape: Shape, _ tally: inout Tally,
        visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void
    ) {
        let header = PageFormat.Header(data)
        // `P_DIRTY` may be left set on sub-pages.
        let flags = (header?.flags ?? 0) & ~PageFormat.PageFlag.dirty
        let expected = PageFormat.PageFlag.leaf | PageFormat.PageFlag.subpage | (shape.dupFixed ? PageFormat.PageFlag.leaf2 : 0)
        guard let header, flags == expected, let count = nodeCount(header, limit: data.count, page: page, tree: shape.name) else {
            if header == nil || flags != expected {
                problem(.page, "A sub-page of duplicates on page \(page) has a damaged header", tree: shape.name, page: page)
            }
            incomplete = true
            return
        }
        var previous: UnsafeRawBufferPointer?
        for index in 0..<count {
            let value: UnsafeRawBufferPointer?
            if shape.dupFixed {
                let size = Int(header.pad)
                value = size > 0 ? data.slice(PageFormat.headerSize + index * size, size) : nil
            } else {
                let offset = Int(data.u16(PageFormat.nodeOffsetSlot(index)))
                let inNodeArea = PageFormat.nodeArea(upper: header.upper, limit: data.count, holds: offset, length: PageFormat.nodeHeaderSize)
                value = inNodeArea ? PageFormat.Node(data, at: offset).flatMap { data.slice(offset + PageFormat.nodeHeaderSize, $0.keySize) } : nil
            }
            guard let value else {
                problem(.page, "Duplicate \(index) of a sub-page on page \(page) lies outside it", tree: shape.name, page: page)
                incomplete = true
                return
            }
            guard checkOrder(value, previous: previous, low: nil, high: nil, order: shape.duplicates, page: page, what: "value", tree: shape.name)
            else {
                incomplete = true
                return
            }
            previous = value
            tally.entries += 1
            visit(key, value)
        }
    }

    /// The value stored on the overflow pages starting at `start`.
    private func overflowValue(start: UInt64, size: Int, _ tree: String, _ tally: inout Tally) -> [UInt8]? {
        let pages = UInt64(PageFormat.overflowPages(forValueSize: size, pageSize: pageSize))
        guard claim(start, count: pages, tree: tree) else { return nil }
        guard let header = readPage(start, tree: tree) else { return nil }
        report.pagesChecked += Int(pages) - 1
        let (flags, declared) = header.withUnsafeBytes { bytes in
            PageFormat.Header(bytes).map { ($0.flags, $0.overflowPageCount) } ?? (0, 0)
        }
        guard flags == PageFormat.PageFlag.overflow, UInt64(declared) == pages else {
            problem(
                .page, "Overflow page \(start) has flags 0x\(String(flags, radix: 16)) and \(declared) pages; its value needs \(pages)",
                tree: tree, page: start)
            return nil
        }
        tally.overflowPages += pages
        do {
            guard let value = try file.read(offset: Int(start) * pageSize + PageFormat.headerSize, count: size) else {
                problem(.accounting, "The value on overflow page \(start) runs past the end of the file", tree: tree, page: start)
                return nil
            }
            return value
        } catch {
            problem(.page, "Overflow page \(start) cannot be read: \(error)", tree: tree, page: start)
            return nil
        }
    }

    /// Claims the pages of one record of the free tree: a list of page numbers, its count first.
    private func countFreePages(_ value: UnsafeRawBufferPointer, tree: String, key: UnsafeRawBufferPointer) {
        let list = PageFormat.FreePageList(value)
        guard list.isWhole else {
            problem(.page, "A free-page record of \(value.count) bytes lists \(list.count) pages", tree: tree)
            incomplete = true
            return
        }
        for i in 0..<Int(list.count) {
            let page = list.page(i)
            guard page >= UInt64(PageFormat.metaPages), page <= meta.lastPage else {
                problem(.page, "The free list holds page \(page), outside the version's pages 2…\(meta.lastPage)", tree: tree, page: page)
                incomplete = true
                continue
            }
            // Free pages need not be in the file: pages freed by the transaction that allocated
            // them are never written.
            if !used.insert(page) {
                problem(.accounting, "Page \(page) is both free and in use, or free twice", tree: tree, page: page)
            }
        }
    }

    /// Visits the values of a `P_LEAF2` page: fixed-size keys of a tree of duplicates.
    private func walkFixedLeaf(
        _ p: UnsafeRawBufferPointer, count: Int, page: UInt64, low: UnsafeRawBufferPointer?, high: UnsafeRawBufferPointer?,
        _ shape: Shape, _ tally: inout Tally, visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void
    ) {
        let size = shape.fixedSize
        guard PageFormat.headerSize + count * size <= pageSize else {
            problem(.page, "Page \(page) lists \(count) values of \(size) bytes, more than it holds", tree: shape.name, page: page)
            incomplete = true
            return
        }
        var previous: UnsafeRawBufferPointer?
        for index in 0..<count {
            guard let value = p.slice(PageFormat.headerSize + index * size, size),
                checkOrder(value, previous: previous, low: previous == nil ? low : nil, high: high, order: shape.duplicates, page: page, what: "value", tree: shape.name)
            else {
                incomplete = true
                return
            }
            previous = value
            tally.entries += 1
            visit(value, value)
        }
    }
}
