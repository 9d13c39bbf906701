import ArgumentParser
import Foundation
@_spi(Inspection) import ObjDB

/// `objdb dump <db>`: the whole file as versioned JSON lines, schema included, for `objdb load`.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Write the whole database, schema included, as a versioned text dump for objdb load.",
        discussion: """
            JSON lines: a header line {"objdb-dump": 1, "schemaVersion": …, "classes": […]} with \
            every class, its properties and key counter, then one line per object with its \
            "$class" and "$key". Values are exact (dates as the seconds since 2001 the file \
            stores); links are {"$class", "$key"}; embedded objects inline. The dump is one \
            consistent version of the file, read while applications write.
            """)

    @OptionGroup var database: DatabaseArgument

    func run() throws {
        try reportingFailures {
            let db = try DatabaseOpening.readOnly(database.file)
            let classes = db.schema.objectSchema
            let header = DumpHeader(
                schemaVersion: db.storedSchemaVersion,
                classes: classes.map { DumpHeader.Class(schema: $0, nextKey: $0.isEmbedded ? nil : db.nextObjectKey(ofClassNamed: $0.className)) })
            let topLevel = classes.filter { !$0.isEmbedded }
            let progress = Progress(label: "dump", total: topLevel.reduce(0) { $0 + db.objectCount(ofClassNamed: $1.className) })
            let writer = DumpWriter(schema: db.schema)
            let out = OutputWriter()
            out.line(header.text())
            for schema in topLevel {
                for object in db.dynamicObjects(schema.className) {
                    out.line(writer.line(object))
                    progress.advance()
                }
            }
            out.flush()
            progress.finish()
        }
    }
}
