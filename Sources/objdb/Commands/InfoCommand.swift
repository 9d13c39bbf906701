import ArgumentParser
import Foundation
@_spi(Inspection) import ObjDB

/// `objdb info <file>`: versions, size, pages, readers, classes with object counts.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a database's format and schema versions, size, pages, readers and classes.")

    @OptionGroup var database: DatabaseArgument

    @Option(help: "Output format: table or json.")
    var format: InfoFormat = .table

    @Flag(help: "Shorthand for --format json.")
    var json = false

    func run() throws {
        try reportingFailures {
            let file = database.file
            let db = try DatabaseOpening.readOnly(database)
            let (environment, _) = try db.storageStatistics()
            let classes = db.schema.objectSchema.map { ($0, db.objectCount(ofClassNamed: $0.className)) }
            let used = environment.pagesInFile - environment.freePages
            if format == .table && !json {
                Console.line("File:            \(file)")
                Console.line("Size:            \(db.fileSize) bytes")
                Console.line("Format version:  \(db.fileFormatVersion)")
                Console.line("Schema version:  \(db.storedSchemaVersion)")
                Console.line("Pages:           \(environment.pagesInFile) of \(environment.pageSize) bytes, \(used) used, \(environment.freePages) free")
                Console.line("Transaction:     \(environment.lastTransactionID)")
                Console.line("Readers:         \(environment.readers) of \(environment.maxReaders)")
                Console.line("Active versions: \(db.activeVersionCount)")
                Console.line("Classes:         \(classes.count)")
                let width = classes.map(\.0.className.count).max() ?? 0
                for (schema, count) in classes {
                    let name = schema.className.padding(toLength: width, withPad: " ", startingAt: 0)
                    Console.line("  \(name)  \(count) object\(count == 1 ? "" : "s")")
                    for property in schema.properties { Console.line("      \(property)") }
                }
            } else {
                let object: [String: Any] = [
                    "file": file, "size": db.fileSize, "formatVersion": db.fileFormatVersion,
                    "schemaVersion": db.storedSchemaVersion, "pageSize": environment.pageSize,
                    "pages": environment.pagesInFile, "usedPages": used, "freePages": environment.freePages,
                    "lastTransactionID": environment.lastTransactionID, "readers": environment.readers,
                    "maxReaders": environment.maxReaders, "activeVersions": db.activeVersionCount,
                    "classes": classes.map { schema, count in
                        [
                            "name": schema.className, "count": count,
                            "properties": schema.properties.map { ["name": $0.name, "type": $0.typeName, "primaryKey": $0.isPrimaryKey, "indexed": $0.isIndexed] },
                        ] as [String: Any]
                    },
                ]
                Console.line(try ReportJSON.text(object, pretty: true))
            }
        }
    }
}

/// Output formats of `objdb info`.
enum InfoFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json
}

