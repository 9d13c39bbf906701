import ArgumentParser
@_spi(Inspection) import ObjDB

/// `objdb stat <db> [--readers] [--clear-stale-readers]`: LMDB's figures per table.
struct StatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stat", abstract: "Print LMDB's statistics of the file and of each table (as mdb_stat does).")

    @OptionGroup var database: DatabaseArgument

    @Flag(help: "Also print the reader table of the lock file.")
    var readers = false

    @Flag(help: "Clear the reader slots of processes that no longer exist.")
    var clearStaleReaders = false

    @OptionGroup var output: OutputOptions

    func run() throws {
        try reportingFailures {
            let db = try DatabaseOpening.readOnly(database)
            var cleared: Int?
            if clearStaleReaders { cleared = try db.clearStaleReaders() }
            let (environment, tables) = try db.storageStatistics()
            switch output.resolved {
            case .table, .csv:
                Console.line("Page size:          \(environment.pageSize)")
                Console.line("Map size:           \(environment.mapSize)")
                Console.line("Pages in file:      \(environment.pagesInFile)")
                Console.line("Free pages:         \(environment.freePages)")
                Console.line("Last transaction:   \(environment.lastTransactionID)")
                Console.line("Readers:            \(environment.readers) of \(environment.maxReaders)")
                if let cleared { Console.line("Stale readers cleared: \(cleared)") }
                Console.line("")
                let printer = ObjectPrinter(format: .table, writer: ObjectWriter(db: db), truncate: !output.noTruncate)
                printer.printTable(
                    header: ["table", "depth", "branch", "leaf", "overflow", "entries"],
                    rows: tables.map { ["\($0.name)", "\($0.depth)", "\($0.branchPages)", "\($0.leafPages)", "\($0.overflowPages)", "\($0.entries)"] })
                if readers {
                    Console.line("")
                    for line in db.readerTable() { Console.line(line) }
                }
            case .json, .jsonl:
                var json: [String: Any] = [
                    "pageSize": environment.pageSize, "mapSize": environment.mapSize, "pagesInFile": environment.pagesInFile,
                    "freePages": environment.freePages, "lastTransactionID": environment.lastTransactionID,
                    "readers": environment.readers, "maxReaders": environment.maxReaders,
                    "tables": tables.map {
                        ["name": $0.name, "depth": $0.depth, "branchPages": $0.branchPages, "leafPages": $0.leafPages,
                         "overflowPages": $0.overflowPages, "entries": $0.entries] as [String: Any]
                    },
                ]
                if let cleared { json["staleReadersCleared"] = cleared }
                if readers { json["readerTable"] = db.readerTable() }
                Console.line(try ReportJSON.text(json, pretty: output.resolved == .json))
            }
        }
    }
}
