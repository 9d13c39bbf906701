import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// Regressions: crashes the harness found in ObjDB, each reduced to a minimal reproduction, now
/// fixed. Each runs as an exit test expecting success, so that a crash ends a child process and
/// fails the test instead of stopping the test run.
///
/// Damaged files showing each crash are kept by `objdb-reliability damage` under
/// `/tmp/objdb-harness-findings/` when it meets one.
struct ReliabilityRegressionTests {
    /// Found by `objdb-reliability fuzz` (seed 1, case 609): a `Date` argument whose time is NaN,
    /// compared with a property it cannot be compared with, makes the binder describe it in its
    /// error message (`QueryValue.description`, PredicateTree.swift:156), and Foundation's
    /// `Date.description` traps on NaN (SIGILL). `filter` throws `invalidQuery` instead (the date is described by its time).
    @Test
    func aNaNDateArgumentIsRejectedNotCrashedOn() async {
        await #expect(processExitsWith: .success) {
            let url = try DamagedFileFixtures.database()
            let db = try Database(configuration: Configuration(fileURL: url, objectTypes: [Person.self]))
            do {
                _ = try db.objects(Person.self).filter("name == %@", Date(timeIntervalSince1970: .nan))
                exit(1)   // should have thrown
            } catch let error as ObjDBError where error.code == .invalidQuery {
                exit(0)
            }
        }
    }

    /// Found by `objdb-reliability damage --full --seed 2` (trials 164, 179, 493, 606, 631): a
    /// meta page whose page size (the free tree's `md_pad`) is 0 — meta page 0, or the newest
    /// one — makes `mdb_env_open` divide by zero (SIGFPE inside liblmdb). `Database.verify(fileAt:)`
    /// handed the file to LMDB before it checked the meta pages; now every open checks them first
    /// (`MetaPages.problem`), and refuses the file with `corruptFile`.
    @Test
    func aMetaPageWithPageSizeZeroIsReported() async {
        await #expect(processExitsWith: .success) {
            let url = try DamagedFileFixtures.database()
            try DamagedFileFixtures.patch(url) { bytes, _ in
                for i in 40..<44 { bytes[i] = 0 }   // meta page 0: page size 0
            }
            try DamagedFileFixtures.expectReportedAndRefused(url)
        }
    }

    /// Found by `objdb-reliability damage --full --seed 3` (trial 36): the newest meta page
    /// declaring a page size of 1 MiB or more (here meta page 1, made the newest) makes LMDB read
    /// its meta pages past the end of the file (SIGBUS inside liblmdb), in `verify(fileAt:)` and
    /// every open. The same root cause and fix as above.
    @Test
    func aMetaPageWithAHugePageSizeIsReported() async {
        await #expect(processExitsWith: .success) {
            let url = try DamagedFileFixtures.database()
            try DamagedFileFixtures.patch(url) { bytes, pageSize in
                DamagedFileFixtures.store(UInt64(1_000), at: pageSize + 144, count: 8, in: &bytes)   // meta page 1: newest
                DamagedFileFixtures.store(UInt64(1 << 20), at: pageSize + 40, count: 4, in: &bytes)   // page size 1 MiB
            }
            try DamagedFileFixtures.expectReportedAndRefused(url)
        }
    }

    /// Found by `objdb-reliability damage --full --seed 3` (trial 990): a meta page whose
    /// transaction id is 2^63 or more becomes the newest, and the structure check at open
    /// converted `mdb_txn_id` (imported as `Int`, negative here) with `UInt64(_:)`, which trapped,
    /// in `verify(fileAt:)` and every open. Transaction ids past 2^63 are now a meta-page problem,
    /// and the conversions keep the bits.
    @Test
    func aMetaPageWithAHugeTransactionIDIsReported() async {
        await #expect(processExitsWith: .success) {
            let url = try DamagedFileFixtures.database()
            try DamagedFileFixtures.patch(url) { bytes, _ in
                DamagedFileFixtures.store(UInt64(1) << 63 | 5, at: 144, count: 8, in: &bytes)   // meta page 0's transaction id
            }
            try DamagedFileFixtures.expectReportedAndRefused(url)
        }
    }
}

/// Files for the reproductions.
enum DamagedFileFixtures {
    /// A new database with one person, in a new directory.
    static func database() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("objdb-known-bug-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("t.objdb")
        let db = try Database(configuration: Configuration(fileURL: url, objectTypes: [Person.self]))
        try db.write {
            let ann = Person()
            ann.id = 1
            ann.name = "Ann"
            try db.add(ann)
        }
        return url
    }

    /// Changes the file's bytes; `change` gets them and the page size.
    static func patch(_ url: URL, _ change: (inout [UInt8], Int) -> Void) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        let pageSize = Int(bytes[40]) | Int(bytes[41]) << 8 | Int(bytes[42]) << 16 | Int(bytes[43]) << 24
        change(&bytes, pageSize)
        try Data(bytes).write(to: url)
        try? FileManager.default.removeItem(atPath: url.path + "-lock")
    }

    /// Stores the `count` low bytes of `value`, little-endian, at `offset`.
    static func store(_ value: UInt64, at offset: Int, count: Int, in bytes: inout [UInt8]) {
        for i in 0..<count { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
    }

    /// Exits with 1 unless `verify(fileAt:)` reports a meta-page problem and an open with
    /// `verifiesFileOnOpen` throws `corruptFile`; then exits with 0.
    static func expectReportedAndRefused(_ url: URL) throws -> Never {
        let report = try Database.verify(fileAt: url)
        guard report.problems.contains(where: { $0.kind == .metaPage }) else { exit(1) }
        var config = Configuration(fileURL: url, objectTypes: [Person.self])
        config.verifiesFileOnOpen = true
        do {
            _ = try Database(configuration: config)
            exit(1)
        } catch let error as ObjDBError where error.code == .corruptFile {
            exit(0)
        }
    }
}
