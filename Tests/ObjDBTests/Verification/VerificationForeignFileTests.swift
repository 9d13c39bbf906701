import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// `Database.verify(fileAt:)` tells a file that is no database at all (empty, text, random
/// bytes) from a damaged database, without opening the former through LMDB.
@Suite(.serialized)
struct VerificationForeignFileTests {
    let directory = TemporaryDirectory()

    /// `count` bytes from a fixed seed, the same on every run.
    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    static let foreign: [(name: String, bytes: [UInt8], reason: String)] = [
        ("empty.txt", [], "it is empty"),
        ("notes.txt", Array("buy milk\n".utf8), "it has no LMDB meta page"),
        ("text.txt", Array(String(repeating: "A line of notes, nothing like a database.\n", count: 100).utf8), "it has no LMDB meta page"),
        ("random.bin", randomBytes(65_536, seed: 42), "it has no LMDB meta page"),
    ]

    @Test func foreignFilesAreNotDatabaseFiles() throws {
        for file in Self.foreign {
            let url = directory.file(file.name)
            try Data(file.bytes).write(to: url)
            let report = try Database.verify(fileAt: url)
            #expect(!report.isDatabaseFile, "\(file.name)")
            #expect(!report.isHealthy)
            #expect(report.problems.count == 1)
            #expect(report.problems.first?.message.hasPrefix("The file is not an ObjDB file: \(file.reason)") == true, "\(report)")
            // Untouched, and LMDB never saw it: no lock file beside it.
            #expect(try Data(contentsOf: url) == Data(file.bytes))
            #expect(!FileManager.default.fileExists(atPath: url.path + "-lock"))
        }
    }

    @Test func aReadOnlyOpenOfAnEmptyFileSaysItIsNotADatabase() throws {
        let url = directory.file("empty.objdb")
        try Data().write(to: url)
        let error = try #require(throws: ObjDBError.self) {
            try Database(configuration: Configuration(fileURL: url, readOnly: true))
        }
        #expect(error.code == .notAnObjDBFile)
        #expect(error.message == "The file is empty: it holds no ObjDB database, and a read-only open cannot create one")
        #expect(try Data(contentsOf: url).isEmpty)
        // A writable open still makes an empty file a new database, as LMDB does.
        let db = try Database(configuration: Configuration(fileURL: url, objectTypes: [Person.self]))
        #expect(try db.verify().isHealthy)
    }

    // Damaged databases are still database files, with the page-level report: the first meta
    // page wiped (the second is where the page size puts it), and a file cut inside its first page.
    @Test(arguments: ["first meta page zeroed", "cut to 100 bytes"])
    func aDamagedDatabaseIsStillADatabaseFile(_ damage: String) throws {
        let url = directory.file()
        do {
            let db = try directory.open([Person.self])
            try db.write { try db.add(person(1, "Ann", age: 30)) }
        }
        var bytes = [UInt8](try Data(contentsOf: url))
        if damage == "cut to 100 bytes" {
            bytes = Array(bytes.prefix(100))
        } else {
            for index in 0..<4096 { bytes[index] = 0 }
        }
        try FileManager.default.removeItem(atPath: url.path + "-lock")
        try Data(bytes).write(to: url)
        let report = try Database.verify(fileAt: url)
        #expect(report.isDatabaseFile)
        #expect(!report.isHealthy)
        #expect(report.problems.first?.kind == .metaPage, "\(report)")
        #expect(report.problems.first?.message.hasPrefix("Meta page 0 ") == true, "\(report)")
    }

    @Test func aHealthyDatabaseIsADatabaseFile() throws {
        do { _ = try directory.open([Person.self]) }
        let report = try Database.verify(fileAt: directory.file())
        #expect(report.isDatabaseFile)
        #expect(report.isHealthy)
    }
}
