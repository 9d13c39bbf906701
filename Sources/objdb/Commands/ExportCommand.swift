import ArgumentParser
import Foundation
@_spi(Inspection) import ObjDB

/// `objdb export <db> [--class C] [--format json|jsonl|csv]`: every object, or one class's.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every object (or one class's) as JSON, JSON lines or CSV.",
        discussion: """
            JSON (the default) is one object keyed by class name, each an array of objects; JSON \
            lines is one object per line, with its "$class"; CSV needs --class. Links are written \
            as references ({"$class", "$pk"} or "$key"); embedded objects inline.
            """)

    @OptionGroup var database: DatabaseArgument

    @Option(name: .customLong("class"), help: "Export only this class.")
    var className: String?

    @Option(help: "Output format: json, jsonl or csv.")
    var format: OutputFormat = .json

    func validate() throws {
        if format == .table { throw ValidationError("export writes json, jsonl or csv; use objdb query for a table") }
        if format == .csv && className == nil { throw ValidationError("--format csv needs --class: a CSV file holds one class") }
    }

    func run() throws {
        try reportingFailures {
            let db = try DatabaseOpening.readOnly(database)
            let classes = try className.map { [try DatabaseOpening.objectSchema($0, in: db, file: database.file)] }
                ?? db.schema.objectSchema.filter { !$0.isEmbedded }
            let total = classes.reduce(0) { $0 + db.objectCount(ofClassNamed: $1.className) }
            let progress = Progress(label: "export", total: total)
            let writer = ObjectWriter(db: db)
            let out = OutputWriter()
            switch format {
            case .csv:
                for schema in classes {
                    let printer = ObjectPrinter(format: format, writer: writer)
                    try printer.print(db.dynamicObjects(schema.className).lazy.map { progress.advance(); return $0 }, schema: schema)
                }
            case .jsonl:
                for schema in classes {
                    try writer.writeRows(of: schema.className, to: out, each: { progress.advance() })
                }
            case .json, .table:
                out.line("{")
                for (index, schema) in classes.enumerated() {
                    var name = JSONText()
                    name.string(schema.className)
                    out.line("  " + name.text + ": [")
                    try writer.writeRows(of: schema.className, to: out, prefix: { $0 ? "    " : "    , " }, each: { progress.advance() })
                    out.line("  ]" + (index == classes.count - 1 ? "" : ","))
                }
                out.line("}")
            }
            out.flush()
            progress.finish()
        }
    }
}
