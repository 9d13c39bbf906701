import ArgumentParser
import Foundation
@_spi(Inspection) import ObjDB

/// `objdb import <db> <Class> <file>`: bulk import in one transaction, all or nothing.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import objects of one class from JSON, JSON lines or CSV, in one write transaction.",
        discussion: """
            Reads what objdb export writes: JSON (an array of objects, or the export's \
            {"Class": [...]} object), JSON lines, or CSV with a header of property names. Values \
            are checked against the file's schema; links are given by the target's primary key \
            ({"$pk": …}, or the key itself in CSV), embedded objects inline. A bad row stops the \
            import with its line number, and nothing is written.

            An export holds no schema. To import into a file that does not exist yet, or one \
            that lacks the class, name the database the objects came from (or a dump of it) with \
            --schema: its classes that the file lacks are created first (all of them, with its \
            schema version, in a new file, which a failed import removes again).
            """)

    enum Policy: String, ExpressibleByArgument, CaseIterable {
        case error, modified, all
        var update: UpdatePolicy {
            switch self {
            case .error: .error
            case .modified: .modified
            case .all: .all
            }
        }
    }

    @OptionGroup var database: DatabaseArgument

    @Argument(help: "The class.")
    var className: String

    @Argument(help: "The file to read.", completion: .file())
    var input: String

    @Option(help: "json, jsonl or csv (default: from the file's extension, else json).")
    var format: OutputFormat?

    @Option(help: "An object whose primary key exists: error (stop), modified (update what differs) or all.")
    var update: Policy = .error

    @Option(
        name: .customLong("schema"),
        help: "A database or dump (objdb dump) whose classes the file lacks are created first; creates a missing file.",
        completion: .file())
    var schemaSource: String?

    func run() throws {
        try reportingFailures {
            guard let data = FileManager.default.contents(atPath: input) else { throw CommandFailure("\(input): no such file") }
            let source = try schemaSource.map(SchemaSource.read)
            if FileManager.default.fileExists(atPath: database.file) {
                let db = try DatabaseOpening.writable(database)
                try importRecords(data, into: db, creating: (source?.classes ?? []).filter { db.schema[$0.className] == nil })
                return
            }
            guard let source else {
                throw CommandFailure(
                    "\(database.file): no such file. An export holds objects but not their schema (types, primary key, indexes): to create \(database.file), name the database the objects came from, or a dump of it, with --schema: objdb import \(database.file) \(className) \(input) --schema <source.objdb>")
            }
            // A new file, with every class of the source and its schema version.
            var configuration = Configuration(fileURL: URL(fileURLWithPath: database.file))
            configuration.opensAnySchemaVersion = true
            configuration.schemaVersion = source.schemaVersion
            do {
                try importRecords(data, into: try Database(configuration: configuration), creating: source.classes)
            } catch {
                // try?: the import's failure is what to report; a file left behind is visible.
                _ = try? Database.deleteFiles(for: configuration)
                throw error
            }
        }
    }

    /// Creates the classes `creating` (which the file lacks), then imports the objects of the
    /// file, in one write transaction.
    private func importRecords(_ data: Data, into db: Database, creating: [ObjectSchema]) throws {
        let schema = Schema(objectSchema: db.schema.objectSchema + creating)
        let objectSchema = try DatabaseOpening.objectSchema(className, in: schema, file: database.file, hint: schemaSource == nil)
        let reader = ObjectReader(schema: schema, links: .primaryKeys)
        let records = try self.records(data, objectSchema, reader)
        // Mixed links are looked up as each object is written: to objects already in the file,
        // or imported above it.
        let resolver = MixedLinkResolver(db: db)
        let progress = Progress(label: "import", total: records.count)
        try db.write {
            if !creating.isEmpty {
                do {
                    try db.createClasses(creating)
                } catch let error as ObjDBError {
                    throw CommandFailure("\(schemaSource ?? database.file): \(error.message)")
                }
            }
            for (line, value) in records {
                do {
                    var values = try value()
                    if reader.readsMixedLinks { values = try resolver.resolve(values) }
                    try db.createDynamicObject(className, value: values, update: update.update)
                } catch let error as ObjDBError {
                    throw CommandFailure("\(input):\(line): \(error.message)")
                } catch let failure as CommandFailure {
                    throw CommandFailure("\(input):\(line): \(failure.description)")
                }
                progress.advance()
            }
        }
        progress.finish()
        let created = creating.isEmpty ? "" : " (created \(creating.count) class\(creating.count == 1 ? "" : "es") from \(schemaSource ?? ""))"
        Console.line("imported \(records.count) \(className) object\(records.count == 1 ? "" : "s")\(created)")
    }

    /// The records of the file, each with its line and a function making its values.
    private func records(_ data: Data, _ objectSchema: ObjectSchema, _ reader: ObjectReader) throws -> [(Int, () throws -> [String: Any?])] {
        let format = format ?? (input.hasSuffix(".jsonl") ? .jsonl : input.hasSuffix(".csv") ? .csv : .json)
        func object(_ json: JSONValue, line: Int) throws -> (Int, () throws -> [String: Any?]) {
            guard case .object(let fields) = json else { throw CommandFailure("\(input):\(line): expected an object, found \(json.kind)") }
            return (line, { try reader.object(fields, objectSchema, line: line) })
        }
        switch format {
        case .jsonl:
            // Lines split as bytes (a String split and trim per line cost more than the parse).
            var records: [(Int, () throws -> [String: Any?])] = []
            var line = 0
            for text in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
                line += 1
                guard text.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
                do {
                    records.append(try object(try JSONValue.parse(text), line: line))
                } catch let error as JSONSyntaxError {
                    throw CommandFailure("\(input):\(line): not valid JSON: \(error.reason) at column \(error.column)")
                }
            }
            return records
        case .csv:
            let rows: [(line: Int, fields: [CSVField])]
            do {
                rows = try CSVReader.rows(String(decoding: data, as: UTF8.self))
            } catch {
                throw CommandFailure("\(input):\(error.line): \(error.reason)")
            }
            guard let header = rows.first?.fields.map(\.text) else { return [] }
            return try rows.dropFirst().map { line, fields in
                guard fields.count == header.count else {
                    throw CommandFailure("\(input):\(line): \(fields.count) fields, the header has \(header.count)")
                }
                let row = Array(zip(header, fields))
                return (line, { try reader.csvRow(row.map { (name: $0.0, field: $0.1) }, objectSchema) })
            }
        case .json, .table:
            let bytes = [UInt8](data)
            let parsed: (value: JSONValue, lines: [String: [Int]])
            do {
                parsed = try JSONValue.parseRecordingLines(bytes)
            } catch {
                let position = error.position(in: bytes)
                throw CommandFailure("\(input):\(position.line): not valid JSON: \(error.reason) at column \(position.column)")
            }
            let elements: [JSONValue], lines: [Int]
            switch parsed.value {
            case .array(let array): (elements, lines) = (array, parsed.lines[""] ?? [])
            case .object(let export):
                switch export[className] {
                case .array(let array)?: (elements, lines) = (array, parsed.lines[className] ?? [])
                case nil: (elements, lines) = ([], [])
                case let other?: throw CommandFailure("\(input): \"\(className)\" is \(other.kind), not an array of objects")
                }
            default: throw CommandFailure("\(input): expected an array of objects or an export object, found \(parsed.value.kind)")
            }
            return try zip(elements, lines).map { try object($0, line: $1) }
        }
    }
}
