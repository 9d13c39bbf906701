import Foundation
import Logging
import ObjDB
import ObjDBSyncProtocol
import ObjDBSyncServer
import ObjDBSyncTestSupport
import PostgresNIO
import Testing

/// Rules and query subscriptions at the protocol level: what a client that does not follow the
/// ObjDB client (a hostile one) gets from the service.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct PermissionProtocolTests {
    /// Notes whose `text` is their owner's name: each user reads and writes their own.
    static let rules = """
        { "classes": { "Note": { "read": "text == $user", "write": "text == $user" } } }
        """

    func withServer(_ body: (SyncServer, TemporaryPostgres.Database) async throws -> Void) async throws {
        let db = try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_permissions")
        try await withStartedServer(on: db, rules: try SyncRules(json: Self.rules)) { try await body($0, db) }
    }

    func connect(_ server: SyncServer, user: String) async throws -> TestClient {
        TestClient(port: server.port, token: try await makeToken(user: user))
    }

    static func note(_ sequence: UInt64, _ id: String, _ kind: SyncOperation.Kind = .create, text: String? = nil, tags: [String]? = nil) -> SyncOperation {
        var values: [String: SyncValue] = [:]
        if let text { values["text"] = .string(text) }
        if kind == .create { values["tags"] = .list([]) }
        return SyncOperation(
            sequence: sequence, className: "Note", primaryKey: .string(id), kind: kind, values: values,
            listAppends: tags.map { ["tags": $0.map(SyncValue.string)] } ?? [:])
    }

    /// The primary keys a download names.
    static func keys(_ parts: [ServerMessage.Download]) -> [String] {
        parts.flatMap(\.batches).flatMap(\.rows).compactMap { row in
            if case .string(let key) = row.primaryKey { return key }
            return nil
        }
    }

    /// The next message that is not a download, the keys of the downloads before it added to
    /// `seen`; with `untilDownload`, the first download (after its keys are added) ends the wait.
    static func reply(_ client: TestClient, seen: inout [String], untilDownload: Bool = false) async throws -> ServerMessage {
        while true {
            let m = try await client.next()
            guard case .download(let part) = m else { return m }
            seen += keys([part])
            if untilDownload { return m }
        }
    }

    @Test func anotherUsersObjectsNeverReachAClientNotEvenTheirKeys() async throws {
        try await withServer { server, db in
            let ann = try await connect(server, user: "ann")
            let bob = try await connect(server, user: "bob")
            _ = try await ann.hello(Model.hello(subscriptions: ["Note"]))
            let first = try await bob.hello(Model.hello(subscriptions: ["Note"]))
            var seenByBob = Self.keys(first.download)
            try bob.send(.upload([Self.note(1, "b1", text: "bob")]))
            #expect(try await Self.reply(bob, seen: &seenByBob) == .ack(through: 1))

            // Ann's objects come and go; one of bob's becomes hers through SQL.
            try ann.send(.upload([Self.note(1, "a1", text: "ann"), Self.note(2, "a2", text: "ann")]))
            #expect(try await ann.nextReply() == .ack(through: 2))
            try ann.send(.upload([Self.note(3, "a1", .update, tags: ["x"]), Self.note(4, "a2", .delete)]))
            #expect(try await ann.nextReply() == .ack(through: 4))
            try await db.withConnection { c in
                try await c.query(#"INSERT INTO "Note" (id, text, tags) VALUES ('a3', 'ann', '{}')"#, logger: Logger(label: "t"))
                try await c.query(#"DELETE FROM "Note" WHERE id = 'a3'"#, logger: Logger(label: "t"))
            }
            try bob.send(.requestDownload(id: 1))
            #expect(try await Self.reply(bob, seen: &seenByBob) == .downloadDone(id: 1))

            // Bob tries every kind of write on Ann's a1: a create over it, an update, a list
            // append, a delete; and a create of his own in her name. Each is rejected, and what
            // follows the rejections says only that he may not see those objects.
            try bob.send(
                .upload([
                    Self.note(2, "a1", text: "bob"), Self.note(3, "a1", .update, text: "bob"), Self.note(4, "a1", .update, tags: ["evil"]),
                    Self.note(5, "a1", .delete), Self.note(6, "b2", text: "ann"),
                ]))
            // Rejections, then the rejected objects' states (before the acknowledgement, so a
            // client waiting for its upload has undone them when the wait returns), then the ack.
            var rejected: [UInt64] = []
            var afterRejections: [ServerMessage.Download] = []
            while afterRejections.isEmpty {
                switch try await Self.reply(bob, seen: &seenByBob, untilDownload: true) {
                case .rejected(let sequence, _, _, _): rejected.append(sequence)
                case .download(let part): afterRejections.append(part)
                default: continue
                }
            }
            #expect(try await Self.reply(bob, seen: &seenByBob) == .ack(through: 6))
            #expect(rejected == [2, 3, 4, 5, 6])
            // The objects named: a1 (his view holds no such object) and b2 (not created).
            let states = afterRejections.flatMap(\.batches).flatMap(\.rows)
            #expect(states.count == 2 && states.allSatisfy { $0.values == nil })
            // What a client already knows (it sent these keys) is all the answer names.
            seenByBob.removeAll { $0 == "a1" }

            #expect(seenByBob.allSatisfy { $0.hasPrefix("b") }, "bob saw \(seenByBob)")
            #expect(seenByBob.contains("b1"))
            let rows = try await db.withConnection { c in
                var rows: [String] = []
                let result = try await c.query(#"SELECT id, text, array_to_string(tags, ',') FROM "Note" ORDER BY id"#, logger: Logger(label: "t"))
                for try await (id, text, tags) in result.decode((String, String, String).self) { rows.append("\(id)|\(text)|\(tags)") }
                return rows
            }
            #expect(rows == ["a1|ann|x", "b1|bob|"])
            await ann.close()
            await bob.close()
        }
    }

    @Test func queriesInAHelloAreCheckedAndReachPostgreSQLOnlyAsParameters() async throws {
        try await withServer { server, db in
            let cases: [(ClientMessage.SubscriptionQuery, String)] = [
                (.init(className: "Note", predicate: "tags.@count > 1", arguments: []), SyncErrorCode.invalidQuery),
                (.init(className: "Note", predicate: "text == $user", arguments: []), SyncErrorCode.invalidQuery),
                (.init(className: "Note", predicate: "%K == %@", arguments: [.string(#"text" = 'x'; DROP TABLE "Note"; --"#), .string("x")]),
                 SyncErrorCode.invalidQuery),
                (.init(className: "Note", predicate: "text == 'a'); DROP TABLE \"Note\"; --", arguments: []), SyncErrorCode.invalidQuery),
                (.init(className: "Note", predicate: "tags == 'x'", arguments: []), SyncErrorCode.invalidQuery),
                (.init(className: "Nope", predicate: "TRUEPREDICATE", arguments: []), SyncErrorCode.schemaMismatch),
            ]
            for (query, code) in cases {
                let client = try await connect(server, user: "ann")
                var hello = Model.hello(subscriptions: [])
                hello.queries = [query]
                try client.send(.hello(hello))
                guard case .error(let got, let message) = try await client.nextReply() else {
                    Issue.record("\(query.predicate): expected an error")
                    continue
                }
                #expect(got == code, "\(query.predicate): \(message)")
                await client.close()
            }
            // A value carrying SQL is a value: it selects the rows whose text it is.
            let ann = try await connect(server, user: "ann")
            var hello = Model.hello(subscriptions: [])
            hello.queries = [.init(className: "Note", predicate: "text == %@ OR text == %@", arguments: [.string("ann' OR '1'='1"), .string("ann")])]
            _ = try await ann.hello(hello)
            try ann.send(.upload([Self.note(1, "a1", text: "ann")]))
            #expect(try await ann.nextReply() == .ack(through: 1))
            try ann.send(.requestDownload(id: 1))
            #expect(Self.keys(try await ann.download()) == ["a1"])
            await ann.close()
            let tables = try await db.withConnection { c in
                var n = 0
                for try await count in try await c.query("SELECT count(*) FROM pg_tables WHERE tablename = 'Note'", logger: Logger(label: "t")).decode(Int64.self) {
                    n = Int(count)
                }
                return n
            }
            #expect(tables == 1)
        }
    }

    @Test func aRejectionMissedByADisconnectedClientIsSentAtItsNextHello() async throws {
        try await withServer { server, db in
            let ann = try await connect(server, user: "ann")
            _ = try await ann.hello(Model.hello(subscriptions: ["Note"]))
            try ann.send(.upload([Self.note(1, "a1", text: "ann")]))
            #expect(try await ann.nextReply() == .ack(through: 1))
            await ann.close()

            // Bob writes Ann's note and leaves before reading the answer.
            let id = UUID()
            let bob = try await connect(server, user: "bob")
            let first = try await bob.hello(Model.hello(id, subscriptions: ["Note"]))
            let checkpoint = try #require(first.download.last?.checkpoint)
            try bob.send(.upload([Self.note(1, "a1", .update, text: "bob")]))
            await bob.close()
            try await waitUntil { try await Self.lastSequence(of: id, db) == 1 }

            // His next hello (with his old checkpoint) is answered by the object's state first,
            // under that checkpoint, then the newer checkpoint: a client that stores the newer
            // one has applied the state.
            let again = try await connect(server, user: "bob")
            let second = try await again.hello(Model.hello(id, checkpoint: checkpoint, lastSequence: 1, subscriptions: ["Note"]))
            #expect(second.acknowledged == 1)
            let undo = second.download
            #expect(undo.flatMap(\.changes).map(\.primaryKey) == [.string("a1")])
            #expect(undo.flatMap(\.changes).first?.values == nil)
            #expect(undo.last?.checkpoint == checkpoint)
            let newer = try #require(try await again.download().last?.checkpoint)
            #expect(newer != checkpoint)
            await again.close()

            // Once he reports a checkpoint read after the rejection, it is not sent again.
            let third = try await connect(server, user: "bob")
            _ = try await third.hello(Model.hello(id, checkpoint: newer, lastSequence: 1, subscriptions: ["Note"]))
            try third.send(.requestDownload(id: 7))
            var afterHello: [ServerMessage] = []
            while true {
                let m = try await third.next()
                if m == .downloadDone(id: 7) { break }
                afterHello.append(m)
            }
            let changes = afterHello.flatMap { m -> [SyncObjectState] in
                if case .download(let part) = m { return part.changes }
                return []
            }
            #expect(changes.isEmpty)
            await third.close()
        }
    }

    @Test func twoUsersCreatingTheSameKeysAtOnceNeverBothWinOne() async throws {
        try await withServer { server, db in
            let ann = try await connect(server, user: "ann")
            let bob = try await connect(server, user: "bob")
            _ = try await ann.hello(Model.hello(subscriptions: []))
            _ = try await bob.hello(Model.hello(subscriptions: []))
            let keys = (0..<200).map { "race-\($0)" }
            // Both upload creates of the same keys, each as their own, at the same time: one
            // transaction each, so each one's inserts wait for the other's.
            try ann.send(.upload(keys.enumerated().map { Self.note(UInt64($0.offset + 1), $0.element, text: "ann") }))
            try bob.send(.upload(keys.reversed().enumerated().map { Self.note(UInt64($0.offset + 1), $0.element, text: "bob") }))
            func rejectedKeys(_ client: TestClient) async throws -> Set<String> {
                var rejected = Set<String>()
                while true {
                    switch try await client.nextReply() {
                    case .rejected(_, _, .string(let key), _): rejected.insert(key)
                    case .ack: return rejected
                    default: continue
                    }
                }
            }
            let annRejected = try await rejectedKeys(ann), bobRejected = try await rejectedKeys(bob)
            // Every key was won by exactly one of them: the other's create was refused.
            #expect(annRejected.count + bobRejected.count == keys.count)
            #expect(annRejected.isDisjoint(with: bobRejected))
            let rows = try await db.withConnection { c in
                var owners: [String: String] = [:]
                for try await (id, text) in try await c.query(#"SELECT id, text FROM "Note" WHERE id LIKE 'race-%'"#, logger: Logger(label: "t"))
                    .decode((String, String).self)
                {
                    owners[id] = text
                }
                return owners
            }
            for key in keys { #expect(rows[key] == (annRejected.contains(key) ? "bob" : "ann"), "\(key)") }
            await ann.close()
            await bob.close()
        }
    }

    static func lastSequence(of client: UUID, _ db: TemporaryPostgres.Database) async throws -> Int64 {
        try await db.withConnection { c in
            var last: Int64 = 0
            for try await s in try await c.query("SELECT last_sequence FROM objdb_clients WHERE client_id = \(client)", logger: Logger(label: "t"))
                .decode(Int64.self)
            {
                last = s
            }
            return last
        }
    }

    /// Polls `condition` every 20 ms for up to a minute.
    func waitUntil(_ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the condition did not hold within a minute")
    }
}
