import ArgumentParser

/// `objdb-sync`: runs the ObjDB sync service and helps operate it.
@main
struct ObjDBSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "objdb-sync",
        abstract: "The ObjDB sync service: devices sync their files with PostgreSQL through it.",
        subcommands: [Serve.self, Token.self, Status.self]
    )
}
