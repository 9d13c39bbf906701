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

    @OptionGroup var keys: TokenKeys

    @Option(help: "The audience tokens must name in their aud claim (none by default: any or none).")
    var audience: String?

    @Option(help: "A JSON file of read and write rules per class (without it, every user reads and writes everything).")
    var rules: String?

    @Flag(help: "Development mode: create tables and add columns from the clients' schemas.")
    var development = false

    func run() async throws {
        var logger = Logger(label: "objdb-sync")
        logger.logLevel = .info
        let syncRules = try rules.map { try SyncRules(contentsOf: URL(fileURLWithPath: $0)) } ?? .allowAll
        if rules == nil {
            logger.warning("No --rules: every user with a valid token reads and writes every object")
        }
        var configuration = SyncServer.Configuration(
            postgresURL: postgres, host: host, port: port, authentication: try keys.authentication(), rules: syncRules,
            createsTablesFromClientSchemas: development, logger: logger)
        configuration.audience = audience
        let server = try await SyncServer(configuration: configuration)
        try await server.start()
        FileHandle.standardOutput.write(Data("objdb-sync listening on \(host):\(server.port)\n".utf8))
        await waitForTerminationSignal()
        print("objdb-sync stopping")
        try await server.stop()
    }
}

/// The key that verifies tokens: one of an HS256 secret file, an RS256 or an ES256 public key.
struct TokenKeys: ParsableArguments {
    @Option(help: "A file holding the HS256 secret that signs tokens (at least 32 bytes).")
    var jwtSecretFile: String?

    @Option(help: "A PEM file holding the RSA public key of RS256 tokens.")
    var jwtRs256PublicKeyFile: String?

    @Option(help: "A PEM file holding the P-256 public key of ES256 tokens.")
    var jwtEs256PublicKeyFile: String?

    func validate() throws {
        let given = [jwtSecretFile, jwtRs256PublicKeyFile, jwtEs256PublicKeyFile].compactMap { $0 }.count
        guard given == 1 else {
            throw ValidationError("Give exactly one of --jwt-secret-file, --jwt-rs256-public-key-file and --jwt-es256-public-key-file")
        }
    }

    /// The server's authentication from the one key given.
    func authentication() throws -> SyncServer.Authentication {
        if let jwtSecretFile { return .hs256(secret: try readSecret(jwtSecretFile)) }
        if let jwtRs256PublicKeyFile { return .rs256(publicKeyPEM: try String(contentsOfFile: jwtRs256PublicKeyFile, encoding: .utf8)) }
        if let jwtEs256PublicKeyFile { return .es256(publicKeyPEM: try String(contentsOfFile: jwtEs256PublicKeyFile, encoding: .utf8)) }
        throw ValidationError("No key to verify tokens with")
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
