import ArgumentParser
import Foundation
@_spi(Inspection) import ObjDB

/// `objdb info <file>`: format version, schema version, classes with object counts, file size.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a database's format, schema version, classes with object counts, and size.")

    @Argument(help: "The database file.")
    var file: String

    @Option(help: "Output format: table or json.")
    var format: InfoFormat = .table

    func run() throws {
        let db = try openReadOnly(file)
        let classes = db.schema.objectSchema.map { ($0, db.objectCount(ofClassNamed: $0.className)) }
        switch format {
        case .table:
            print("File:            \(file)")
            print("Size:            \(db.fileSize) bytes")
            print("Format version:  \(db.fileFormatVersion)")
            print("Schema version:  \(db.storedSchemaVersion)")
            print("Classes:         \(classes.count)")
            let width = classes.map(\.0.className.count).max() ?? 0
            for (schema, count) in classes {
                let name = schema.className.padding(toLength: width, withPad: " ", startingAt: 0)
                print("  \(name)  \(count) object\(count == 1 ? "" : "s")")
                for property in schema.properties { print("      \(property)") }
            }
        case .json:
            let object: [String: Any] = [
                "file": file, "size": db.fileSize, "formatVersion": db.fileFormatVersion,
                "schemaVersion": db.storedSchemaVersion,
                "classes": classes.map { schema, count in
                    [
                        "name": schema.className, "count": count,
                        "properties": schema.properties.map { ["name": $0.name, "type": $0.typeName, "primaryKey": $0.isPrimaryKey, "indexed": $0.isIndexed] },
                    ] as [String: Any]
                },
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }
    }
}

/// Output formats of `objdb info`.
enum InfoFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json
}

/// Opens a file read-only for inspection, turning errors into a message and exit code 1.
func openReadOnly(_ file: String) throws -> Database {
    let url = URL(fileURLWithPath: file)
    guard FileManager.default.fileExists(atPath: url.path) else {
        throw ValidationError("No such file: \(file)")
    }
    do {
        return try Database(configuration: Configuration(fileURL: url, readOnly: true))
    } catch let error as ObjDBError {
        FileHandle.standardError.write(Data("objdb: \(error)\n".utf8))
        throw ExitCode.failure
    }
}
