import ArgumentParser
import Foundation
import Logging
import ObjDBSyncServer

/// `objdb-sync serve`: runs the service until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the sync service until SIGINT or SIGTERM.")

    @Option(help: "PostgreSQL URL: postgres://user[:password]@host[:port]/database[?sslmode=require]")
    var postgres: String

    @Option(help: "The port to listen on (0: any free port; the port is printed).")
    var port: Int = 7800

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "A file holding the HS256 secret that signs tokens.")
    var jwtSecretFile: String

    @Flag(help: "Development mode: create tables and add columns from the clients' schemas.")
    var development = false

    func run() async throws {
        let secret = try readSecret(jwtSecretFile)
        var logger = Logger(label: "objdb-sync")
        logger.logLevel = .info
        let server = try await SyncServer(
            configuration: .init(
                postgresURL: postgres, host: host, port: port, authentication: .hs256(secret: secret), rules: .allowAll,
                createsTablesFromClientSchemas: development, logger: logger))
        try await server.start()
        FileHandle.standardOutput.write(Data("objdb-sync listening on \(host):\(server.port)\n".utf8))
        await waitForTerminationSignal()
        print("objdb-sync stopping")
        try await server.stop()
    }
}

/// The secret of a secret file: its bytes, without a trailing newline.
func readSecret(_ path: String) throws -> [UInt8] {
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
    guard bytes.count >= 32 else { throw ValidationError("The secret in \(path) needs at least 32 bytes (HS256)") }
    return bytes
}

/// Returns at the first SIGINT or SIGTERM.
func waitForTerminationSignal() async {
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    let (stream, continuation) = AsyncStream<Void>.makeStream()
    let sources = [SIGINT, SIGTERM].map { sig in
        let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
        source.setEventHandler { continuation.yield() }
        source.resume()
        return source
    }
    for await _ in stream { break }
    sources.forEach { $0.cancel() }
}
