import Foundation
import Logging
import PostgresNIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A PostgreSQL database for one test suite: a fresh database on the server that
/// `OBJDB_TEST_POSTGRES_URL` names, or else on a temporary cluster this process starts once
/// (like Debian's `pg_virtualenv`) and removes when it exits.
///
/// ```swift
/// let db = try await TemporaryPostgres.shared.makeDatabase()
/// let server = try await SyncServer(configuration: .init(postgresURL: db.url, …))
/// ```
public actor TemporaryPostgres {
    /// The one cluster (or configured server) of the test process.
    public static let shared = TemporaryPostgres()

    /// A database made for a test suite.
    public struct Database: Sendable {
        /// `postgres://user@127.0.0.1:port/name?sslmode=disable`.
        public let url: String
        /// The host.
        public let host: String
        /// The TCP port.
        public let port: Int
        /// The user.
        public let username: String
        /// The password, if any.
        public let password: String?
        /// The database's name.
        public let name: String

        /// A direct connection configuration, for writing to the database as any SQL client would.
        public var connectionConfiguration: PostgresConnection.Configuration {
            PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: name, tls: .disable)
        }

        /// Opens a connection (close it when done, on every path: postgres-nio stops a debug
        /// build that lets one go unclosed).
        public func connect(logger: Logger = Logger(label: "objdb.test.postgres")) async throws -> PostgresConnection {
            try await PostgresConnection.connect(configuration: connectionConfiguration, id: Int.random(in: 1...Int(Int32.max)), logger: logger)
        }

        /// Runs `body` with a new connection, closed afterwards whether `body` throws or not.
        public func withConnection<R>(_ body: (PostgresConnection) async throws -> R) async throws -> R {
            let connection = try await connect()
            do {
                let result = try await body(connection)
                try await connection.close()
                return result
            } catch {
                try? await connection.close()
                throw error
            }
        }
    }

    struct Server: Sendable {
        var host: String
        var port: Int
        var username: String
        var password: String?
        var adminDatabase: String
    }

    var server: Server?
    var counter = 0

    /// Creates a new, empty database; with `icuCollation`, one whose text sorts by ICU's root
    /// locale (`'a' < 'B'`), as most production databases sort by a language's rules: what
    /// byte-wise comparisons must not depend on.
    public func makeDatabase(prefix: String = "objdb_test", icuCollation: Bool = false) async throws -> Database {
        let server = try await startedServer()
        counter += 1
        let name = "\(prefix)_\(getpid())_\(counter)_\(UInt32.random(in: 0...UInt32.max))".lowercased()
        let admin = PostgresConnection.Configuration(
            host: server.host, port: server.port, username: server.username, password: server.password,
            database: server.adminDatabase, tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: admin, id: 1, logger: Self.logger)
        do {
            // The name is ours, made of [a-z0-9_] only.
            let collation = icuCollation ? " TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'und' LOCALE 'C'" : ""
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \"\(name)\"\(collation)"), logger: Self.logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        var url = "postgres://\(server.username)"
        if let password = server.password { url += ":" + (password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? password) }
        url += "@\(server.host):\(server.port)/\(name)?sslmode=disable"
        return Database(url: url, host: server.host, port: server.port, username: server.username, password: server.password, name: name)
    }

    static let logger = Logger(label: "objdb.test.postgres")

    /// Restarts the temporary cluster (`pg_ctl restart -m fast`: every connection is cut);
    /// returns false, doing nothing, for a server named by `OBJDB_TEST_POSTGRES_URL`, which the
    /// tests do not own. Not a crash: the cluster runs with `fsync` and `synchronous_commit`
    /// off, so a crash would lose commits it had acknowledged, which no client could recover.
    public func restart() async throws -> Bool {
        guard server != nil, let (bin, dir) = cleanupState.withLock({ $0 }) else { return false }
        let box = (bin, dir)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            // Blocking: off the cooperative pool.
            DispatchQueue.global().async {
                continuation.resume(with: Result { _ = try Cluster.run("\(box.0)/pg_ctl", ["restart", "-D", "\(box.1)/data", "-m", "fast", "-w", "-t", "60"]) })
            }
        }
        return true
    }

    func startedServer() async throws -> Server {
        if let server { return server }
        let made: Server
        if let text = ProcessInfo.processInfo.environment["OBJDB_TEST_POSTGRES_URL"], !text.isEmpty {
            guard let c = URLComponents(string: text), let host = c.host else {
                throw HarnessError("OBJDB_TEST_POSTGRES_URL is not a postgres:// URL: \(text)")
            }
            let db = c.path.split(separator: "/").first.map(String.init) ?? "postgres"
            made = Server(host: host, port: c.port ?? 5432, username: c.user ?? "postgres", password: c.password, adminDatabase: db)
        } else {
            made = try Cluster.start()
        }
        server = made
        return made
    }
}

/// An error of the test harness.
public struct HarnessError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    /// An error.
    public init(_ description: String) { self.description = description }
}

/// The temporary cluster: initdb in /tmp (as the `postgres` user when running as root),
/// started on a free port, stopped and removed at exit; clusters left by crashed runs are
/// removed first.
enum Cluster {
    static let prefix = "objdb-test-pg-"

    static func binDirectory() throws -> String {
        let fm = FileManager.default
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") where fm.isExecutableFile(atPath: "\(dir)/initdb") {
            return String(dir)
        }
        let base = "/usr/lib/postgresql"
        let versions = ((try? fm.contentsOfDirectory(atPath: base)) ?? []).compactMap { Int($0) }.sorted(by: >)
        for v in versions where fm.isExecutableFile(atPath: "\(base)/\(v)/bin/initdb") { return "\(base)/\(v)/bin" }
        throw HarnessError("PostgreSQL's initdb was not found (install the postgresql package, or set OBJDB_TEST_POSTGRES_URL)")
    }

    static var isRoot: Bool { getuid() == 0 }

    /// Runs a program (as `postgres` when root); throws with its output when it fails.
    /// posix_spawn and waitpid, with output to a file: the server pg_ctl starts must not keep
    /// a pipe of ours open, and the child must be reaped here.
    @discardableResult
    static func run(_ path: String, _ arguments: [String], asPostgres: Bool = true) throws -> String {
        let argv = asPostgres && isRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--", path] + arguments : [path] + arguments
        let outputPath = "/tmp/objdb-pg-run-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArgs, environ)
        guard spawned == 0 else { throw HarnessError("cannot run \(argv[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            throw HarnessError("\(argv.joined(separator: " ")) failed (status \(status)): \(text)")
        }
        return text
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket() failed") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0 else { throw HarnessError("bind() failed") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Stops and removes clusters of test processes that no longer run.
    static func removeStale(bin: String) {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: "/tmp")) ?? [] where name.hasPrefix(prefix) {
            let pidText = name.dropFirst(prefix.count).split(separator: "-").first ?? ""
            guard let pid = Int32(pidText), pid != getpid() else { continue }
            if kill(pid, 0) == 0 { continue }  // still running
            let dir = "/tmp/\(name)"
            if fm.fileExists(atPath: "\(dir)/data/postmaster.pid") {
                _ = try? run("\(bin)/pg_ctl", ["stop", "-D", "\(dir)/data", "-m", "immediate", "-w"])
            }
            try? fm.removeItem(atPath: dir)
        }
    }

    static func start() throws -> TemporaryPostgres.Server {
        let bin = try binDirectory()
        removeStale(bin: bin)
        let dir = "/tmp/\(prefix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let data = "\(dir)/data"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        if isRoot { try run("/bin/chown", ["postgres:postgres", dir], asPostgres: false) }
        try run("\(bin)/initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale"])
        var lastError: Error?
        for _ in 0..<5 {
            let port = try freePort()
            do {
                try run("\(bin)/pg_ctl", [
                    "start", "-D", data, "-w", "-t", "60", "-l", "\(dir)/server.log", "-o",
                    "-p \(port) -c listen_addresses=127.0.0.1 -c unix_socket_directories=\(dir) -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 -c wal_init_zero=off",
                ])
                registerCleanup(bin: bin, dir: dir)
                return TemporaryPostgres.Server(host: "127.0.0.1", port: port, username: "postgres", password: nil, adminDatabase: "postgres")
            } catch {
                lastError = error
            }
        }
        try? FileManager.default.removeItem(atPath: dir)
        throw lastError ?? HarnessError("PostgreSQL did not start")
    }

    static func registerCleanup(bin: String, dir: String) {
        cleanupState.withLock { $0 = (bin, dir) }
        atexit {
            guard let (bin, dir) = cleanupState.withLock({ $0 }) else { return }
            _ = try? Cluster.run("\(bin)/pg_ctl", ["stop", "-D", "\(dir)/data", "-m", "immediate", "-w"])
            try? FileManager.default.removeItem(atPath: dir)
        }
    }
}

/// The cluster to stop at exit (read by the `atexit` handler, which cannot capture).
let cleanupState = LockedValue<(String, String)?>(nil)

/// A value behind a lock.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
