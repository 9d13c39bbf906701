import ArgumentParser

/// The `objdb` command: inspects and manages ObjDB database files.
@main
struct ObjDBCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "objdb",
        abstract: "Inspect and manage ObjDB database files.",
        discussion: """
            Works on any ObjDB file without the application's code: the schema is stored in the file.
            Start with `objdb demo` to create a sample database, then `objdb info <file>`.
            Exit status: 0 success, 1 failure (missing file, not an ObjDB file, unknown class, bad
            predicate, type mismatch, integrity fault), 64 usage error.
            """,
        subcommands: [
            DemoCommand.self, InfoCommand.self, ClassesCommand.self, SchemaCommand.self, QueryCommand.self,
            GetCommand.self, ExportCommand.self, ImportCommand.self, DumpCommand.self, LoadCommand.self, CheckCommand.self, BackupCommand.self, StatCommand.self,
            WatchCommand.self, SetCommand.self, DeleteCommand.self, StoreCommand.self,
        ]
    )
}
