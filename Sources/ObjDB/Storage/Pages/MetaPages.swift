/// The two meta pages of a file, read as LMDB reads them (`mdb_env_read_header`): page 0 at
/// offset 0, page 1 at the page size page 0 declares.
struct MetaPages {
    /// Page 0 and page 1, each `nil` if the file is too short to hold it.
    let pages: [MetaRecord?]

    /// Reads both meta pages of `file`.
    init(_ file: PageFile) throws {
        let size = PageFormat.metaOffset + PageFormat.metaSize
        let first = try file.read(offset: 0, count: size).flatMap { bytes in
            bytes.withUnsafeBytes { MetaRecord(page: $0, number: 0) }
        }
        var second: MetaRecord?
        if let first, Self.isPlausible(pageSize: first.pageSize) {
            second = try file.read(offset: first.pageSize, count: size).flatMap { bytes in
                bytes.withUnsafeBytes { MetaRecord(page: $0, number: 1) }
            }
        }
        pages = [first, second]
    }

    /// Why `file` is no database file at all, or `nil` if it may be one: it is empty, or it has
    /// LMDB's magic number neither in the first meta page nor where any page size would put the
    /// second. A database whose first meta page is damaged still has the second one: it is a
    /// damaged database, not a foreign file.
    static func foreignFileReason(_ file: PageFile) throws -> String? {
        guard file.fileSize > 0 else { return "it is empty" }
        var offsets = [0]
        var size = 512
        while size <= 65_536 {
            offsets.append(size)
            size *= 2
        }
        for offset in offsets {
            guard let bytes = try file.read(offset: offset + PageFormat.metaOffset, count: 4) else { continue }
            if bytes.withUnsafeBytes({ $0.u32(0) }) == PageFormat.magic { return nil }
        }
        return "it has no LMDB meta page where a database file has one (it holds text, random bytes or another format)"
    }

    /// Whether `size` can be an LMDB page size: a power of two from 512 bytes to 64 KiB.
    static func isPlausible(pageSize size: Int) -> Bool {
        size >= 512 && size <= 65_536 && size & (size - 1) == 0
    }

    /// What is wrong with the meta pages in LMDB's eyes (it refuses the file if either is not a
    /// valid meta page), or `nil` if both are valid.
    var problem: VerificationProblem? {
        for (number, page) in pages.enumerated() {
            guard let page else {
                return VerificationProblem(.metaPage, "Meta page \(number) is missing: the file is too short", page: number)
            }
            guard page.isValid else {
                return VerificationProblem(.metaPage, "Meta page \(number) is not a valid LMDB meta page", page: number)
            }
            guard Self.isPlausible(pageSize: page.pageSize) else {
                return VerificationProblem(.metaPage, "Meta page \(number) declares the page size \(page.pageSize)", page: number)
            }
            // LMDB's transaction ids count commits from 1; one past 2^63 is damage.
            guard page.transactionID <= UInt64(Int64.max) else {
                return VerificationProblem(.metaPage, "Meta page \(number) carries the transaction id \(page.transactionID)", page: number)
            }
            // LMDB never allocates a page past the map (and never shrinks a map below the pages in use).
            guard page.lastPage < page.mapSize / UInt64(page.pageSize) else {
                return VerificationProblem(
                    .metaPage, "Meta page \(number) says the last page is \(page.lastPage), beyond its map of \(page.mapSize) bytes",
                    page: number)
            }
        }
        if let a = pages[0], let b = pages[1], a.pageSize != b.pageSize {
            return VerificationProblem(.metaPage, "The meta pages declare different page sizes (\(a.pageSize) and \(b.pageSize))", page: 1)
        }
        return nil
    }

    /// The meta page of the newest version, as LMDB picks it: the higher transaction id, page 0
    /// on a tie.
    var newest: MetaRecord? {
        guard let a = pages[0], let b = pages[1] else { return pages[0] ?? pages[1] }
        return b.transactionID > a.transactionID ? b : a
    }

    /// The meta page of version `transactionID`, if one of the two still describes it.
    func version(_ transactionID: UInt64) -> MetaRecord? {
        guard let newest, newest.transactionID == transactionID else {
            return pages.compactMap { $0 }.first { $0.transactionID == transactionID }
        }
        return newest
    }
}

/// The check that runs whenever a file is opened, before LMDB reads anything beyond the meta
/// pages: cheap, and exact for every valid file.
///
/// It walks what LMDB and ObjDB read at open, the main tree and ObjDB's `meta` table, in full.
/// When the file holds every page of the version, that is all: LMDB refuses a reference beyond
/// the version's last page (`MDB_PAGE_NOTFOUND`), so no page it reads can lie past the end of
/// the file, and the cost of opening does not grow with the file. When the file ends before the
/// version's last page (which a valid file may: LMDB does not write pages a transaction
/// allocated and freed again), it also walks every other tree down to the pages above its
/// leaves, counts every leaf, and reads the free-page tree in full, and refuses the file unless
/// every missing page is free: a file cut short (an interrupted copy, a full disk) is refused
/// instead of killing the process with `SIGBUS` when a missing page is first read. A valid file
/// always passes: every page a committed version references was written before that version's
/// meta page. The content of other trees is left to ``FileWalk``'s full walk
/// (``Database/verify()``, and `Configuration.verifiesFileOnOpen`).
enum StructureCheck {
    /// The name of ObjDB's `meta` table, which is read at open.
    static let metaTable = "meta"

    /// The first problem found in version `transactionID` of `file`, or `nil`; a version no
    /// meta page describes any more (a writer committed twice meanwhile) gives `nil` for `meta`.
    static func run(_ file: PageFile, transactionID: UInt64) throws -> (checked: Bool, problem: VerificationProblem?) {
        let metas = try MetaPages(file)
        if let problem = metas.problem { return (true, problem) }
        guard let meta = metas.version(transactionID) else { return (false, nil) }
        let walk = FileWalk(
            file: file, meta: meta, report: VerificationReport(path: file.path, transactionID: Int(truncatingIfNeeded: transactionID)))
        let coversVersion = UInt64(file.fileSize) / UInt64(meta.pageSize) > meta.lastPage
        let (tables, _) = walk.walkMainTree()
        for table in tables where table.name == metaTable || !coversVersion {
            walk.walk(table, readingLeaves: table.name == metaTable) { _, _ in }
        }
        if !coversVersion {
            walk.walkFreeTree(readingLeaves: true)
            walk.checkFileCoversVersion()
        }
        return (true, walk.report.problems.first)
    }
}
