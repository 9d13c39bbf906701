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
            """,
        subcommands: [DemoCommand.self, InfoCommand.self]
    )
}
