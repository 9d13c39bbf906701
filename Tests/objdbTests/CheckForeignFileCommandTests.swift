import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// `objdb check` on files that are not databases says so as `objdb info` does, in one line,
/// and leaves them untouched; a damaged database still gets the page-level report.
@Suite(.serialized)
struct CheckForeignFileCommandTests {
    let scratch = Scratch()

    /// `count` bytes that look random (a multiplicative hash of each position), the same on
    /// every run.
    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        (0..<UInt64(count)).map { UInt8(truncatingIfNeeded: (($0 &+ seed) &* 0x9E37_79B9_7F4A_7C15) >> 56) }
    }

    static let files: [(name: String, bytes: [UInt8], reason: String)] = [
        ("empty.txt", [], "it is empty"),
        ("notes.txt", Array("buy milk\ncall Ann\n".utf8), "it has no LMDB meta page where a database file has one"),
        ("text.txt", Array(String(repeating: "Some notes that are not a database at all.\n", count: 80).utf8),
         "it has no LMDB meta page where a database file has one"),
        ("random.bin", randomBytes(65_536, seed: 7), "it has no LMDB meta page where a database file has one"),
    ]

    /// The file's bytes and modification date.
    func snapshot(_ path: String) throws -> (Data, Date?) {
        (try Data(contentsOf: URL(fileURLWithPath: path)), try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
    }

    @Test func checkSaysAForeignFileIsNotAnObjDBFile() throws {
        let past = Date(timeIntervalSince1970: 1_000_000_000)
        for file in Self.files {
            let path = scratch.file(file.name)
            try Data(file.bytes).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: path)
            let before = try snapshot(path)
            #expect(before.1 == past)
            for arguments in [["check", path], ["check", path, "--json"]] {
                let check = try CommandRunner.run(arguments)
                #expect(check.status == 1, "\(file.name)")
                #expect(check.output == "", "\(file.name): \(check.output)")
                #expect(check.error.hasPrefix("objdb: ObjDB error 4 (not an ObjDB file): The file is not an ObjDB file: \(file.reason)"), "\(check.error)")
                #expect(check.error.hasSuffix("\(file.name)]\n"), "\(check.error)")
                #expect(check.error.filter { $0 == "\n" }.count == 1)
            }
            // info says the same kind of thing.
            let info = try CommandRunner.run(["info", path])
            #expect(info.status == 1)
            #expect(info.error.hasPrefix("objdb: ObjDB error 4 (not an ObjDB file): "), "\(info.error)")
            let after = try snapshot(path)
            #expect(after.0 == before.0, "\(file.name) changed")
            #expect(after.1 == past, "\(file.name): modified")
            #expect(!FileManager.default.fileExists(atPath: path + "-lock"), "\(file.name): a lock file was made")
        }
    }

    // A database whose first meta page is wiped is damaged, not foreign: the page-level report.
    @Test func checkReportsADamagedDatabaseInDetail() throws {
        let path = scratch.file("damaged.objdb")
        do {
            let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Person.self]))
            try db.write {
                let person = Person()
                person.id = 1
                try db.add(person)
            }
        }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        for index in 0..<4096 { bytes[index] = 0 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let check = try CommandRunner.run(["check", path])
        #expect(check.status == 1)
        #expect(check.error == "")
        #expect(check.output.contains("[metaPage] Meta page 0 is not a valid LMDB meta page"), "\(check.output)")
        #expect(!check.output.contains("not an ObjDB file"))
        let json = try CommandRunner.run(["check", path, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(report["healthy"] as? Bool == false)
        #expect((report["problems"] as? [[String: Any]])?.first?["kind"] as? String == "metaPage")
    }
}
