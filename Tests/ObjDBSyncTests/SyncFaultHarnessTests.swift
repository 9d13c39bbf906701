import Foundation
import Logging
import ObjDB
import ObjDBSyncProtocol
import ObjDBSyncTestModels
import ObjDBSyncTestSupport
import ObjDBTestProcesses
import PostgresNIO
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The sync fault harness: client processes of three users (one with two devices) make random
/// creates, updates, deletes, list appends and subscription changes through two service
/// instances (`objdb-sync serve --rules`), while the harness kills clients (SIGKILL, at random
/// moments: after a commit, during an upload or a download) and service instances, and
/// restarts PostgreSQL (in a run of its own, on the tests' own cluster). After each
/// round, once quiet, every file must hold exactly the rows its subscription and the rules
/// select in PostgreSQL, every list append a client saw acknowledged must be in PostgreSQL, and
/// no append may be there twice.
///
/// `OBJDB_SYNC_FAULT_ROUNDS` sets the rounds (2 in CI; the full run in Docs/Sync.md makes 200),
/// `OBJDB_SYNC_FAULT_SEED` the seed.
@Suite(.serialized, .timeLimit(.minutes(60)))
struct SyncFaultHarnessTests {
    let directory = SyncScratch()
    static let environment = ProcessInfo.processInfo.environment
    static let rounds = Int(environment["OBJDB_SYNC_FAULT_ROUNDS"] ?? "") ?? 2
    static let seed = UInt64(environment["OBJDB_SYNC_FAULT_SEED"] ?? "") ?? UInt64.random(in: 1...1_000_000)
    /// Whether rounds restart PostgreSQL: in a run of the harness alone (its rounds set).
    static let restartsPostgres = environment["OBJDB_SYNC_FAULT_ROUNDS"] != nil

    static let rules = """
        { "classes": {
            "SyncedTodo": { "read": "title BEGINSWITH $user OR title == 'shared'", "write": "title BEGINSWITH $user OR title == 'shared'" },
            "SyncedOwner": { "read": "TRUEPREDICATE", "write": "TRUEPREDICATE" } } }
        """
    /// The files and their users: u1 has two devices.
    static let files = [("u1a.objdb", "u1"), ("u1b.objdb", "u1"), ("u2.objdb", "u2"), ("u3.objdb", "u3")]

    /// A service instance on a fixed port, restarted when killed.
    final class Service: @unchecked Sendable {
        let port: Int
        let arguments: [String]
        var process: TestProcess?

        init(port: Int, arguments: [String]) {
            self.port = port
            self.arguments = arguments
        }

        func start() async throws {
            let process = try TestProcess("objdb-sync", ["serve", "--port", "\(port)"] + arguments, timeout: nil)
            guard await process.nextLine()?.hasPrefix("objdb-sync listening") == true else { throw HarnessError("the service did not start") }
            self.process = process
        }

        /// Kills the service; one that died by itself (a crash, an internal check) is a failure.
        func kill() {
            if let process, !process.process.isRunning {
                Issue.record("the service on port \(port) died by itself: status \(process.process.terminationStatus), \(process.process.terminationReason)")
            }
            process?.kill()
            process = nil
        }
    }

    @Test func clientsAndServicesKilledAtRandomStillConverge() async throws {
        var random = SeededGenerator(state: Self.seed)
        let pg = try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_faults")
        let secret = directory.url("secret.key")
        try Data(testSecret).write(to: secret)
        let rulesFile = directory.url("rules.json")
        try Data(Self.rules.utf8).write(to: rulesFile)
        let common = ["--postgres", pg.url, "--jwt-secret-file", secret.path, "--rules", rulesFile.path, "--development"]
        let services = [Service(port: try freePort(), arguments: common), Service(port: try freePort(), arguments: common)]
        for service in services { try await service.start() }
        defer { for service in services { service.kill() } }
        var tokens: [String: String] = [:]
        for user in ["u1", "u2", "u3"] { tokens[user] = try await makeToken(user: user) }

        // The tables (made by the first hellos), then the shared todos every user appends to,
        // in every file before the first round.
        func settleAll() async throws {
            for (file, user) in Self.files {
                let settled = try await TestProcess.runOffPool(
                    "ObjDBSyncTestClient", [directory.url(file).path, "ws://127.0.0.1:\(services[0].port)/sync", tokens[user] ?? "", "settle"])
                #expect(settled.status == 0, "\(file): \(settled.error)")
            }
        }
        try await settleAll()
        _ = try await pg.withConnection { c in
            try await c.query(
                #"INSERT INTO "SyncedTodo" (id, title, done, count, score, lines) SELECT 'shared-' || n, 'shared', false, 0, 0, '{}' FROM generate_series(0, 2) AS n"#,
                logger: Logger(label: "t"))
        }
        try await settleAll()

        var acknowledged = Set<String>()
        var appended = Set<String>()
        var kills = (clients: 0, services: 0, postgres: 0)
        var divergences = 0
        let started = ContinuousClock.now
        for round in 0..<Self.rounds {
            // A service instance may die while the clients work.
            let doomed = Int.random(in: 0..<4, using: &random) == 0 ? services[Int.random(in: 0..<2, using: &random)] : nil
            var workers: [(TestProcess, Int?)] = []
            for (file, user) in Self.files {
                let port = services[Int.random(in: 0..<2, using: &random)].port
                let worker = try TestProcess(
                    "ObjDBSyncTestClient",
                    [directory.url(file).path, "ws://127.0.0.1:\(port)/sync", tokens[user] ?? "", "work", user,
                     "\(Self.seed &* 1000 &+ UInt64(round * 10 + workers.count))", "\(Int.random(in: 10..<40, using: &random))"],
                    timeout: 120)
                // Half of them are killed after a while: after a commit, or while they send or
                // receive (wherever they are then).
                workers.append((worker, Bool.random(using: &random) ? Int.random(in: 20..<400, using: &random) : nil))
            }
            // The doomed instance dies a little after the round starts and comes back 300 ms
            // later (its clients reconnect to it, or wait for it).
            var revival: Task<Void, any Error>?
            if let doomed {
                let delay = Int.random(in: 10..<200, using: &random)
                kills.services += 1
                revival = Task {
                    try await Task.sleep(for: .milliseconds(delay))
                    doomed.kill()
                    try await Task.sleep(for: .milliseconds(300))
                    try await doomed.start()
                }
            }
            for (worker, killAfter) in workers {
                if let killAfter {
                    try await Task.sleep(for: .milliseconds(killAfter))
                    worker.kill()
                    kills.clients += 1
                }
            }
            for (worker, _) in workers {
                // Its output, whole (a killed one's up to its death).
                while let line = await worker.nextLine() {
                    let words = line.split(separator: " ").map(String.init)
                    if words.first == "append", words.count == 3 {
                        #expect(appended.insert(words[2]).inserted, "token \(words[2]) appended twice")
                    }
                    if words.first == "acked" { acknowledged.formUnion(words.dropFirst()) }
                }
                await worker.exited()
            }
            try await revival?.value
            // One round in eight ends with PostgreSQL restarted: every service's connections are
            // cut, and the settle below goes through it. (A fast shutdown: the test cluster runs
            // without fsync and with asynchronous commits, so a crash would lose commits it had
            // acknowledged.) Only in a run of its own (the rounds set): the cluster is every
            // other test's too.
            if Self.restartsPostgres, Int.random(in: 0..<8, using: &random) == 0, try await TemporaryPostgres.shared.restart() {
                kills.postgres += 1
                print("fault harness round \(round): PostgreSQL restarted")
            }

            // Quiet: every file uploads what it holds, then every file downloads and is compared
            // with PostgreSQL, which no longer changes.
            func settle(_ file: String, _ user: String) async throws -> [String] {
                let port = services[Int.random(in: 0..<2, using: &random)].port
                let settled = try await TestProcess.runOffPool(
                    "ObjDBSyncTestClient", [directory.url(file).path, "ws://127.0.0.1:\(port)/sync", tokens[user] ?? "", "settle"])
                #expect(settled.status == 0, "seed \(Self.seed), round \(round), \(file): \(settled.error)")
                return settled.output.split(separator: "\n").map(String.init)
            }
            for (file, user) in Self.files { _ = try await settle(file, user) }
            let current = try await Self.rows(pg)
            for (file, user) in Self.files {
                var lines = try await settle(file, user)
                guard !lines.isEmpty else { continue }
                let open = lines.removeFirst() == "subscription open"
                let expected = current.filter { row in
                    let fields = row.split(separator: "|", omittingEmptySubsequences: false)
                    let title = fields.count > 1 ? String(fields[1]) : ""
                    let done = fields.count > 2 && fields[2] == "true"
                    return (title.hasPrefix(user) || title == "shared") && (!open || !done)
                }
                if lines != expected {
                    divergences += 1
                    let extra = Set(lines).subtracting(expected).sorted(), missing = Set(expected).subtracting(lines).sorted()
                    Issue.record(
                        "seed \(Self.seed), round \(round): \(file) (\(open ? "open" : "all")) differs from PostgreSQL: the file has \(extra.map { String($0.suffix(160)) }), PostgreSQL has \(missing.map { String($0.suffix(160)) })"
                    )
                }
            }
        }
        // Every acknowledged append is in PostgreSQL, and none is there twice.
        let all = try await Self.rows(pg).flatMap { row -> [String] in
            guard let lines = row.split(separator: "|", omittingEmptySubsequences: false).last, !lines.isEmpty else { return [] }
            return lines.split(separator: ",").map(String.init)
        }
        let counted = Dictionary(all.map { ($0, 1) }, uniquingKeysWith: +)
        #expect(counted.values.allSatisfy { $0 == 1 }, "seed \(Self.seed): an append applied twice")
        let lost = acknowledged.subtracting(counted.keys)
        #expect(lost.isEmpty, "seed \(Self.seed): acknowledged appends lost: \(lost.sorted().prefix(10))")
        print(
            "fault harness seed \(Self.seed): \(Self.rounds) rounds in \(ContinuousClock.now - started), \(kills.clients) clients and \(kills.services) services killed, PostgreSQL restarted \(kills.postgres) times, \(appended.count) appends (\(acknowledged.count) acknowledged), \(divergences) divergences"
        )
    }

    /// The todos in PostgreSQL, as the settle command prints a file's.
    static func rows(_ pg: TemporaryPostgres.Database) async throws -> [String] {
        try await pg.withConnection { c in
            let result = try await c.query(
                #"SELECT id, title, done, count, array_to_string(lines, ',') FROM "SyncedTodo" ORDER BY id COLLATE "C""#, logger: Logger(label: "t"))
            var rows: [String] = []
            for try await (id, title, done, count, lines) in result.decode((String, String, Bool, Int, String).self) {
                rows.append("\(id)|\(title)|\(done)|\(count)|\(lines)")
            }
            return rows
        }
    }
}
