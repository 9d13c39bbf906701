import ArgumentParser
import Foundation
@_spi(Inspection) import ObjDB

/// `objdb load <db> <file>`: restores a dump into a new (or empty) database, in one write
/// transaction.
struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Restore a dump written by objdb dump: schema, schema version, objects and their keys.",
        discussion: """
            A path that does not exist becomes a new database. An existing database is loaded \
            into only if it holds no objects, its classes that the dump has are the same as the \
            dump's, no such class handed out keys the dump uses, and its schema version is not \
            above the dump's. The whole dump is checked before anything is written, and written \
            in one write transaction: a bad line stops the load with its line number, and \
            nothing is written (a new file is removed again).
            """)

    @OptionGroup var database: DatabaseArgument

    @Argument(help: "The dump to read (what objdb dump wrote).", completion: .file())
    var input: String

    func run() throws {
        try reportingFailures {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: input)
            else { throw CommandFailure("\(input): no such file") }
            let dump = try DumpFile.read(data, file: input)
            let count: Int
            if FileManager.default.fileExists(atPath: database.file) {
                let db = try DatabaseOpening.writable(database)
                try checkCanLoad(dump, into: db)
                count = try load(dump, into: db)
            } else {
                var configuration = Configuration(fileURL: URL(fileURLWithPath: database.file))
                configuration.opensAnySchemaVersion = true
                configuration.schemaVersion = dump.header.schemaVersion
                do {
                    count = try load(dump, into: try Database(configuration: configuration))
                } catch {
                    // try?: the load's failure is what to report; a file left behind is visible.
                    _ = try? Database.deleteFiles(for: configuration)
                    throw error
                }
            }
            let classes = dump.header.classes.count
            Console.line(
                "loaded \(count) object\(count == 1 ? "" : "s") in \(classes) class\(classes == 1 ? "" : "es") into \(database.file) (schema version \(dump.header.schemaVersion))")
        }
    }

    /// Refuses an existing database that the dump cannot be loaded into, saying why.
    private func checkCanLoad(_ dump: DumpFile, into db: Database) throws {
        let file = database.file
        let held = db.schema.objectSchema.filter { !$0.isEmbedded }
            .map { ($0.className, db.objectCount(ofClassNamed: $0.className)) }.filter { $0.1 > 0 }
        if !held.isEmpty {
            let total = held.reduce(0) { $0 + $1.1 }
            throw CommandFailure(
                "\(file): load needs a database without objects, and this one holds \(total) (\(held.map { "\($0.0): \($0.1)" }.joined(separator: ", "))); load into a new file")
        }
        if db.storedSchemaVersion > dump.header.schemaVersion {
            throw CommandFailure("\(file): its schema version \(db.storedSchemaVersion) is above the dump's \(dump.header.schemaVersion)")
        }
        let lowestKeys = Dictionary(dump.records.map { ($0.className, $0.key) }, uniquingKeysWith: min)
        for dumped in dump.header.classes {
            guard let existing = db.schema[dumped.schema.className] else { continue }
            if existing != dumped.schema {
                let have = Set(existing.properties.map(\.description)), want = Set(dumped.schema.properties.map(\.description))
                var parts: [String] = []
                if existing.isEmbedded != dumped.schema.isEmbedded { parts.append(existing.isEmbedded ? "embedded here, not in the dump" : "embedded in the dump, not here") }
                let only = have.subtracting(want).sorted(), missing = want.subtracting(have).sorted()
                if !only.isEmpty { parts.append("here: \(only.joined(separator: ", "))") }
                if !missing.isEmpty { parts.append("in the dump: \(missing.joined(separator: ", "))") }
                if parts.isEmpty { parts.append("the properties are in another order") }
                throw CommandFailure("\(file): class '\(existing.className)' differs from the dump's (\(parts.joined(separator: "; ")))")
            }
            let next = db.nextObjectKey(ofClassNamed: existing.className)
            if let lowest = lowestKeys[existing.className], lowest < next {
                throw CommandFailure(
                    "\(file): class '\(existing.className)' handed out keys up to \(next - 1) already (to objects since deleted), and the dump's keys start at \(lowest); keys are never reused: load into a new file")
            }
        }
    }

    /// Sets the properties whose mixed values link to objects, inside the load's transaction.
    private func setLinkingValues(_ linking: [(record: DumpFile.Record, values: [String: Any?])], in db: Database) throws {
        let resolver = MixedLinkResolver(db: db)
        for (record, values) in linking {
            guard let object = db.dynamicObject(ofClassNamed: record.className, key: record.key) else {
                throw CommandFailure("\(input):\(record.line): the \(record.className) with key \(record.key) was not created")
            }
            do {
                for (name, value) in values.sorted(by: { $0.key < $1.key }) {
                    try object.setValue(try resolver.resolve(value), forKey: name)
                }
            } catch let error as ObjDBError {
                throw CommandFailure("\(input):\(record.line): \(error.message)")
            } catch let failure as CommandFailure {
                throw CommandFailure("\(input):\(record.line): \(failure.description)")
            }
        }
    }

    /// Writes the dump in one write transaction; the number of objects loaded.
    private func load(_ dump: DumpFile, into db: Database) throws -> Int {
        let progress = Progress(label: "load", total: dump.records.count)
        try db.write {
            do {
                try db.createClasses(dump.header.classes.map(\.schema))
                try db.setSchemaVersion(dump.header.schemaVersion)
            } catch let error as ObjDBError {
                throw CommandFailure("\(input):1: \(error.message)")
            }
            // Mixed values that link to objects are set once every object exists: the target
            // may come later in the dump.
            var linking: [(record: DumpFile.Record, values: [String: Any?])] = []
            for record in dump.records {
                var values = record.values
                let deferred = values.filter { MixedLinkResolver.holdsLinks($0.value) }
                for name in deferred.keys { values[name] = nil }
                if !deferred.isEmpty { linking.append((record, deferred)) }
                do {
                    try db.createDynamicObject(record.className, key: record.key, value: values)
                } catch let error as ObjDBError {
                    throw CommandFailure("\(input):\(record.line): \(error.message)")
                }
                progress.advance()
            }
            try setLinkingValues(linking, in: db)
            for dumped in dump.header.classes {
                guard let next = dumped.nextKey else { continue }
                try db.reserveObjectKeys(ofClassNamed: dumped.schema.className, below: next)
            }
        }
        progress.finish()
        return dump.records.count
    }
}
