import Foundation
import Logging
import ObjDB
import ObjDBSyncProtocol
@testable import ObjDBSyncServer
import ObjDBSyncTestSupport
import PostgresNIO
import Testing

/// A client that stops reading costs the service one pending part, not a read that grows with
/// everything committed since it stalled; other clients keep being served, and the stalled one
/// catches up once it reads again.
@Suite(.serialized)
struct StalledClientTests {
    /// A hello subscribing to notes by a query, so that rounds also read old rows for it.
    static func hello() -> ClientMessage.Hello {
        var hello = Model.hello(subscriptions: [])
        hello.queries = [ClientMessage.SubscriptionQuery(className: "Note", predicate: "text != %@", arguments: [.string("never")])]
        return hello
    }

    /// Downloads until a change of `key` has `text` (for at most two minutes).
    static func waitForText(_ client: TestClient, key: String, text: String) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            for part in try await client.download(timeout: .seconds(120)) {
                if part.changes.contains(where: { $0.primaryKey == .string(key) && $0.values?["text"] == .string(text) }) { return }
            }
        }
        throw HarnessError("\(key) never had the text \(text.prefix(20))…")
    }

    /// The checkpoint of the session of `user` if it is sending a part (else `nil`).
    static func checkpointWhileSending(_ server: SyncServer, user: String) async -> String? {
        for session in await server.hub.all() where session.user == user && session.mailbox.withLock({ $0.isSending }) {
            return session.position.withLock { $0?.checkpoint }
        }
        return nil
    }

    @Test func aStalledClientCostsRoundsNothingAndCatchesUpAfter() async throws {
        let pg = try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_stalled")
        try await withStartedServer(on: pg) { server in
            let stalled = TestClient(port: server.port, token: try await makeToken(user: "ann"))
            let healthy = TestClient(port: server.port, token: try await makeToken(user: "bob"))
            do {
                try await run(server, pg, stalled: stalled, healthy: healthy)
            } catch {
                // A paused client would keep the service's stop waiting on its socket.
                await stalled.inbox.pause(false)
                await stalled.close()
                await healthy.close()
                throw error
            }
            await stalled.close()
            await healthy.close()
        }
    }

    /// The test's steps: the stall, a hundred commits while it lasts, the catch-up.
    func run(_ server: SyncServer, _ pg: TemporaryPostgres.Database, stalled: TestClient, healthy: TestClient) async throws {
        _ = try await stalled.hello(Self.hello())
        _ = try await healthy.hello(Self.hello())
        await stalled.inbox.pause(true)
        func sql(_ text: String) async throws {
            try await pg.withConnection { c in _ = try await c.query(PostgresQuery(unsafeSQL: text), logger: Logger(label: "test")) }
        }
        // Large rows until the stalled client's socket and buffers are full and its session
        // waits: 10 MB at a time, each also downloaded by the healthy client, until the session
        // is seen sending from the same checkpoint after two batches in a row.
        var batch = 0
        var sending: String?
        while true {
            let now = await Self.checkpointWhileSending(server, user: "ann")
            if let now, now == sending { break }
            sending = now
            batch += 1
            try #require(batch <= 30, "the stalled client's session never waited on its socket")
            try await sql(
                "INSERT INTO \"Note\" (id, text, tags) SELECT 'big\(batch)-' || g, repeat('x', 200000) || g, '{}' FROM generate_series(1, 50) g")
            try await Self.waitForText(healthy, key: "big\(batch)-50", text: String(repeating: "x", count: 200_000) + "50")
        }
        // The feed moves on by a hundred commits of one small object.
        await server.fanout.resetLargestRead()
        try await sql("INSERT INTO \"Note\" (id, text, tags) VALUES ('small', 'v0', '{}')")
        for i in 1...100 { try await sql("UPDATE \"Note\" SET text = 'v\(i)' WHERE id = 'small'") }
        try await Self.waitForText(healthy, key: "small", text: "v100")
        // Without the stalled client left out, a round would read every large row since its
        // checkpoint (100 at least) and every old row of 'small' (100 by the end): over 200.
        // The healthy client's rounds read 'small' and its old rows since that client's
        // checkpoint: at most 1 + 101, however far behind it falls (3 or 4 when measured).
        let largest = await server.fanout.largestRead
        #expect(largest < 120, "a round read \(largest) rows")
        // Reading again, it gets everything, ending with the last value.
        await stalled.inbox.pause(false)
        try await Self.waitForText(stalled, key: "small", text: "v100")
    }
}
