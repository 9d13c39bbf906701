import Foundation
import GRDB
import ObjDB

/// The `--cli-export` run: `objdb export --format jsonl` of N people against `sqlite3 -json` on
/// the same data (the GRDB benchmark's `person` table), both as processes writing to /dev/null;
/// objects per second, median of the repetitions. Needs `sqlite3` on the `PATH` and a release
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
        var table = MarkdownTable(headers: ["\(formatCount(n)) people", "median ms", "objects/s", "vs sqlite3 -json"])
        let oursMS = median(ours) / 1e6, theirsMS = median(theirs) / 1e6
        table.append(["sqlite3 -json \"SELECT * FROM person\"", fixed(theirsMS, 0), formatCount(Int(Double(n) / theirsMS * 1000)), "1.00×"])
        table.append(["objdb export --format jsonl", fixed(oursMS, 0), formatCount(Int(Double(n) / oursMS * 1000)), fixed(oursMS / theirsMS, 2) + "×"])
        return table.render()
    }
}
