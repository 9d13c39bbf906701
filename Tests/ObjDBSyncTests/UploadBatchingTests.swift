import Foundation
import Logging
import ObjDB
import ObjDBSyncProtocol
@testable import ObjDBSyncServer
import ObjDBSyncTestSupport
import PostgresNIO
import Testing

/// Uploads queued behind the one being applied join its transaction when they continue its
/// sequences (one lock, one commit, one acknowledgement through the last); an upload that
/// overlaps what was applied, or is malformed, is answered after it on its own, as before.
///
/// Each test holds the client's row in `objdb_clients` from another connection, so that the
/// first upload's transaction waits while the next uploads arrive, and lets it go once the
/// session holds them.
@Suite("Upload batching", .serialized)
struct UploadBatchingTests {
    static let database = Task { try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_upload_batching") }

    /// An operation on the note `id`: a create with no tags, or an append of `tag`.
    static func note(_ sequence: UInt64, _ id: String, append tag: String? = nil) -> SyncOperation {
        guard let tag else {
            return SyncOperation(sequence: sequence, className: "Note", primaryKey: .string(id), kind: .create, values: ["tags": .list([])])
        }
        return SyncOperation(sequence: sequence, className: "Note", primaryKey: .string(id), kind: .update, listAppends: ["tags": [.string(tag)]])
    }

    /// Runs `body`, which sends `uploads` uploads, while the client's row is locked by another
    /// transaction; unlocks it once the session has read them all (the first waiting for the
    /// lock, or about to; the others queued behind it).
    static func holdingClientRow(
        _ id: UUID, _ db: TemporaryPostgres.Database, _ server: SyncServer, uploads: Int, _ body: () async throws -> Void
    ) async throws {
        let blocker = try await db.connect()
        try await blocker.query("BEGIN", logger: Logger(label: "t"))
        for try await _ in try await blocker.query("SELECT 1 FROM objdb_clients WHERE client_id = \(id) FOR UPDATE", logger: Logger(label: "t")) {}
        try await body()
        let deadline = ContinuousClock.now + .seconds(120)
        var queued = 0
        while ContinuousClock.now < deadline {
            queued = await server.hub.all().map { $0.queuedMessages.withLock { $0 } }.reduce(0, +)
            if queued >= uploads { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(queued == uploads, "uploads read and not yet handled")
        try await blocker.query("COMMIT", logger: Logger(label: "t"))
        try await blocker.close()
    }

    /// Runs `body` with a service on the suite's database and a client of a new id welcomed.
    static func withClient(_ body: (TestClient, UUID, TemporaryPostgres.Database, SyncServer) async throws -> Void) async throws {
        let db = try await database.value
        try await withStartedServer(on: db) { server in
            let id = UUID()
            let client = TestClient(port: server.port, token: try await makeToken(user: "ann"))
            _ = try await client.hello(Model.hello(id, subscriptions: ["Note"]))
            try await body(client, id, db, server)
            await client.close()
        }
    }

    static func tags(of id: String, _ db: TemporaryPostgres.Database) async throws -> String? {
        let connection = try await db.connect()
        defer { Task { try? await connection.close() } }
        for try await t in try await connection.query(#"SELECT array_to_string(tags, ',') FROM "Note" WHERE id = \#(id)"#, logger: Logger(label: "t"))
            .decode(String.self)
        {
            return t
        }
        return nil
    }

    // Consecutive creates writing the same properties are one statement, which the feed's
    // insert trigger records as one row; a create writing other properties, or a key already in
    // the statement, starts another.
    @Test func consecutiveCreatesOfOneShapeAreOneInsertStatement() async throws {
        try await Self.withClient { client, _, db, _ in
            let text = { (sequence: UInt64, id: String) in
                SyncOperation(sequence: sequence, className: "Note", primaryKey: .string(id), kind: .create, values: ["text": .string(id), "tags": .list([])])
            }
            try client.send(
                .upload([
                    Self.note(1, "shape-a1"), Self.note(2, "shape-a2"), Self.note(3, "shape-a3"), text(4, "shape-b1"), Self.note(5, "shape-a4"),
                    Self.note(6, "shape-a5"), Self.note(7, "shape-a5"), Self.note(8, "shape-a6"),
                ]))
            #expect(try await client.nextReply() == .ack(through: 8))
            let connection = try await db.connect()
            var rows: [String] = []
            for try await keys in try await connection.query(
                "SELECT array_to_string(ARRAY(SELECT unnest(pks) ORDER BY 1), ',') FROM objdb_changes WHERE op = 'I' AND pks[1] LIKE 'shape-%'",
                logger: Logger(label: "t")
            ).decode(String.self) {
                rows.append(keys)
            }
            try await connection.close()
            // The second shape-a5 starts a statement, which updates it and inserts shape-a6.
            #expect(rows.sorted() == ["shape-a1,shape-a2,shape-a3", "shape-a4,shape-a5", "shape-a6", "shape-b1"])
        }
    }

    // A create with a nil key, of a class whose key property is optional, ends a run of
    // creates like any operation its own encoding refuses: it is rejected, and the creates
    // before and after it are applied.
    @Test func aNilKeyDoesNotJoinARunOfCreates() async throws {
        let db = try await Self.database.value
        try await withStartedServer(on: db) { server in
            let schema = SyncClassSchema(
                name: "OptionalKey",
                properties: [
                    SyncPropertySchema(name: "id", type: .string, isOptional: true, isPrimaryKey: true),
                    SyncPropertySchema(name: "text", type: .string),
                ])
            let client = TestClient(port: server.port, token: try await makeToken(user: "ann"))
            _ = try await client.hello(ClientMessage.Hello(clientID: UUID(), schema: [schema], subscriptions: ["OptionalKey"], checkpoint: nil, lastSequence: 0))
            let create = { (sequence: UInt64, key: SyncValue) in
                SyncOperation(sequence: sequence, className: "OptionalKey", primaryKey: key, kind: .create, values: ["text": .string("t")])
            }
            try client.send(.upload([create(1, .string("opt-1")), create(2, .null), create(3, .string("opt-3"))]))
            var rejected: [UInt64] = []
            while true {
                let reply = try await client.nextReply()
                if case .rejected(let sequence, _, _, _) = reply {
                    rejected.append(sequence)
                    continue
                }
                #expect(reply == .ack(through: 3))
                break
            }
            await client.close()
            #expect(rejected == [2])
            let connection = try await db.connect()
            var keys: [String] = []
            for try await key in try await connection.query(#"SELECT id FROM "OptionalKey" ORDER BY id"#, logger: Logger(label: "t")).decode(String.self) {
                keys.append(key)
            }
            try await connection.close()
            #expect(keys == ["opt-1", "opt-3"])
        }
    }

    @Test func queuedUploadsThatContinueJoinOneTransactionAndAnOverlapWaitsItsTurn() async throws {
        try await Self.withClient { client, id, db, server in
            try await Self.holdingClientRow(id, db, server, uploads: 4) {
                try client.send(.upload([Self.note(1, "joined"), Self.note(2, "joined", append: "a")]))
                // A resend overlapping the first (its 2 is skipped), then two that continue it.
                try client.send(.upload([Self.note(2, "joined", append: "a"), Self.note(3, "joined", append: "b")]))
                try client.send(.upload([Self.note(4, "joined", append: "c")]))
                try client.send(.upload([Self.note(5, "joined", append: "d")]))
            }
            // The first alone (the overlap cannot join it), then the overlap with both after it.
            #expect(try await client.nextReply() == .ack(through: 2))
            #expect(try await client.nextReply() == .ack(through: 5))
            #expect(try await Self.tags(of: "joined", db) == "a,b,c,d")
        }
    }

    @Test func aMalformedUploadBehindIsRefusedAfterTheOneBeforeIsApplied() async throws {
        try await Self.withClient { client, id, db, server in
            try await Self.holdingClientRow(id, db, server, uploads: 2) {
                try client.send(.upload([Self.note(1, "before-bad"), Self.note(2, "before-bad", append: "x")]))
                try client.send(.upload([Self.note(3, "before-bad", append: "y"), Self.note(5, "before-bad", append: "z")]))
            }
            #expect(try await client.nextReply() == .ack(through: 2))
            #expect(
                try await client.nextReply() == .error(code: SyncErrorCode.protocolViolation, message: "Upload sequences must ascend by one: 3 is followed by 5"))
            #expect(try await Self.tags(of: "before-bad", db) == "x")
        }
    }

    @Test func aRefusalInAJoinedUploadAppliesTheOthersOneByOne() async throws {
        try await Self.withClient { client, id, db, server in
            try await Self.holdingClientRow(id, db, server, uploads: 3) {
                try client.send(.upload([Self.note(1, "joined-refusal"), Self.note(2, "joined-refusal", append: "p")]))
                try client.send(.upload([SyncOperation(sequence: 3, className: "Nope", primaryKey: .string("n"), kind: .create)]))
                try client.send(.upload([Self.note(4, "joined-refusal", append: "q")]))
            }
            var rejected: [UInt64] = []
            var acks: [UInt64] = []
            while acks.last != 4 {
                switch try await client.nextReply() {
                case .rejected(let sequence, _, _, _): rejected.append(sequence)
                case .ack(let through): acks.append(through)
                case let other: Issue.record("unexpected \(other)")
                }
            }
            // The refused one joined the first two: the three are refused together, then
            // applied one by one and acknowledged at once; the last one is applied after them.
            #expect(rejected == [3] && acks == [3, 4])
            #expect(try await Self.tags(of: "joined-refusal", db) == "p,q")
        }
    }
}
