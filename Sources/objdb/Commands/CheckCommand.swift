import ArgumentParser
import Foundation
import ObjDB

/// `objdb check <db>`: the integrity check of `Database.verify(fileAt:)`, exit 1 on any fault.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a database's integrity; exit 1 and list the faults if there are any.",
        discussion: """
            Reads every page with bounds-checked code (never through LMDB's cursors, so a damaged \
            file cannot crash it) and checks page structure, every row's checksum and columns \
            against the schema, primary-key, index and backlink tables against the rows, and that \
            links and collections hold only live objects. Works on files that do not open. A \
            file that is no database at all (empty, text, random bytes) is reported as objdb \
            info reports it: not an ObjDB file, exit status 1.
            """)

    @OptionGroup var database: DatabaseArgument
    @OptionGroup var output: OutputOptions

    func run() throws {
        try reportingFailures {
            let url = URL(fileURLWithPath: database.file)
            guard FileManager.default.fileExists(atPath: url.path) else { throw CommandFailure("\(database.file): no such file") }
            let report = try Database.verify(fileAt: url, encryptionKey: try database.encryptionKey())
            // Not a damaged database but something else: one line, as other commands say it.
            guard report.isDatabaseFile else {
                throw ObjDBError(
                    .notAnObjDBFile, report.problems.first?.message ?? "The file is not an ObjDB file", path: report.path)
            }
            switch output.resolved {
            case .table, .csv:
                if report.isHealthy {
                    let objects = report.objectsChecked.values.reduce(0, +)
                    Console.line("\(database.file): healthy (\(report.pagesChecked) pages, \(objects) objects in \(report.objectsChecked.count) classes, transaction \(report.transactionID))")
                } else {
                    Console.line(report.description)
                }
            case .json, .jsonl:
                let json: [String: Any] = [
                    "file": database.file, "healthy": report.isHealthy, "transactionID": report.transactionID,
                    "pagesChecked": report.pagesChecked, "objectsChecked": report.objectsChecked,
                    "omittedProblems": report.omittedProblems,
                    "problems": report.problems.map { problem -> [String: Any] in
                        var entry: [String: Any] = ["kind": problem.kind.rawValue, "message": problem.message]
                        if let table = problem.table { entry["table"] = table }
                        if let className = problem.className { entry["class"] = className }
                        if let key = problem.objectKey { entry["key"] = Int(truncatingIfNeeded: key) }
                        if let page = problem.page { entry["page"] = page }
                        return entry
                    },
                ]
                Console.line(try ReportJSON.text(json, pretty: output.resolved == .json))
            }
            if !report.isHealthy { throw ExitCode.failure }
        }
    }
}
