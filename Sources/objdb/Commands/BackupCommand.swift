import ArgumentParser
import Foundation
import ObjDB

/// `objdb backup <db> <dest> [--compact]`: a consistent copy while applications keep writing.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a database consistently while it is in use.",
        discussion: """
            Copies the newest committed version under a read transaction, so writers in other \
            processes go on. --compact writes only the pages in use, renumbered (the copy is \
            smaller when the file has free pages). The destination must not exist.
            """)

    @OptionGroup var database: DatabaseArgument

    @Argument(help: "The file to create.", completion: .file())
    var destination: String

    @Flag(help: "Leave out free pages.")
    var compact = false

    func run() throws {
        try reportingFailures {
            guard !FileManager.default.fileExists(atPath: destination) else {
                throw CommandFailure("\(destination): exists; backup never overwrites a file")
            }
            let db = try DatabaseOpening.readOnly(database)
            try db.writeCopy(toFile: URL(fileURLWithPath: destination), compacting: compact)
            let size = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
            Console.line("\(destination): \(size) bytes (from \(db.fileSize))")
        }
    }
}
