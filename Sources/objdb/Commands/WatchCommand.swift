import ArgumentParser
import Foundation
@_spi(Inspection) import ObjDB

/// `objdb watch <db> [Class] [predicate]`: a feed of each commit's changes, from any process.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each commit's insertions, deletions and modifications as they happen, until interrupted.",
        discussion: """
            Watches every class, or one class's objects matching a predicate, and prints what each \
            commit changed — by this or any other process — as it is committed. With --format \
            jsonl, each line is {"transaction", "class", "deleted", "inserted", "modified"}: deleted \
            objects by primary key (or key), inserted and modified ones whole. Costs a read of the \
            watched objects' keys per commit that changes them.
            """)

    @OptionGroup var database: DatabaseArgument

    @Argument(help: "Only this class.")
    var className: String?

    @Argument(help: "Only the objects matching this predicate (needs a class).")
    var predicate: String?

    @Option(help: "Output format: table (readable lines) or jsonl.")
    var format: OutputFormat = .table

    func validate() throws {
        if format == .json || format == .csv { throw ValidationError("watch prints table lines or jsonl") }
    }

    func run() throws {
        try reportingFailures {
            let db = try DatabaseOpening.readOnly(database)
            let classes = try className.map { [try DatabaseOpening.objectSchema($0, in: db, file: database.file)] }
                ?? db.schema.objectSchema.filter { !$0.isEmbedded }
            let feed = ChangeFeed(db: db, format: format)
            var tokens: [NotificationToken] = []
            for schema in classes {
                var results = db.dynamicObjects(schema.className)
                if let predicate { results = try results.filter(predicate) }
                tokens.append(feed.watch(results, schema: schema))
            }
            if format == .jsonl {
                var line = JSONText()
                line.raw("{\"transaction\":")
                line.integer(Int64(db.transactionID))
                line.raw(",\"watching\":")
                line.string(database.file)
                line.byte(0x7D)
                feed.say(line.text)
            } else {
                feed.say("watching \(database.file) at transaction \(db.transactionID)")
            }
            withExtendedLifetime(tokens) { dispatchMain() }
        }
    }
}

/// Turns collection changes into lines of the watch feed. Objects are written by
/// ``ObjectWriter/write(_:depth:into:)``, as `query` writes them (and `export`, whose row path
/// the tests check against it): the same text for every value.
final class ChangeFeed {
    let db: Database
    let format: OutputFormat
    let writer: ObjectWriter

    init(db: Database, format: OutputFormat) {
        self.db = db
        self.format = format
        self.writer = ObjectWriter(db: db)
    }

    /// Writes `line` at once.
    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// How an object is named in the feed: its primary key, else its key.
    func identifier(_ object: DynamicObject, _ schema: ObjectSchema) -> String {
        // try?: a primary key is never a date, the one value without text.
        if let primaryKey = schema.primaryKeyProperty, let value = object[primaryKey.name], let text = try? ValueConversion.text(value) {
            return text
        }
        return "#\(object.objectKey ?? 0)"
    }

    /// Observes `results`, printing each change.
    func watch(_ results: Results<DynamicObject>, schema: ObjectSchema) -> NotificationToken {
        var previous: [String] = []
        return results.observe { [self] change in
            switch change {
            case .initial(let current):
                previous = current.map { identifier($0, schema) }
            case .update(let current, let deletions, let insertions, let modifications):
                let objects = Array(current)
                let identifiers = objects.map { identifier($0, schema) }
                let newIndex = Dictionary(identifiers.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
                let deleted = deletions.map { previous[$0] }
                let inserted = insertions.map { objects[$0] }
                let modified = modifications.compactMap { newIndex[previous[$0]].map { objects[$0] } }
                previous = identifiers
                do {
                    try report(schema, deleted: deleted, inserted: inserted, modified: modified)
                } catch {
                    Console.error("\(error)")
                    Foundation.exit(1)
                }
            case .error(let error):
                Console.error("\(error)")
                Foundation.exit(1)
            }
        }
    }

    private func report(_ schema: ObjectSchema, deleted: [String], inserted: [DynamicObject], modified: [DynamicObject]) throws {
        let transaction = db.transactionID
        if format == .jsonl {
            // Keys in sorted order, as every JSON object objdb writes.
            var line = JSONText()
            line.raw("{\"class\":")
            line.string(schema.className)
            line.raw(",\"deleted\":[")
            for (index, id) in deleted.enumerated() {
                if index > 0 { line.byte(0x2C) }
                line.string(id)
            }
            line.raw("],\"inserted\":")
            try write(inserted, into: &line)
            line.raw(",\"modified\":")
            try write(modified, into: &line)
            line.raw(",\"transaction\":")
            line.integer(Int64(transaction))
            line.byte(0x7D)
            say(line.text)
            return
        }
        for id in deleted { say("\(transaction) \(schema.className) - \(id)") }
        for object in inserted { say("\(transaction) \(schema.className) + \(identifier(object, schema)) \(try text(object))") }
        for object in modified { say("\(transaction) \(schema.className) ~ \(identifier(object, schema)) \(try text(object))") }
    }

    /// `objects` as a JSON array.
    private func write(_ objects: [DynamicObject], into line: inout JSONText) throws {
        line.byte(0x5B)
        for (index, object) in objects.enumerated() {
            if index > 0 { line.byte(0x2C) }
            try writer.write(object, into: &line)
        }
        line.byte(0x5D)
    }

    /// `object` as JSON text.
    private func text(_ object: DynamicObject) throws -> String {
        var text = JSONText()
        try writer.write(object, into: &text)
        return text.text
    }
}
