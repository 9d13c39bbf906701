import ArgumentParser
import Foundation
@_spi(Inspection) import ObjDB

/// `objdb dump <db>`: the whole file as versioned JSON lines, schema included, for `objdb load`.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Write the whole database, schema included, as a versioned text dump for objdb load.",
        discussion: """
            JSON lines: a header line {"objdb-dump": 2, "schemaVersion": …, "classes": […]} with \
            every class, its properties and key counter, then one line per object with its \
            "$class" and "$key". Values are export's, all exact (dates as ISO 8601 with as many \
            fraction digits as they need); links are {"$class", "$key"}; embedded objects inline. \
            The dump is one consistent version of the file, read while applications write. \
            objdb load reads dump versions 1 and 2.
            """)

    @OptionGroup var database: DatabaseArgument

    func run() throws {
        try reportingFailures {
            let db = try DatabaseOpening.readOnly(database)
            let classes = db.schema.objectSchema
            let header = DumpHeader(
                schemaVersion: db.storedSchemaVersion,
                classes: classes.map { DumpHeader.Class(schema: $0, nextKey: $0.isEmbedded ? nil : db.nextObjectKey(ofClassNamed: $0.className)) })
            let topLevel = classes.filter { !$0.isEmbedded }
            let progress = Progress(label: "dump", total: topLevel.reduce(0) { $0 + db.objectCount(ofClassNamed: $1.className) })
            let writer = ObjectWriter(db: db, links: .keys)
            let out = OutputWriter()
            out.line(header.text())
            var line = JSONText()
            for schema in topLevel {
                for object in db.dynamicObjects(schema.className) {
                    line.removeAll()
                    try writer.write(object, into: &line)
                    out.line(line.bytes)
                    progress.advance()
                }
            }
            out.flush()
            progress.finish()
        }
    }
}
