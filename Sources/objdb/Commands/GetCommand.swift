import ArgumentParser
import Foundation
@_spi(Inspection) import ObjDB

/// `objdb get <db> <Class> <primaryKey>`: one object, links followed to `--link-depth`.
struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get", abstract: "Print one object, found by its primary key.")

    @OptionGroup var database: DatabaseArgument

    @Argument(help: "The class.")
    var className: String

    @Argument(help: "The primary key (for an Int key a number, for a UUID or ObjectId its text).")
    var primaryKey: String

    @Option(help: "Write linked objects whole this many links deep.")
    var linkDepth: Int = 1

    @OptionGroup var output: OutputOptions

    func run() throws {
        try reportingFailures {
            let db = try DatabaseOpening.readOnly(database)
            let schema = try DatabaseOpening.objectSchema(className, in: db, file: database.file)
            let object = try DatabaseOpening.object(db, schema, primaryKey: primaryKey, file: database.file)
            let printer = ObjectPrinter(format: output.resolved, writer: ObjectWriter(db: db, linkDepth: linkDepth), truncate: !output.noTruncate)
            if output.resolved == .json {
                // The object as query writes it, laid out over lines (its text kept value for value).
                var text = JSONText()
                try printer.writer.write(object, into: &text)
                Console.line(PrettyJSON.parsed(try JSONValue.parse(text.bytes)).text)
            } else {
                try printer.print([object], schema: schema)
            }
        }
    }
}
