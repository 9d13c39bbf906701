import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// The check every open runs before LMDB reads the file (``StructureCheck``): valid files pass,
/// whatever their size, and files cut short or with impossible meta pages are refused with an
/// error instead of crashing the process.
@Suite(.serialized)
struct FileStructureTests {
    let directory = TemporaryDirectory()

    /// The newest meta page of a closed file, and the file's size.
    func newestMeta(_ url: URL) throws -> (meta: MetaRecord, fileSize: Int) {
        let file = try PageFile(path: url.path)
        let metas = try MetaPages(file)
        #expect(metas.problem == nil)
        return (try #require(metas.newest), file.fileSize)
    }

    func note(_ i: Int) -> Note {
        let note = Note()
        note.text = "\(i) " + String(repeating: "x", count: 300)
        return note
    }

    /// Regression: pages a transaction allocates and frees again are never written, so a valid
    /// file can be shorter than (last page + 1) × page size. Such files were refused as
    /// truncated ("it has 3878912 bytes but its pages need 3891200").
    @Test func filesShorterThanTheirLastPageOpenAndReadFully() throws {
        var expected = 0
        var shorterSeen = 0
        for run in 0..<30 {
            do {
                let db = try directory.open([Note.self])
                try db.write { for i in 0..<10 { try db.add(note(run * 10_000 + i)) } }
                expected += 10
                // Insert, then delete most of what this transaction inserted: LMDB allocates
                // pages for them and frees them again ("loose" pages), and does not write those
                // it does not reuse. A raw LMDB transaction (as another program would write),
                // so that no change-log entry written after the deletes reuses them.
                let write = try WriteTransaction(db.environment)
                let scratch = try write.openTable(named: "scratch", flags: .objects)
                let value = [UInt8](repeating: 7, count: 300)
                for key in 0..<UInt64(200 * (run + 1)) {
                    _ = try value.withUnsafeBytes { try write.txn.put(scratch, key: key, value: $0) }
                }
                // Highest keys first: LMDB reuses the page it freed last, so the pages at the end
                // of the file are the ones left unwritten.
                for key in (10..<UInt64(200 * (run + 1))).reversed() {
                    _ = try write.txn.delete(scratch, key: key)
                }
                try write.commit()
            }
            let (meta, size) = try newestMeta(directory.file())
            if (Int(meta.lastPage) + 1) * meta.pageSize > size { shorterSeen += 1 }
            let reopened = try directory.open([Note.self])
            #expect(reopened.objects(Note.self).count == expected)
            // Healthy but for the table no class owns, which verify names.
            let report = try reopened.verify()
            #expect(report.problems.count == 1, "\(report)")
            #expect(report.problems.first?.description.contains("'scratch'") == true)
        }
        // The condition the bug needed really occurred.
        #expect(shorterSeen > 0)
    }

    /// Rewrites the meta record fields of both meta pages of a closed file.
    func craftMetas(_ url: URL, _ change: (inout [UInt8], Int) -> Void) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        let pageSize = Int(bytes.withUnsafeBytes { $0.u32(PageFormat.metaOffset + 24) })
        for page in 0..<2 { change(&bytes, page * pageSize + PageFormat.metaOffset) }
        try Data(bytes).write(to: url)
    }

    func store(_ value: UInt64, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: value) { for (i, b) in $0.enumerated() { bytes[offset + i] = b } }
    }

    /// Regression: a meta page claiming an enormous last page made the size check overflow and
    /// trap before any error.
    @Test(arguments: [UInt64.max, UInt64.max / 2, UInt64(Int.max) / 4096 + 1, 1 << 40])
    func aMetaPageWithAnImpossibleLastPageIsRefused(_ lastPage: UInt64) throws {
        do {
            let db = try directory.open([Note.self])
            try db.write { for i in 0..<50 { try db.add(note(i)) } }
        }
        let url = directory.file()
        try craftMetas(url) { bytes, meta in store(lastPage, at: meta + 120, in: &bytes) }
        let before = try Data(contentsOf: url)
        let error = try #require(throws: ObjDBError.self) { try directory.open([Note.self]) }
        #expect([.corruptFile, .notAnObjDBFile, .storage].contains(error.code), "\(error)")
        #expect(try Data(contentsOf: url) == before)
    }

    /// A root page number past the end of the file, as a torn or partial copy leaves it.
    @Test func aMainTreeRootPastTheEndIsRefused() throws {
        do {
            let db = try directory.open([Note.self])
            try db.write { for i in 0..<50 { try db.add(note(i)) } }
        }
        let url = directory.file()
        let (meta, size) = try newestMeta(url)
        try craftMetas(url) { bytes, offset in
            store(UInt64(size / meta.pageSize + 5), at: offset + 72 + 40, in: &bytes)
        }
        let error = try #require(throws: ObjDBError.self) { try directory.open([Note.self]) }
        #expect(error.code == .corruptFile)
        #expect(error.message.contains("page \(size / meta.pageSize + 5)"), "\(error.message)")
    }

    /// The check at open reads only what open reads when the file holds every page of its
    /// version, so that opening costs the same whatever the file's size. A class table's branch
    /// that names a page past the version is then LMDB's to refuse (`MDB_PAGE_NOTFOUND`): the
    /// read reports the failure instead of crashing, `verify()` names the page, and
    /// `verifiesFileOnOpen` refuses the file.
    @Test func aBranchPastTheVersionIsReportedOnReadAndRefusedByVerificationAtOpen() throws {
        do {
            let db = try directory.open([Note.self])
            try db.write { for i in 0..<3_000 { try db.add(note(i)) } }
        }
        let url = directory.file()
        let (meta, size) = try newestMeta(url)
        #expect(size / meta.pageSize > Int(meta.lastPage))
        let walk = FileWalk(file: try PageFile(path: url.path), meta: meta, report: VerificationReport(path: url.path, transactionID: 0))
        let notes = try #require(walk.walkMainTree().tables.first { $0.record.entries == 3_000 && !$0.name.contains(".") })
        #expect(notes.record.depth >= 2)
        // The root's first child: its page number is the node's first 6 bytes (lo, hi, flags).
        var bytes = [UInt8](try Data(contentsOf: url))
        let root = Int(notes.record.root) * meta.pageSize
        let node = root + Int(bytes.withUnsafeBytes { $0.u16(root + PageFormat.headerSize) })
        withUnsafeBytes(of: (meta.lastPage + 3).littleEndian) { for i in 0..<6 { bytes[node + i] = $0[i] } }
        try Data(bytes).write(to: url)

        let failures = FailureBox()
        var config = directory.configuration([Note.self])
        config.readFailureHandler = { failures.append($0) }
        let db = try Database(configuration: config)
        var read = 0
        for _ in db.objects(Note.self) { read += 1 }
        #expect(read < 3_000)
        #expect(!failures.errors.isEmpty)
        let report = try db.verify()
        #expect(!report.isHealthy)
        #expect(report.problems.contains { $0.message.contains("\(meta.lastPage + 3)") }, "\(report)")

        var verifying = directory.configuration([Note.self], name: "copy.objdb")
        try Data(bytes).write(to: verifying.fileURL!)
        verifying.verifiesFileOnOpen = true
        let error = try #require(throws: ObjDBError.self) { try Database(configuration: verifying) }
        #expect(error.code == .corruptFile)
    }

    /// A file cut short within the pages a branch references (an interrupted copy) is refused,
    /// and `verify(fileAt:)` says where.
    @Test func aFileCutShortIsRefusedAndVerifySaysTruncated() throws {
        do {
            let db = try directory.open([Note.self])
            try db.write { for i in 0..<3_000 { try db.add(note(i)) } }
        }
        let url = directory.file()
        let full = try Data(contentsOf: url)
        try full.prefix(full.count * 2 / 3).write(to: url)
        let error = try #require(throws: ObjDBError.self) { try directory.open([Note.self]) }
        #expect(error.code == .corruptFile)
        #expect(error.message.contains("truncated"), "\(error.message)")
        let report = try Database.verify(fileAt: url)
        #expect(!report.isHealthy)
        #expect(report.problems.contains { $0.kind == .accounting && $0.message.contains("truncated") }, "\(report)")
    }

    /// A file cut short in the overflow pages of a row, which the check at open does not read
    /// (it stops above the leaves), is refused: only free pages may be missing from a file's end.
    /// Before, the open passed and the first read of the row died with `SIGBUS`.
    @Test func aFileCutShortInARowsOverflowPagesIsRefused() throws {
        let db = try directory.open([Note.self])
        try db.write { for i in 0..<20 { try db.add(note(i)) } }
        let big = Note()
        big.text = String(repeating: "overflow ", count: 3_000)  // 27 KB: several overflow pages
        try db.write { try db.add(big) }
        let (overflowPage, overflowPages): (UInt64, UInt64) = try {
            let info = try #require(try db.classInfo(for: Note.self))
            let txn = try db.requireReadableTxn()
            let entry = try #require(try Cursor(txn, info.tables.objects).last())
            // A row on overflow pages lies right after the first overflow page's 16-byte header.
            let header = try #require(entry.value.baseAddress) - 16
            #expect(header.loadUnaligned(fromByteOffset: 10, as: UInt16.self) == 0x04)  // overflow
            return (header.loadUnaligned(as: UInt64.self), UInt64(header.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
        }()
        #expect(overflowPages >= 7)
        let cutAt = overflowPage + overflowPages - 1  // the run's last page and all after it go
        // The pages the commit wrote after the run (the leaf, the main tree, the free list) are
        // freed by later commits; once every page after the run is free, only the run's last
        // page is missing that should not be.
        let copy = directory.url.appendingPathComponent("cut.objdb")
        var refusedForTheRun = false
        for round in 0..<30 where !refusedForTheRun {
            try db.write { try db.add(note(100 + round)) }
            let full = try Data(contentsOf: directory.file())
            try full.prefix(Int(cutAt) * db.environment.pageSize).write(to: copy)
            try? FileManager.default.removeItem(atPath: copy.path + "-lock")  // none after round 0
            // Refused every round; the loop ends once the run's own page is what is named.
            let error = try #require(throws: ObjDBError.self) { try Database(configuration: Configuration(fileURL: copy, objectTypes: [Note.self])) }
            #expect(error.code == .corruptFile, "\(error)")
            refusedForTheRun = error.message.contains("The file ends at page \(cutAt) but its version uses pages up to")
        }
        #expect(refusedForTheRun)
        #expect(!(try Database.verify(fileAt: copy)).isHealthy)
    }

    /// The page set of the walks (a cached chunk in front of the dictionary of chunks) answers as
    /// a plain set does, across chunks, back and forth between them, and at its limit.
    @Test func thePageSetAgreesWithASet() {
        var pages = PageSet(limit: 1 << 40)
        var reference = Set<UInt64>()
        var generator = SystemRandomNumberGenerator()
        let picks: [UInt64] = [0, 1, 65_535, 65_536, 65_537, 131_072, 1 << 40, (1 << 40) + 1, 1 << 39, 3, 65_536]
            + (0..<2_000).map { _ in UInt64.random(in: 0...300_000, using: &generator) }
        for page in picks {
            let inserted = page <= 1 << 40 && !reference.contains(page)
            #expect(pages.insert(page) == inserted, "page \(page)")
            if inserted { reference.insert(page) }
        }
        #expect(pages.population == reference.count)
        for page in picks + [2, 65_534, 200_001, 1 << 38] {
            #expect(pages.contains(page) == reference.contains(page), "page \(page)")
        }
    }
}
