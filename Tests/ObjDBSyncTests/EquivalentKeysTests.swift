import Foundation
import Logging
import ObjDB
import ObjDBSyncProtocol
import ObjDBSyncServer
import ObjDBSyncTestSupport
import PostgresNIO
import Testing

/// Primary keys that are canonically equivalent but different bytes (`"caf\u{E9}"` and
/// `"cafe\u{301}"`) are two objects in PostgreSQL and in ObjDB, and the service keeps them
/// apart: Swift's `String` equates them, so the service's sets and maps of keys compare bytes.
@Suite(.serialized)
struct EquivalentKeysTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    /// The changes of the next download: primary key's bytes → text value (nil when removed).
    static func changes(_ client: TestClient) async throws -> [[UInt8]: String?] {
        try await read(client).changes
    }

    /// The changes of the next download, and the checkpoint it ends at.
    static func read(_ client: TestClient) async throws -> (changes: [[UInt8]: String?], checkpoint: String?) {
        var found: [[UInt8]: String?] = [:]
        let parts = try await client.download()
        for part in parts {
            for change in part.changes {
                guard case .string(let key) = change.primaryKey else { continue }
                if case .string(let text)? = change.values?["text"] { found[Array(key.utf8)] = .some(text) } else { found[Array(key.utf8)] = .some(nil) }
            }
        }
        return (found, parts.last?.checkpoint)
    }

    @Test func equivalentKeysAreTwoObjectsInEveryDownload() async throws {
        let pg = try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_keys")
        try await withStartedServer(on: pg) { server in
            func sql(_ text: String, _ binds: [String]) async throws {
                var bindings = PostgresBindings()
                for b in binds { bindings.append(b) }
                try await pg.withConnection { c in _ = try await c.query(PostgresQuery(unsafeSQL: text, binds: bindings), logger: Logger(label: "test")) }
            }
            // A whole-class subscriber and a query subscriber (whose removals read old rows).
            let whole = TestClient(port: server.port, token: try await makeToken(user: "ann"))
            let query = TestClient(port: server.port, token: try await makeToken(user: "ann"))
            let first = try await whole.hello(Model.hello(subscriptions: ["Note"]))
            var hello = Model.hello(subscriptions: [])
            hello.queries = [ClientMessage.SubscriptionQuery(className: "Note", predicate: "text BEGINSWITH %@", arguments: [.string("keep")])]
            _ = try await query.hello(hello)
            let start = first.download.last?.checkpoint

            try await sql(#"INSERT INTO "Note" (id, text, tags) VALUES ($1, 'keep 1', '{}'), ($2, 'keep 2', '{}')"#, [Self.composed, Self.decomposed])
            let expectedBoth: [[UInt8]: String?] = [Array(Self.composed.utf8): "keep 1", Array(Self.decomposed.utf8): "keep 2"]
            #expect(try await Self.changes(whole) == expectedBoth)
            #expect(try await Self.changes(query) == expectedBoth)

            // One deleted, the other no longer selected by the query: each said of its own key.
            let removed: String? = nil
            try await sql(#"DELETE FROM "Note" WHERE id = $1"#, [Self.composed])
            #expect(try await Self.changes(whole) == [Array(Self.composed.utf8): removed])
            #expect(try await Self.changes(query) == [Array(Self.composed.utf8): removed])
            try await sql(#"UPDATE "Note" SET text = 'gone' WHERE id = $1"#, [Self.decomposed])
            let gone = try await Self.read(whole)
            #expect(gone.changes == [Array(Self.decomposed.utf8): "gone"])
            #expect(try await Self.changes(query) == [Array(Self.decomposed.utf8): removed])

            // A client coming back from before both reads its own delta: the same two objects.
            var again = Model.hello(subscriptions: ["Note"])
            again.checkpoint = start
            let late = TestClient(port: server.port, token: try await makeToken(user: "ann"))
            let delta = try await late.hello(again).download
            var states: [[UInt8]: String?] = [:]
            for change in delta.flatMap(\.changes) {
                guard case .string(let key) = change.primaryKey else { continue }
                if case .string(let text)? = change.values?["text"] { states[Array(key.utf8)] = .some(text) } else { states[Array(key.utf8)] = .some(nil) }
            }
            #expect(states == [Array(Self.composed.utf8): removed, Array(Self.decomposed.utf8): "gone"])

            // Two more, of which the query selects one: their deletion is said to the query's
            // clients of that one only (the other's key is not theirs to learn), live and to a
            // client coming back with a query.
            let (selected, other) = ("x\u{E9}", "xe\u{301}")
            var beforeThem = Model.hello(subscriptions: [])
            beforeThem.queries = hello.queries
            beforeThem.checkpoint = gone.checkpoint
            try await sql(#"INSERT INTO "Note" (id, text, tags) VALUES ($1, 'keep 3', '{}'), ($2, 'nope', '{}')"#, [selected, other])
            #expect(try await Self.changes(query) == [Array(selected.utf8): "keep 3"])
            try await sql(#"DELETE FROM "Note" WHERE id = ANY(ARRAY[$1, $2])"#, [selected, other])
            #expect(try await Self.changes(query) == [Array(selected.utf8): removed])
            let lateQuery = TestClient(port: server.port, token: try await makeToken(user: "ann"))
            let lateStates = try await lateQuery.hello(beforeThem).download.flatMap(\.changes).map { change -> [UInt8] in
                guard case .string(let key) = change.primaryKey else { return [] }
                return Array(key.utf8)
            }
            #expect(lateStates == [Array(selected.utf8)])
            await whole.close()
            await query.close()
            await late.close()
            await lateQuery.close()
        }
    }
}
