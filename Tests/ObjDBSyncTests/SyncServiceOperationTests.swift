import Foundation
import Logging
import NIOWebSocket
import ObjDB
import ObjDBSyncProtocol
import ObjDBSyncServer
import ObjDBSyncTestSupport
import ObjDBTestProcesses
import PostgresNIO
import Testing

/// Running the service: large bootstraps, shutdown, the `objdb-sync` command.
@Suite("Sync service operation", .serialized)
struct SyncServiceOperationTests {
    static let database = Task { try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_sync_ops") }

    @Test func aBootstrapComesInPartsOfAtMost1000FromOneSnapshot() async throws {
        let db = try await Self.database.value
        let server = try await makeServer(db)
        let setup = TestClient(port: server.port, token: try await makeToken(user: "ann"))
        _ = try await setup.hello(Model.hello(subscriptions: ["Note"]))
        await setup.close()
        let connection = try await db.connect()
        try await connection.query(
            #"INSERT INTO "Note" (id, text, tags) SELECT 'bulk-' || n, 'row ' || n, ARRAY['t' || n] FROM generate_series(1, 2500) n"#,
            logger: Logger(label: "t"))
        var total = 0
        for try await n in try await connection.query(#"SELECT count(*) FROM "Note""#, logger: Logger(label: "t")).decode(Int64.self) { total = Int(n) }
        try await connection.close()
        let client = TestClient(port: server.port, token: try await makeToken(user: "ann"))
        let (_, parts) = try await client.hello(Model.hello(subscriptions: ["Note"]))
        #expect(parts.count == (total + 999) / 1000)
        #expect(parts.allSatisfy { $0.changes.count <= SyncLimits.maxChangesPerMessage && $0.isReset })
        #expect(parts.dropLast().allSatisfy { !$0.isFinal && $0.checkpoint == nil && $0.includesSequence == nil })
        #expect(parts.last?.checkpoint != nil && parts.last?.includesSequence == 0)
        #expect(Set(parts.flatMap(\.changes).map(\.primaryKey)).count == total)
        await client.close()
        // A hello with that checkpoint and no change since gets one empty final part.
        let again = TestClient(port: server.port, token: try await makeToken(user: "ann"))
        let (_, delta) = try await again.hello(Model.hello(checkpoint: parts.last?.checkpoint, subscriptions: ["Note"]))
        #expect(delta.count == 1 && delta[0].changes.isEmpty && !delta[0].isReset && delta[0].isFinal)
        await again.close()
        try await server.stop()
    }

    @Test func aCheckpointOlderThanTheTrimmedFeedBootstrapsAgain() async throws {
        let db = try await Self.database.value
        let server = try await makeServer(db)
        let first = TestClient(port: server.port, token: try await makeToken(user: "ann"))
        let (_, parts) = try await first.hello(Model.hello(subscriptions: ["Note"]))
        await first.close()
        let checkpoint = try #require(parts.last?.checkpoint)
        let connection = try await db.connect()
        // A rejection recorded for a client that never came back, before the trim point.
        let (gone, kept) = (UUID(), UUID())
        try await connection.query("INSERT INTO objdb_rejections (client_id, class, pk) VALUES (\(gone), 'Note', 'x')", logger: Logger(label: "t"))
        try await connection.query(#"INSERT INTO "Note" (id, text, tags) VALUES ('before-trim', 'x', '{}')"#, logger: Logger(label: "t"))
        // Before the trim the checkpoint continues as a delta…
        let second = TestClient(port: server.port, token: try await makeToken(user: "ann"))
        let (_, delta) = try await second.hello(Model.hello(checkpoint: checkpoint, subscriptions: ["Note"]))
        #expect(delta.allSatisfy { !$0.isReset } && delta.flatMap(\.changes).map(\.primaryKey) == [.string("before-trim")])
        await second.close()
        // …after it, it bootstraps; the rejection went with the feed, a later one stays.
        #expect(try await server.trimChangeFeed(olderThan: .zero) > 0)
        try await connection.query("INSERT INTO objdb_rejections (client_id, class, pk) VALUES (\(kept), 'Note', 'y')", logger: Logger(label: "t"))
        var left: [UUID] = []
        for try await id in try await connection.query(
            "SELECT client_id FROM objdb_rejections WHERE client_id = ANY(\([gone, kept]))", logger: Logger(label: "t")
        ).decode(UUID.self) {
            left.append(id)
        }
        #expect(left == [kept])
        try await connection.close()
        let third = TestClient(port: server.port, token: try await makeToken(user: "ann"))
        let (_, reset) = try await third.hello(Model.hello(checkpoint: checkpoint, subscriptions: ["Note"]))
        #expect(
            reset.allSatisfy(\.isReset) && reset.flatMap(\.changes).contains { $0.primaryKey == .string("before-trim") },
            "parts: \(reset.map { "reset \($0.isReset) final \($0.isFinal) changes \($0.changes.count) checkpoint \($0.checkpoint ?? "-")" }); trimmed from \(checkpoint)")
        await third.close()
        try await server.stop()
    }

    // A feed made by an earlier version (a row per inserted object, `pk` required) is extended
    // at start, its rows kept; objects inserted together then share a row.
    @Test func aFeedOfAnEarlierVersionIsExtendedAtStart() async throws {
        let db = try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_sync_old_feed")
        let connection = try await db.connect()
        try await connection.query(
            """
            CREATE TABLE objdb_changes (xid xid8 NOT NULL DEFAULT pg_current_xact_id(), class text NOT NULL,
                pk text NOT NULL, op char(1) NOT NULL, old jsonb NULL, at timestamptz NOT NULL DEFAULT now())
            """, logger: Logger(label: "t"))
        try await connection.query("INSERT INTO objdb_changes (class, pk, op) VALUES ('Note', 'kept', 'I')", logger: Logger(label: "t"))
        let server = try await makeServer(db)
        let client = TestClient(port: server.port, token: try await makeToken(user: "ann"))
        let (_, parts) = try await client.hello(Model.hello(subscriptions: ["Note"]))
        await client.close()
        let checkpoint = try #require(parts.last?.checkpoint)
        try await connection.query(
            #"INSERT INTO "Note" (id, text, tags) VALUES ('together-1', 'one', '{}'), ('together-2', 'two', '{}')"#, logger: Logger(label: "t"))
        var feed: [String] = []
        for try await (pk, pks) in try await connection.query("SELECT pk, pks FROM objdb_changes ORDER BY xid", logger: Logger(label: "t"))
            .decode((String?, [String]?).self)
        {
            feed.append(pk ?? "[" + (pks ?? []).sorted().joined(separator: ",") + "]")
        }
        #expect(feed == ["kept", "[together-1,together-2]"])
        try await connection.close()
        let again = TestClient(port: server.port, token: try await makeToken(user: "ann"))
        let (_, delta) = try await again.hello(Model.hello(checkpoint: checkpoint, subscriptions: ["Note"]))
        #expect(Set(delta.flatMap(\.changes).map(\.primaryKey)) == [.string("together-1"), .string("together-2")])
        await again.close()
        try await server.stop()
    }

    // A statement inserting more objects than one feed row holds writes several rows; every
    // object reaches a client.
    @Test func aStatementInsertingManyObjectsWritesAFeedRowPer10000() async throws {
        let db = try await Self.database.value
        let server = try await makeServer(db)
        let client = TestClient(port: server.port, token: try await makeToken(user: "ann"))
        let (_, parts) = try await client.hello(Model.hello(subscriptions: ["Note"]))
        await client.close()
        let checkpoint = try #require(parts.last?.checkpoint)
        let sizes = try await db.withConnection { connection in
            try await connection.query(
                #"INSERT INTO "Note" (id, text, tags) SELECT 'many-' || i, 'b', '{}' FROM generate_series(1, 20001) AS i"#, logger: Logger(label: "t"))
            var sizes: [Int64] = []
            for try await size in try await connection.query(
                "SELECT cardinality(pks)::int8 FROM objdb_changes WHERE pks[1] LIKE 'many-%' ORDER BY 1", logger: Logger(label: "t")
            ).decode(Int64.self) {
                sizes.append(size)
            }
            return sizes
        }
        #expect(sizes == [1, 10000, 10000])
        let again = TestClient(port: server.port, token: try await makeToken(user: "ann"))
        let (_, delta) = try await again.hello(Model.hello(checkpoint: checkpoint, subscriptions: ["Note"]))
        let keys = Set(delta.flatMap(\.changes).map(\.primaryKey))
        #expect(keys.count == 20001 && keys.contains(.string("many-1")) && keys.contains(.string("many-20001")))
        await again.close()
        try await server.stop()
    }

    // The shorter paths of the feed triggers: 10,000 objects are one row and 10,001 two; an
    // upsert that only updates writes update rows and no insert row (not even one of no keys);
    // the keys' arrays are LZ4-compressed where the server can (a session may pick LZ4 only if
    // the server was built with it).
    @Test func feedTriggersWrite10000KeysInOneRowAndNothingForAnEmptyInsert() async throws {
        let db = try await Self.database.value
        let server = try await makeServer(db)
        let hello = TestClient(port: server.port, token: try await makeToken(user: "ann"))
        _ = try await hello.hello(Model.hello(subscriptions: ["Note"]))
        await hello.close()
        let logger = Logger(label: "t")
        func ints(_ sql: String, on c: PostgresConnection) async throws -> [Int64] {
            var values: [Int64] = []
            for try await value in try await c.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int64.self) { values.append(value) }
            return values
        }
        let (sizes, elevenSizes, emptyRows, ops, compression, lz4) = try await db.withConnection { c in
            try await c.query(#"INSERT INTO "Note" (id, text, tags) SELECT 'ten-' || i, 'b', '{}' FROM generate_series(1, 10000) AS i"#, logger: logger)
            try await c.query(#"INSERT INTO "Note" (id, text, tags) SELECT 'eleven-' || i, 'b', '{}' FROM generate_series(1, 10001) AS i"#, logger: logger)
            let insertRows = try await ints("SELECT count(*)::int8 FROM objdb_changes WHERE op = 'I'", on: c)
            try await c.query(
                #"INSERT INTO "Note" (id, text, tags) VALUES ('ten-1', 'c', '{}'), ('ten-2', 'c', '{}') ON CONFLICT (id) DO UPDATE SET text = EXCLUDED.text"#,
                logger: logger)
            let insertRowsAfter = try await ints("SELECT count(*)::int8 FROM objdb_changes WHERE op = 'I'", on: c)
            let sizes = try await ints("SELECT cardinality(pks)::int8 FROM objdb_changes WHERE pks[1] LIKE 'ten-%' ORDER BY 1", on: c)
            let elevenSizes = try await ints("SELECT cardinality(pks)::int8 FROM objdb_changes WHERE pks[1] LIKE 'eleven-%' ORDER BY 1", on: c)
            var ops: [String] = []
            for try await (op, pk) in try await c.query(
                "SELECT op::text, pk FROM objdb_changes WHERE pk LIKE 'ten-%' ORDER BY pk", logger: logger
            ).decode((String, String).self) {
                ops.append(op + " " + pk)
            }
            var compression: String?
            for try await method in try await c.query(
                "SELECT pg_column_compression(pks) FROM objdb_changes WHERE pks[1] LIKE 'ten-%'", logger: logger
            ).decode(String?.self) {
                compression = method
            }
            // try?: an error here is the answer "this server has no LZ4".
            let lz4 = (try? await c.query("SET default_toast_compression = 'lz4'", logger: logger)) != nil
            return (sizes, elevenSizes, zip(insertRowsAfter, insertRows).map { $0 - $1 }, ops, compression, lz4)
        }
        #expect(sizes == [10000])
        #expect(elevenSizes == [1, 10000])
        #expect(emptyRows == [0])
        #expect(ops == ["U ten-1", "U ten-2"])
        #expect(compression == (lz4 ? "lz4" : "pglz"))
        try await server.stop()
    }

    // A checkpoint PostgreSQL cannot read (a damaged or forged file) bootstraps the client
    // rather than failing it: the snapshot transaction that tried it rolls back, and the
    // connections of the pool serve the next hellos.
    @Test func anUnreadableCheckpointBootstrapsAndLeavesThePoolUsable() async throws {
        let db = try await Self.database.value
        let server = try await makeServer(db)
        let first = TestClient(port: server.port, token: try await makeToken(user: "ann"))
        _ = try await first.hello(Model.hello(subscriptions: ["Note"]))
        await first.close()
        _ = try await db.withConnection { c in
            try await c.query(#"INSERT INTO "Note" (id, text, tags) VALUES ('unreadable-1', 'x', '{}') ON CONFLICT DO NOTHING"#, logger: Logger(label: "t"))
        }
        for _ in 0..<4 {
            let client = TestClient(port: server.port, token: try await makeToken(user: "ann"))
            let (_, parts) = try await client.hello(Model.hello(checkpoint: "not a snapshot", subscriptions: ["Note"]))
            await client.close()
            #expect(parts.first?.isReset == true)
            #expect(parts.flatMap(\.changes).contains { $0.primaryKey == .string("unreadable-1") })
            #expect(parts.last?.checkpoint?.contains(":") == true)
        }
        try await server.stop()
    }

    @Test func aPortInUseFailsStart() async throws {
        let db = try await Self.database.value
        let first = try await makeServer(db)
        let second = try await SyncServer(
            configuration: .init(postgresURL: db.url, host: "127.0.0.1", port: first.port, authentication: .hs256(secret: testSecret)))
        await #expect(throws: ObjDBError.self) { try await second.start() }
        try await first.stop()
        await #expect(throws: ObjDBError.self) {
            _ = try await SyncServer(configuration: .init(postgresURL: db.url, authentication: .hs256(secret: Array("short".utf8))))
        }
    }

    @Test func developmentModeAddsColumnsAndStrictModeNamesMismatches() async throws {
        let db = try await Self.database.value
        let server = try await makeServer(db)
        var note = Model.note
        note.properties.append(SyncPropertySchema(name: "priority", type: .int, isOptional: true))
        let client = TestClient(port: server.port, token: try await makeToken(user: "ann"))
        _ = try await client.hello(.init(clientID: UUID(), schema: [note], subscriptions: ["Note"], checkpoint: nil, lastSequence: 0))
        try client.send(
            .upload([SyncOperation(sequence: 1, className: "Note", primaryKey: .string("prio"), kind: .create, values: ["priority": .int(3), "tags": .list([])])]))
        #expect(try await client.nextReply() == .ack(through: 1))
        let state = try await client.waitForChange(.string("prio"))
        #expect(state.values?["priority"] == .int(3))
        await client.close()
        try await server.stop()

        let strict = try await makeServer(db, development: false)
        var wrong = Model.note
        wrong.properties[1] = SyncPropertySchema(name: "text", type: .int, isOptional: true)
        let other = TestClient(port: strict.port, token: try await makeToken(user: "ann"))
        try other.send(.hello(.init(clientID: UUID(), schema: [wrong], subscriptions: ["Note"], checkpoint: nil, lastSequence: 0)))
        guard case .error(let code, let message) = try await other.nextReply() else { Issue.record("expected an error"); return }
        #expect(code == SyncErrorCode.schemaMismatch)
        #expect(message.contains("Note.text"), "\(message)")
        var extra = Model.note
        extra.properties.append(SyncPropertySchema(name: "missingColumn", type: .string, isOptional: true))
        let third = TestClient(port: strict.port, token: try await makeToken(user: "ann"))
        try third.send(.hello(.init(clientID: UUID(), schema: [extra], subscriptions: ["Note"], checkpoint: nil, lastSequence: 0)))
        guard case .error(_, let m3) = try await third.nextReply() else { Issue.record("expected an error"); return }
        #expect(m3.contains("missingColumn"), "\(m3)")
        try await strict.stop()
    }

    @Test func stoppingTheServerClosesConnectionsWithGoingAway() async throws {
        let db = try await Self.database.value
        let server = try await makeServer(db)
        let client = TestClient(port: server.port, token: try await makeToken(user: "ann"))
        _ = try await client.hello(Model.hello(subscriptions: ["Note"]))
        try await server.stop()
        #expect(try await client.closed() == .goingAway)
    }

    @Test func theCommandSignsTokensTheServerAcceptsAndReportsStatus() async throws {
        let db = try await Self.database.value
        let secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("objdb-sync-secret-\(UUID().uuidString)")
        try Data(testSecret + [0x0A]).write(to: secretFile)
        defer { try? FileManager.default.removeItem(at: secretFile) }
        let token = try TestProcess.run("objdb-sync", ["token", "--jwt-secret-file", secretFile.path, "--user", "carol", "--expires", "600"])
        #expect(token.status == 0, "\(token.error)")
        let server = try await makeServer(db)
        let (status, _) = try await rawUpgrade(port: server.port, authorization: "Bearer " + token.output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(status == 101)
        let client = TestClient(port: server.port, token: token.output.trimmingCharacters(in: .whitespacesAndNewlines))
        _ = try await client.hello(Model.hello(subscriptions: ["Note"]))
        await client.close()
        try await server.stop()
        let report = try TestProcess.run("objdb-sync", ["status", "--postgres", db.url])
        #expect(report.status == 0, "\(report.error)")
        #expect(report.output.contains("Note:") && report.output.contains("user carol") && report.output.contains("Change feed:"), "\(report.output)")
        let short = try TestProcess.run("objdb-sync", ["token", "--jwt-secret-file", "/dev/null", "--user", "x"])
        #expect(short.status != 0)
    }

    @Test func theCommandSignsRS256TokensForAnAudience() async throws {
        let db = try await Self.database.value
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("objdb-sync-rsa-\(UUID().uuidString).pem")
        try Data(TestRSAKeys.privateKey.utf8).write(to: keyFile)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let token = try TestProcess.run(
            "objdb-sync", ["token", "--jwt-rs256-private-key-file", keyFile.path, "--user", "dave", "--audience", "objdb-sync"])
        #expect(token.status == 0, "\(token.error)")
        let server = try await makeServer(db, authentication: .rs256(publicKeyPEM: TestRSAKeys.publicKey), audience: "objdb-sync")
        let (status, _) = try await rawUpgrade(port: server.port, authorization: "Bearer " + token.output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(status == 101)
        try await server.stop()
        // Two keys, or none, are refused with a message naming the options.
        let two = try TestProcess.run(
            "objdb-sync", ["token", "--jwt-rs256-private-key-file", keyFile.path, "--jwt-secret-file", keyFile.path, "--user", "x"])
        #expect(two.status != 0 && two.error.contains("exactly one"), "\(two.error)")
        let none = try TestProcess.run("objdb-sync", ["serve", "--postgres", db.url])
        #expect(none.status != 0 && none.error.contains("--jwt-rs256-public-key-file"), "\(none.error)")
        // A private key where the service wants a public one, and no audience: refused at start.
        let wrong = try TestProcess.run(
            "objdb-sync", ["serve", "--postgres", db.url, "--port", "0", "--jwt-rs256-public-key-file", keyFile.path, "--audience", "objdb-sync"])
        #expect(wrong.status != 0 && wrong.error.contains("not an RSA public key"), "\(wrong.error)")
        let publicFile = FileManager.default.temporaryDirectory.appendingPathComponent("objdb-sync-rsa-\(UUID().uuidString).pub.pem")
        try Data(TestRSAKeys.publicKey.utf8).write(to: publicFile)
        defer { try? FileManager.default.removeItem(at: publicFile) }
        let noAudience = try TestProcess.run("objdb-sync", ["serve", "--postgres", db.url, "--port", "0", "--jwt-rs256-public-key-file", publicFile.path])
        #expect(noAudience.status != 0 && noAudience.error.contains("need an audience"), "\(noAudience.error)")
    }

    /// The status report's line for `id`, once `condition` holds for it (up to 5 s).
    func client(_ db: TemporaryPostgres.Database, _ id: UUID, until condition: (SyncServer.StatusReport.Client) -> Bool) async throws
        -> SyncServer.StatusReport.Client?
    {
        for _ in 0..<100 {
            if let line = try await SyncServer.status(postgresURL: db.url).clients.first(where: { $0.clientID == id }), condition(line) {
                return line
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    // Item 6 of issue #40: status shows connected clients, and how far one that left is
    // behind the feed; it catches up when it comes back.
    @Test func statusShowsConnectedClientsAndTheLagOfThoseThatLeft() async throws {
        let db = try await Self.database.value
        let server = try await makeServer(db)
        let id = UUID()
        let a = TestClient(port: server.port, token: try await makeToken(user: "erin"))
        let first = try await a.hello(Model.hello(id, subscriptions: ["Note"]))
        let connected = try await client(db, id) { $0.connectedSince != nil }
        #expect(connected?.user == "erin" && connected?.feedRowsBehind == nil)
        await a.close()
        let left = try await client(db, id) { $0.connectedSince == nil }
        #expect(left?.feedRowsBehind == 0 && left?.lastSeen != nil)
        // Three commits by SQL while it is away.
        let sql = try await db.connect()
        try await sql.query(#"INSERT INTO "Note" (id, text, tags) VALUES ('while-away-1', 'one', '{}')"#, logger: Logger(label: "t"))
        try await sql.query(#"INSERT INTO "Note" (id, text, tags) VALUES ('while-away-2', 'two', '{}')"#, logger: Logger(label: "t"))
        // Three in one statement: one feed row, three changes.
        try await sql.query(
            #"INSERT INTO "Note" (id, text, tags) VALUES ('while-away-3', 'three', '{}'), ('while-away-4', 'four', '{}'), ('while-away-5', 'five', '{}')"#,
            logger: Logger(label: "t"))
        try await sql.close()
        #expect(try await client(db, id) { $0.feedRowsBehind == 5 } != nil)
        // Back with its checkpoint: it downloads the five, and is connected again.
        let checkpoint = first.download.last?.checkpoint
        let b = TestClient(port: server.port, token: try await makeToken(user: "erin"))
        let back = try await b.hello(Model.hello(id, checkpoint: checkpoint, subscriptions: ["Note"]))
        let keys = back.download.flatMap(\.batches).flatMap(\.rows).map(\.primaryKey)
        #expect(Set(keys).isSuperset(of: (1...5).map { SyncValue.string("while-away-\($0)") }), "\(keys)")
        #expect(try await client(db, id) { $0.connectedSince != nil } != nil)
        await b.close()
        #expect(try await client(db, id) { $0.connectedSince == nil && $0.feedRowsBehind == 0 } != nil)
        // A client's own checkpoint text never reaches the status query unchecked.
        let forger = TestClient(port: server.port, token: try await makeToken(user: "erin"))
        _ = try await forger.hello(Model.hello(id, checkpoint: "1:2:'; DROP TABLE objdb_clients; --", subscriptions: ["Note"]))
        await forger.close()
        #expect(try await client(db, id) { $0.connectedSince == nil && $0.feedRowsBehind == 0 } != nil)
        try await server.stop()
        let report = try TestProcess.run("objdb-sync", ["status", "--postgres", db.url])
        #expect(report.output.contains("user erin: last sequence 0, left ") && report.output.contains("0 changes behind"), "\(report.output)")
    }
}
