import ArgumentParser
@_spi(Inspection) import ObjDB

/// `objdb classes <db>`: the classes with their object counts.
struct ClassesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classes", abstract: "List the classes of a database with their object counts.")

    @OptionGroup var database: DatabaseArgument
    @OptionGroup var output: OutputOptions

    func run() throws {
        try reportingFailures {
            let db = try DatabaseOpening.readOnly(database)
            let rows = db.schema.objectSchema.map { schema in
                (schema.className, db.objectCount(ofClassNamed: schema.className), schema.isEmbedded)
            }
            let out = OutputWriter()
            switch output.resolved {
            case .table:
                let printer = ObjectPrinter(format: .table, writer: ObjectWriter(db: db), truncate: !output.noTruncate)
                printer.printTable(
                    header: ["class", "objects", "kind"],
                    rows: rows.map { [$0.0, "\($0.1)", $0.2 ? "embedded" : ""] })
            case .json:
                out.line(try ReportJSON.text(rows.map { ["class": $0.0, "objects": $0.1, "embedded": $0.2] as [String: Any] }, pretty: true))
            case .jsonl:
                for row in rows { out.line(try ReportJSON.text(["class": row.0, "objects": row.1, "embedded": row.2] as [String: Any])) }
            case .csv:
                out.line("class,objects,embedded")
                for row in rows { out.line("\(ObjectPrinter.csvField(row.0)),\(row.1),\(row.2)") }
            }
            out.flush()
        }
    }
}
