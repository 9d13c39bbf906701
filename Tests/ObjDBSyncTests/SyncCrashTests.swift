import Foundation
import Logging
import ObjDB
import ObjDBSync
import ObjDBSyncServer
import ObjDBSyncTestModels
import ObjDBSyncTestSupport
import ObjDBTestProcesses
import PostgresNIO
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Processes killed at the worst moments: nothing acknowledged is lost, nothing is applied
/// twice. List appends show double application (an append applied twice leaves two elements).
@Suite(.serialized)
struct SyncCrashTests {
    let directory = SyncScratch()

    /// The lines of todo `id` in PostgreSQL.
    func lines(_ pg: TemporaryPostgres.Database, _ id: String) async throws -> [String]? {
        try await pg.withConnection { connection in
            let rows = try await connection.query(#"SELECT lines FROM "SyncedTodo" WHERE id = \#(id)"#, logger: Logger(label: "test"))
            var result: [String]?
            for try await lines in rows.decode([String].self) { result = lines }
            return result
        }
    }

    /// Makes the file synced, as a first `SyncClient` does, and lets it go.
    func makeSynced(_ file: URL, port: Int) async throws {
        var config = Configuration(fileURL: file)
        config.objectTypes = syncedTestTypes
        let token = try await makeToken(user: "ann")
        let client = try SyncClient(
            configuration: config,
            sync: SyncConfiguration(serverURL: URL(string: "ws://127.0.0.1:\(port)/sync")!, token: { token }))
        try await client.subscriptions.update { $0.append(QuerySubscription<SyncedTodo>()) }
    }

    func clientProcess(_ file: URL, port: Int, _ arguments: [String]) async throws -> TestProcess {
        let token = try await makeToken(user: "ann")
        return try TestProcess("ObjDBSyncTestClient", [file.path, "ws://127.0.0.1:\(port)/sync", token] + arguments, timeout: 60)
    }

    @Test func aClientKilledRightAfterItsCommitUploadsItOnceAtRestart() async throws {
        try await withSyncServer { server, pg in
            let file = directory.url("a.objdb")
            try await makeSynced(file, port: server.port)
            let killed = try await clientProcess(file, port: server.port, ["append", "t", "one", "--kill"])
            await killed.exited()
            #expect(killed.process.terminationReason == .uncaughtSignal && killed.process.terminationStatus == SIGKILL)
            let restarted = try await clientProcess(file, port: server.port, ["sync"])
            #expect(await restarted.nextLine() == "uploaded")
            #expect(await restarted.nextLine() == "downloaded")
            await restarted.exited()
            #expect(try await lines(pg, "t") == ["one"])
        }
    }

    @Test func aClientKilledBeforeTheAcknowledgementIsNotAppliedTwice() async throws {
        let victim = ProcessSlot()
        try await withSyncServer(afterApplyingUpload: { _, _ in
            // The upload is committed in PostgreSQL; the client dies before the ack reaches it.
            victim.killOnce()
        }) { server, pg in
            let file = directory.url("a.objdb")
            try await makeSynced(file, port: server.port)
            // The todo exists on the service; then an append, whose upload the client never
            // hears acknowledged.
            let creator = try await clientProcess(file, port: server.port, ["append", "t", "zero"])
            await creator.exited()
            let setup = try await clientProcess(file, port: server.port, ["sync"])
            #expect(await setup.nextLine() == "uploaded")
            await setup.exited()
            let writer = try await clientProcess(file, port: server.port, ["append", "t", "one"])
            await writer.exited()
            let first = try await clientProcess(file, port: server.port, ["sync"])
            victim.set(first)
            await first.exited()
            #expect(first.process.terminationStatus == SIGKILL)
            #expect(try await lines(pg, "t") == ["zero", "one"])
            // Its file still holds the append, unacknowledged: sent again, skipped by the service.
            let db = try Database(configuration: Configuration(fileURL: file, objectTypes: syncedTestTypes), isolation: nil)
            #expect(try db.syncFileState()?.acknowledged == 1)
            #expect(try db.outboxOperations(after: 1).map(\.listAppends) == [["lines": [.string("one")]]])
            let second = try await clientProcess(file, port: server.port, ["sync"])
            #expect(await second.nextLine() == "uploaded")
            await second.exited()
            #expect(try await lines(pg, "t") == ["zero", "one"])
            db.refresh()
            #expect(try db.syncFileState()?.acknowledged == 2)
        }
    }

    @Test func aServiceKilledMidBatchAppliesNothingOfIt() async throws {
        let pg = try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_crash")
        let secret = directory.url("secret.key")
        try Data(testSecret).write(to: secret)
        let port = try freePort()
        let file = directory.url("a.objdb")
        try await makeSynced(file, port: port)
        // Three appends to one todo, in one batch.
        for line in ["one", "two", "three"] {
            let writer = try await clientProcess(file, port: port, ["append", "t", line])
            await writer.exited()
        }
        let doomed = try TestProcess(
            "objdb-sync", ["serve", "--postgres", pg.url, "--port", "\(port)", "--jwt-secret-file", secret.path, "--development"],
            timeout: 60, environment: ["OBJDB_SYNC_FAULT": "die-mid-batch"])
        #expect(await doomed.nextLine()?.hasPrefix("objdb-sync listening") == true)
        let client = try await clientProcess(file, port: port, ["sync"])
        await doomed.exited()
        #expect(doomed.process.terminationStatus == SIGKILL)
        // The batch's transaction died with its connection: nothing of it is in PostgreSQL.
        #expect(try await lines(pg, "t") == nil)
        // The client reconnects to a new service on the same port and uploads again.
        let server = try TestProcess(
            "objdb-sync", ["serve", "--postgres", pg.url, "--port", "\(port)", "--jwt-secret-file", secret.path, "--development"],
            timeout: 60)
        defer { server.kill() }
        #expect(await server.nextLine()?.hasPrefix("objdb-sync listening") == true)
        #expect(await client.nextLine() == "uploaded")
        await client.exited()
        #expect(try await lines(pg, "t") == ["one", "two", "three"])
    }
}

/// The client process the server's hook kills, once.
final class ProcessSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var process: TestProcess?
    private var killed = false

    func set(_ process: TestProcess) { lock.withLock { self.process = process } }

    /// Kills the process with SIGKILL the first time it is called after ``set(_:)``.
    func killOnce() {
        let target = lock.withLock { () -> TestProcess? in
            guard !killed, let process else { return nil }
            killed = true
            return process
        }
        if let target { kill(target.process.processIdentifier, SIGKILL) }
    }
}

/// A TCP port nothing listens on now.
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw HarnessError("no free port: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
}
