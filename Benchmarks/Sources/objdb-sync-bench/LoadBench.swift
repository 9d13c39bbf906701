import Foundation
import JWTKit
import Logging
import ObjDB
import ObjDBSync
import ObjDBSyncProtocol
import ObjDBSyncServer
import ObjDBSyncTestSupport
import PostgresNIO

/// A row of the load benchmark: each user's own items and shared ones.
final class LoadItem: Object {
    @Persisted(primaryKey: true) var id = ""
    @Persisted var owner = ""
    @Persisted var shared = false
    @Persisted var stamp: Double = 0
}

/// The load benchmark (`--load`): one service instance under rules (`owner == $user OR shared
/// == true`), N protocol-level connections of N users in a child process, and commits through
/// postgres-nio at a steady rate, each a new item (a user's own, or shared with every user):
/// every connection must receive every item it may see. Reports commit-to-receipt p50/p99, the
/// service's memory per idle connection (this process's resident memory, which holds the
/// service and not the clients), and how long all connections take to catch up after they are
/// dropped and reconnect at once.
struct LoadBench {
    let options: Options
    let secret: [UInt8] = Array("objdb-sync-bench-secret-0123456789".utf8)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("objdb-load-bench-\(getpid())")

    static let rules = #"{"classes": {"LoadItem": {"read": "owner == $user OR shared == true", "write": "owner == $user"}}}"#

    /// This process's resident memory, in bytes.
    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
    }

    func run() async throws -> String {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let n = options.connections
        progress("load: starting PostgreSQL and the service")
        let db = try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_load_bench")
        var logger = Logger(label: "objdb.load")
        logger.logLevel = .warning
        let server = try await SyncServer(
            configuration: .init(
                postgresURL: db.url, host: "127.0.0.1", port: 0, authentication: .hs256(secret: secret), rules: try SyncRules(json: Self.rules),
                createsTablesFromClientSchemas: true, logger: logger))
        try await server.start()

        // The table, made by a client's hello.
        var config = Configuration(fileURL: directory.appendingPathComponent("seed.objdb"))
        config.objectTypes = [LoadItem.self]
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        let seedToken = try await keys.sign(BenchClaims(sub: .init(value: "seed"), exp: .init(value: Date().addingTimeInterval(86_400))))
        let seed = try SyncClient(
            configuration: config, sync: SyncConfiguration(serverURL: URL(string: "ws://127.0.0.1:\(server.port)/sync")!, token: { seedToken }))
        try await seed.subscriptions.update { $0.append(QuerySubscription<LoadItem>()) }
        await seed.start()
        try await seed.waitForDownload()
        await seed.stop()

        var tokens: [String] = []
        for i in 0..<n {
            tokens.append(try await keys.sign(BenchClaims(sub: .init(value: "u\(i)"), exp: .init(value: Date().addingTimeInterval(86_400)))))
        }
        let tokensFile = directory.appendingPathComponent("tokens")
        try Data(tokens.joined(separator: "\n").utf8).write(to: tokensFile)

        let before = Self.residentBytes()
        progress("load: \(n) connections")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--load-clients", "\(server.port)", "\(n)", tokensFile.path]
        let input = Pipe(), output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        try child.run()
        var lines = LoadClients.lines(of: output.fileHandleForReading).makeAsyncIterator()
        guard let ready = await lines.next(), ready.hasPrefix("ready") else { throw BenchFailure("the load clients did not start") }
        try await Task.sleep(for: .seconds(2))
        let idle = Self.residentBytes()

        let connection = try await db.connect()
        progress("load: \(options.rate) commits/s for \(options.seconds) s")
        var own = 0, shared = 0
        let interval = Duration.nanoseconds(1_000_000_000 / options.rate)
        var next = ContinuousClock.now
        let k = options.rowsPerCommit
        /// One commit of `k` new items, 1 in 10 shared.
        func commit(_ i: Int) async throws {
            var ids: [String] = [], owners: [String] = [], isShared: [Bool] = []
            for j in 0..<k {
                let row = i * k + j
                ids.append("c\(row)")
                isShared.append(row % 10 == 0)
                owners.append(row % 10 == 0 ? "nobody" : "u\(Int.random(in: 0..<n))")
            }
            let stamp = Date().timeIntervalSince1970
            try await connection.query(
                #"INSERT INTO "LoadItem" (id, owner, shared, stamp) SELECT *, \#(stamp) FROM UNNEST(\#(ids)::text[], \#(owners)::text[], \#(isShared)::bool[])"#,
                logger: logger)
            let sharedCount = isShared.filter { $0 }.count
            shared += sharedCount
            own += k - sharedCount
        }
        var i = 0
        let end = ContinuousClock.now + .seconds(options.seconds)
        var steadyExpected = 0
        while ContinuousClock.now < end {
            try await commit(i)
            i += 1
            next += interval
            try await Task.sleep(until: next)
        }
        try await Task.sleep(for: .seconds(3))
        steadyExpected = own + shared * n
        let steadyCommits = own + shared

        // Every connection dropped and reconnected at once, while commits go on.
        progress("load: reconnect storm")
        input.fileHandleForWriting.write(Data("drop\n".utf8))
        let steady = await lines.next() ?? "{}"
        let stormEnd = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < stormEnd {
            try await commit(i)
            i += 1
            next = ContinuousClock.now + interval
            try await Task.sleep(until: next)
        }
        // The child timed the catch-up itself (it prints the line when the last one got it).
        let caughtUp = await lines.next() ?? "none"
        try await Task.sleep(for: .seconds(3))
        input.fileHandleForWriting.write(Data("report\n".utf8))
        let report = await lines.next() ?? "{}"
        child.waitUntilExit()
        try await connection.close()
        try await server.stop()

        let expected = own + shared * n
        return """
            Load: \(n) connections of \(n) users, one service instance, rules owner == $user OR shared == true
            steady: \(steadyCommits) new items in \(options.seconds) s (\(options.rate) commits/s of \(k) items, 1 in 10 shared); receipts expected \(steadyExpected), got \(steady) (ms)
            storm: all connections dropped and reconnected at once while commits go on: \(caughtUp) s; \
            receipts expected \(expected - steadyExpected), got \(report) (ms)
            service memory per idle connection: \((idle - before) / max(1, n)) bytes (resident \(before / 1_048_576) → \(idle / 1_048_576) MiB)
            """
    }
}
