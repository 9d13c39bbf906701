import Foundation
import GRDB
import ObjDB

/// The `--cli-export` run: `objdb export --format jsonl` of N people against `sqlite3 -json` on
/// the same data (the GRDB benchmark's `person` table), both as processes writing to /dev/null;
/// then `objdb import` of that JSON lines file into an empty file against a straightforward
/// GRDB import of the same file (each line decoded with `JSONDecoder` into a `Codable` record,
/// inserted in one transaction, `.noSync`-like `synchronous = OFF`); objects per second,
/// median of the repetitions. Needs `sqlite3` on the `PATH` and a release
/// build of `objdb` (`--objdb PATH`, else `../.build/release/objdb` from the package).
enum CLIExportBench {
    /// Runs `executable` with `arguments`, output to /dev/null; the wall-clock time.
    static func time(_ executable: String, _ arguments: [String]) throws -> UInt64 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        let start = monotonicNanoseconds()
        try process.run()
        process.waitUntilExit()
        let elapsed = monotonicNanoseconds() - start
        guard process.terminationStatus == 0 else {
            throw CheckFailure(description: "\(executable) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return elapsed
    }

    /// A person as the export writes it.
    struct ExportedPerson: Decodable {
        let id: Int
        let name: String
        let age: Int
        let score: Double
        let created: Date
    }

    /// Imports the JSON lines at `path` into a new GRDB file the straightforward way; the time.
    static func grdbImport(_ path: String, into database: String, expected: Int) throws -> UInt64 {
        let queue = try DatabaseQueue(path: database)
        try queue.write { db in try GRDBSystem.createTable(db) }
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = OFF") }
        // Used by the decoder's one thread only; the closure type is `@Sendable`.
        nonisolated(unsafe) let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = formatter.date(from: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a date: \(text)"))
            }
            return date
        }
        let start = monotonicNanoseconds()
        guard let data = FileManager.default.contents(atPath: path) else { throw CheckFailure(description: "no \(path)") }
        try queue.write { db in
            for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
                let person = try decoder.decode(ExportedPerson.self, from: Data(line))
                try GRDBPerson(PersonData(id: person.id, name: person.name, age: person.age, score: person.score, created: person.created)).insert(db)
            }
        }
        let elapsed = monotonicNanoseconds() - start
        let count = try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM person") }
        guard count == expected else { throw CheckFailure(description: "GRDB imported \(count ?? -1) people, expected \(expected)") }
        return elapsed
    }

    /// The first of `candidates` that is an executable file.
    static func executable(_ candidates: [String]) -> String? {
        candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func run(n: Int, repetitions: Int, objdb: String?) throws -> String {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        guard let objdbPath = objdb ?? executable([package.appendingPathComponent(".build/release/objdb").path]) else {
            throw CheckFailure(description: "no release objdb: run `swift build -c release --product objdb` in the root package, or pass --objdb PATH")
        }
        guard let sqlite = executable(["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/opt/homebrew/bin/sqlite3"]) else {
            throw CheckFailure(description: "sqlite3 is not installed")
        }
        let directory = try TempDirectory()
        defer { directory.remove() }
        let people = Dataset.people(count: n)
        var configuration = ObjDBSystem.configuration(directory: directory.path)
        configuration.durability = .noSync
        do {
            let db = try ObjDB.Database(configuration: configuration)
            try NotificationRun.fill(db, people)
        }
        let grdb = try GRDBSystem(directory: directory.path, create: true)
        try grdb.insert(people)
        grdb.close()
        let objdbFile = directory.path + "/person.objdb", sqliteFile = directory.path + "/person.sqlite"
        var ours: [UInt64] = [], theirs: [UInt64] = []
        for repetition in 0..<repetitions {
            ours.append(try time(objdbPath, ["export", objdbFile, "--class", "Person", "--format", "jsonl"]))
            theirs.append(try time(sqlite, ["-json", sqliteFile, "SELECT * FROM person"]))
            progress("cli-export repetition \(repetition + 1)/\(repetitions)")
        }
        // Import: the export's JSON lines into an empty file.
        let jsonl = directory.path + "/person.jsonl"
        let export = Process()
        export.executableURL = URL(fileURLWithPath: objdbPath)
        export.arguments = ["export", objdbFile, "--class", "Person", "--format", "jsonl"]
        _ = FileManager.default.createFile(atPath: jsonl, contents: nil)
        export.standardOutput = FileHandle(forWritingAtPath: jsonl)
        try export.run()
        export.waitUntilExit()
        var importOurs: [UInt64] = [], importGRDB: [UInt64] = []
        for repetition in 0..<repetitions {
            let target = try TempDirectory()
            defer { target.remove() }
            var empty = ObjDBSystem.configuration(directory: target.path)
            empty.durability = .noSync
            _ = try ObjDB.Database(configuration: empty)
            importOurs.append(try time(objdbPath, ["import", target.path + "/person.objdb", "Person", jsonl]))
            importGRDB.append(try grdbImport(jsonl, into: target.path + "/person.sqlite", expected: n))
            progress("cli-import repetition \(repetition + 1)/\(repetitions)")
        }
        var table = MarkdownTable(headers: ["\(formatCount(n)) people", "median ms", "objects/s", "ratio"])
        let oursMS = median(ours) / 1e6, theirsMS = median(theirs) / 1e6
        table.append(["sqlite3 -json \"SELECT * FROM person\"", fixed(theirsMS, 0), formatCount(Int(Double(n) / theirsMS * 1000)), "1.00×"])
        table.append(["objdb export --format jsonl", fixed(oursMS, 0), formatCount(Int(Double(n) / oursMS * 1000)), fixed(oursMS / theirsMS, 2) + "× sqlite3's time"])
        let inOurs = median(importOurs) / 1e6, inGRDB = median(importGRDB) / 1e6
        table.append(["GRDB: JSONDecoder + insert per line, one transaction", fixed(inGRDB, 0), formatCount(Int(Double(n) / inGRDB * 1000)), "1.00×"])
        table.append(["objdb import (jsonl)", fixed(inOurs, 0), formatCount(Int(Double(n) / inOurs * 1000)), fixed(inGRDB / inOurs, 2) + "× GRDB's speed"])
        return table.render()
    }
}
