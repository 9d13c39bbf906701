import Foundation
import JWTKit
import Logging
import ObjDB
import ObjDBSync
import ObjDBSyncProtocol
import ObjDBSyncServer
import ObjDBSyncTestSupport
import PostgresNIO
import Testing

/// A note with an owner: the class of the permission tests.
final class OwnedNote: Object {
    @Persisted(primaryKey: true) var id: String = ""
    @Persisted var owner: String = ""
    @Persisted var text: String = ""
    @Persisted var shared: Bool = false
    @Persisted var priority: Int = 0
    @Persisted var team: String?
}

/// Query subscriptions and rules end to end: real PostgreSQL, a real service on 127.0.0.1,
/// real files.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct QuerySubscriptionTests {
    let directory = SyncScratch()

    /// The rules of the permission tests: each user reads their own notes and the shared ones,
    /// and writes their own.
    static let ownRules = """
        { "classes": { "OwnedNote": { "read": "owner == $user OR shared == true", "write": "owner == $user" } } }
        """

    func configuration(_ name: String) -> Configuration {
        var config = Configuration(fileURL: directory.url(name))
        config.objectTypes = [OwnedNote.self]
        return config
    }

    func open(_ name: String) throws -> Database { try Database(configuration: configuration(name), isolation: nil) }

    /// A started client of `user`, subscribed as `subscribe` says (every note by default).
    func client(
        _ name: String, _ server: SyncServer, user: String, token: String? = nil,
        subscribe: @Sendable (inout SyncSubscriptionSet) -> Void = { $0.append(QuerySubscription<OwnedNote>()) }
    ) async throws -> SyncClient {
        var token = token
        if token == nil { token = try await makeToken(user: user) }
        let bearer = token ?? ""
        let client = try SyncClient(
            configuration: configuration(name),
            sync: SyncConfiguration(
                serverURL: URL(string: "ws://127.0.0.1:\(server.port)/sync")!, token: { bearer }, reconnectDelay: .milliseconds(50),
                maximumReconnectDelay: .milliseconds(400)))
        try await client.subscriptions.update(subscribe)
        await client.start()
        return client
    }

    func write(_ name: String, _ body: (Database) throws -> Void) throws {
        let db = try open(name)
        try db.write { try body(db) }
    }

    func note(_ db: Database, _ id: String, owner: String, text: String = "", shared: Bool = false, priority: Int = 0, team: String? = nil) throws {
        let n = OwnedNote()
        n.id = id
        n.owner = owner
        n.text = text
        n.shared = shared
        n.priority = priority
        n.team = team
        try db.add(n, update: .modified)
    }

    /// The ids of the notes a file holds.
    func ids(_ name: String) throws -> [String] {
        try open(name).objects(OwnedNote.self).map(\.id).sorted()
    }

    /// The notes of the table, as "id|owner|text".
    func rows(_ pg: TemporaryPostgres.Database) async throws -> [String] {
        try await pg.withConnection { connection in
            let rows = try await connection.query(
                #"SELECT id, owner, text FROM "OwnedNote" ORDER BY id COLLATE "C""#, logger: Logger(label: "test"))
            var result: [String] = []
            for try await (id, owner, text) in rows.decode((String, String, String).self) { result.append("\(id)|\(owner)|\(text)") }
            return result
        }
    }

    func withServer(rules: SyncRules = .allowAll, _ body: (SyncServer, TemporaryPostgres.Database) async throws -> Void) async throws {
        let pg = try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_queries")
        try await withStartedServer(on: pg, rules: rules) { try await body($0, pg) }
    }

    /// Uploads from one client and downloads into others, until both are done.
    func settle(_ writer: SyncClient, _ readers: SyncClient...) async throws {
        try await writer.waitForUpload()
        for reader in readers { try await reader.waitForDownload() }
    }

    // MARK: Subscriptions

    @Test func aQuerySubscriptionHoldsExactlyTheObjectsThatMatchAsTheyChange() async throws {
        try await withServer { server, _ in
            let writer = try await client("w.objdb", server, user: "ann")
            let reader = try await client("r.objdb", server, user: "ann") { subs in
                subs.append(QuerySubscription<OwnedNote>(name: "urgent") { $0.priority >= 3 })
            }
            try write("w.objdb") { db in
                try note(db, "n1", owner: "ann", priority: 5)
                try note(db, "n2", owner: "ann", priority: 1)
                try note(db, "n3", owner: "ann", priority: 3)
            }
            try await settle(writer, reader)
            #expect(try ids("r.objdb") == ["n1", "n3"])

            // n1 stops matching (removed), n2 starts (arrives), n3 is deleted.
            try write("w.objdb") { db in
                try note(db, "n1", owner: "ann", priority: 0)
                try note(db, "n2", owner: "ann", priority: 4)
                if let n3 = db.object(ofType: OwnedNote.self, forPrimaryKey: "n3") { db.delete(n3) }
            }
            try await settle(writer, reader)
            #expect(try ids("r.objdb") == ["n2"])
            #expect(try ids("w.objdb") == ["n1", "n2"])

            // A second subscription of the class: objects matching either.
            try await reader.subscriptions.update { $0.append(QuerySubscription<OwnedNote>(name: "zero", where: "priority == %@", 0)) }
            try await reader.waitForDownload()
            #expect(try ids("r.objdb") == ["n1", "n2"])
            #expect(reader.subscriptions.first(named: "zero")?.predicate == "priority == %@")
            #expect(reader.subscriptions.first(named: "zero")?.arguments == [.int(0)])

            // Replaced by name: only what the new query selects stays.
            try await reader.subscriptions.update { $0.append(QuerySubscription<OwnedNote>(name: "urgent", where: "priority > 100")) }
            try await reader.waitForDownload()
            #expect(try ids("r.objdb") == ["n1"])
            try await reader.subscriptions.update { $0.remove(named: "zero") }
            try await reader.waitForDownload()
            #expect(try ids("r.objdb") == [])
            await writer.stop()
            await reader.stop()
        }
    }

    @Test func subscriptionsAreStoredInTheFileAndUsedAfterAReopen() async throws {
        try await withServer { server, _ in
            let writer = try await client("w.objdb", server, user: "ann")
            var reader: SyncClient? = try await client("r.objdb", server, user: "ann") { subs in
                subs.append(QuerySubscription<OwnedNote>(name: "mine") { $0.text.starts(with: "keep", options: .caseInsensitive) })
            }
            try write("w.objdb") { db in
                try note(db, "a", owner: "ann", text: "Keep this")
                try note(db, "b", owner: "ann", text: "drop that")
            }
            try await writer.waitForUpload()
            try await reader?.waitForDownload()
            #expect(try ids("r.objdb") == ["a"])
            await reader?.stop()
            reader = nil

            // Reopened without touching its subscriptions: the stored query still applies.
            try write("w.objdb") { db in try note(db, "c", owner: "ann", text: "KEEP too") }
            try await writer.waitForUpload()
            let token = try await makeToken(user: "ann")
            let again = try SyncClient(
                configuration: configuration("r.objdb"),
                sync: SyncConfiguration(serverURL: URL(string: "ws://127.0.0.1:\(server.port)/sync")!, token: { token }))
            #expect(again.subscriptions.count == 1)
            #expect(again.subscriptions.first(named: "mine")?.hasQuery == true)
            await again.start()
            try await again.waitForDownload()
            #expect(try ids("r.objdb") == ["a", "c"])
            await again.stop()
            await writer.stop()
        }
    }

    @Test func queriesSyncCannotEvaluateAreRefusedNamingTheConstruct() async throws {
        try await withServer { server, _ in
            let a = try await client("a.objdb", server, user: "ann")
            let cases: [(QuerySubscription<OwnedNote>, String)] = [
                (QuerySubscription<OwnedNote>(name: "q", where: "text.@count > 2"), "aggregates"),
                (QuerySubscription<OwnedNote>(name: "q", where: "text ==[d] 'e'"), "[d]"),
                (QuerySubscription<OwnedNote>(name: "q", where: "owner == text"), "two properties"),
                (QuerySubscription<OwnedNote>(name: "q", where: "SUBQUERY(text, $x, $x == 'a').@count > 0"), "SUBQUERY"),
                (QuerySubscription<OwnedNote>(name: "q", where: "priority * 2 > 4"), "arithmetic"),
                (QuerySubscription<OwnedNote>(name: "q", where: "owner == $user"), "$user"),
                (QuerySubscription<OwnedNote>(name: "q", where: "nothere == 1"), "nothere"),
                (QuerySubscription<OwnedNote>(name: "q", where: "priority == 'high'"), "priority"),
                // ObjDB's filter takes the first (the service could not: the client refuses it).
                (QuerySubscription<OwnedNote>(name: "q", where: "shared == 1"), "'shared' (Bool) compared with 1"),
                (QuerySubscription<OwnedNote>(name: "q", where: "shared < true"), "< does not apply"),
                (QuerySubscription<OwnedNote>(name: "q", where: "priority BEGINSWITH '1'"), "BEGINSWITH applies to strings"),
                (QuerySubscription<OwnedNote>(name: "q", where: "owner ==="), "position"),
            ]
            for (subscription, construct) in cases {
                let error = await #expect(throws: ObjDBError.self) { try await a.subscriptions.update { $0.append(subscription) } }
                #expect(error?.code == .invalidQuery)
                #expect(error?.message.contains(construct) == true, "\(error?.message ?? "no error") should name \(construct)")
            }
            // Nothing changed.
            #expect(a.subscriptions.count == 1)
            #expect(a.subscriptions.first(named: "q") == nil)
            await a.stop()
        }
    }

    // MARK: Rules

    @Test func eachUserReadsTheirOwnAndSharedNotesAndWritesOnlyTheirOwn() async throws {
        try await withServer(rules: try SyncRules(json: Self.ownRules)) { server, pg in
            let ann = try await client("ann.objdb", server, user: "ann")
            let bob = try await client("bob.objdb", server, user: "bob")
            try write("ann.objdb") { db in
                try note(db, "ann-1", owner: "ann", text: "private")
                try note(db, "ann-2", owner: "ann", text: "for all", shared: true)
            }
            try write("bob.objdb") { db in try note(db, "bob-1", owner: "bob", text: "mine") }
            try await ann.waitForUpload()
            try await bob.waitForUpload()
            try await ann.waitForDownload()
            try await bob.waitForDownload()
            #expect(try ids("ann.objdb") == ["ann-1", "ann-2"])
            #expect(try ids("bob.objdb") == ["ann-2", "bob-1"])

            // Bob changes Ann's shared note, takes her private one (he knows its id), moves his
            // own into hers and creates one in her name: each is refused and undone on his file.
            var events = bob.events.makeAsyncIterator()
            try write("bob.objdb") { db in
                try note(db, "ann-2", owner: "ann", text: "defaced", shared: true)
                try note(db, "ann-1", owner: "bob", text: "stolen")
                try note(db, "bob-1", owner: "ann", text: "gift")
                try note(db, "bob-2", owner: "ann", text: "forged")
            }
            try await bob.waitForUpload()
            try await bob.waitForDownload()
            var rejected: [String] = []
            while rejected.count < 4, let event = await events.next() {
                if case .writeRejected(let className, .string(let key), _) = event, className == "OwnedNote" { rejected.append(key) }
            }
            #expect(rejected.sorted() == ["ann-1", "ann-2", "bob-1", "bob-2"])
            #expect(try ids("bob.objdb") == ["ann-2", "bob-1"])
            let bobs = try open("bob.objdb")
            #expect(bobs.object(ofType: OwnedNote.self, forPrimaryKey: "ann-2")?.text == "for all")
            #expect(bobs.object(ofType: OwnedNote.self, forPrimaryKey: "bob-1")?.owner == "bob")
            #expect(try await rows(pg) == ["ann-1|ann|private", "ann-2|ann|for all", "bob-1|bob|mine"])

            // Ann stops sharing: the note leaves Bob's file.
            try write("ann.objdb") { db in try note(db, "ann-2", owner: "ann", text: "for all", shared: false) }
            try await ann.waitForUpload()
            try await bob.waitForDownload()
            #expect(try ids("bob.objdb") == ["bob-1"])
            await ann.stop()
            await bob.stop()
        }
    }

    @Test func aRuleOnAClaimHoldsForTokensWithItAndForNoObjectWithout() async throws {
        let rules = try SyncRules(classes: ["OwnedNote": (read: "team == $claims.team", write: "team == $claims.team")])
        try await withServer(rules: rules) { server, pg in
            let red = try await client("red.objdb", server, user: "ann", token: try await teamToken(user: "ann", team: "red"))
            let none = try await client("none.objdb", server, user: "cy")
            try write("red.objdb") { db in
                try note(db, "r1", owner: "ann", team: "red")
                try note(db, "b1", owner: "ann", team: "blue")
            }
            try write("none.objdb") { db in try note(db, "n1", owner: "cy", team: nil) }
            try await red.waitForUpload()
            try await none.waitForUpload()
            try await red.waitForDownload()
            try await none.waitForDownload()
            #expect(try ids("red.objdb") == ["r1"])
            #expect(try ids("none.objdb") == [])
            #expect(try await rows(pg).map { $0.prefix(2) } == ["r1"])
            await red.stop()
            await none.stop()
        }
    }

    @Test func aRuleMissingAClaimHoldsForNoObjectEvenWhereAnotherPartWouldMatch() async throws {
        // Cy's token has no team: the whole read rule holds for no object, as the bootstrap's
        // SQL says, also for changes chosen in memory (where `owner == $user` alone would match).
        let rules = try SyncRules(classes: ["OwnedNote": (read: "owner == $user OR team == $claims.team", write: "TRUEPREDICATE")])
        try await withServer(rules: rules) { server, _ in
            let red = try await client("red.objdb", server, user: "ann", token: try await teamToken(user: "ann", team: "red"))
            let cy = try await client("cy.objdb", server, user: "cy")
            try await cy.waitForDownload()
            try write("red.objdb") { db in
                try note(db, "for-cy", owner: "cy", team: nil)
                try note(db, "red-1", owner: "bob", team: "red")
            }
            try await red.waitForUpload()
            try await cy.waitForDownload()
            try await Task.sleep(for: .milliseconds(300))  // a fan-out round, had it sent anything
            #expect(try ids("cy.objdb") == [])
            await red.stop()
            await cy.stop()
        }
    }

    @Test func rulesOfUnknownClassesOrPropertiesAreRefusedAtStart() async throws {
        let pg = try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_rules")
        // Not in development mode: a class must exist.
        let unknown = try SyncRules(classes: ["Nope": (read: "TRUEPREDICATE", write: "FALSEPREDICATE")])
        let error = await #expect(throws: ObjDBError.self) { _ = try await makeServer(pg, development: false, rules: unknown) }
        #expect(error?.code == .unknownClass)
        #expect(error?.message.contains("'Nope'") == true)

        // A class that exists, with a property it lacks.
        try await withServer { server, pg in
            let a = try await client("a.objdb", server, user: "ann")
            try write("a.objdb") { db in try note(db, "x", owner: "ann") }
            try await a.waitForUpload()
            await a.stop()
            let misspelt = try SyncRules(classes: ["OwnedNote": (read: "ownr == $user", write: "owner == $user")])
            var config = SyncServer.Configuration(postgresURL: pg.url, port: 0, authentication: .hs256(secret: testSecret), rules: misspelt)
            config.createsTablesFromClientSchemas = false
            let second = try await SyncServer(configuration: config)
            let error = await #expect(throws: ObjDBError.self) { try await second.start() }
            #expect(error?.message.contains("ownr") == true)
        }

        // Malformed files name what is wrong.
        #expect(throws: ObjDBError.self) { try SyncRules(json: #"{"classes": {"OwnedNote": {"read": "TRUEPREDICATE"}}}"#) }
        #expect(throws: ObjDBError.self) { try SyncRules(json: #"{"classes": {"OwnedNote": {"read": "x", "write": "y", "reed": "z"}}}"#) }
        #expect(throws: ObjDBError.self) { try SyncRules(json: #"{"clases": {}}"#) }
        let parse = #expect(throws: ObjDBError.self) { try SyncRules(json: #"{"classes": {"OwnedNote": {"read": "owner.name == $user", "write": "TRUEPREDICATE"}}}"#) }
        #expect(parse?.message.contains("read rule of class 'OwnedNote'") == true)
    }

    /// A token whose `team` claim is `team`.
    func teamToken(user: String, team: String) async throws -> String {
        struct TeamClaims: JWTPayload {
            var sub: SubjectClaim
            var exp: ExpirationClaim
            var team: String
            func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
        }
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: testSecret), digestAlgorithm: .sha256)
        return try await keys.sign(TeamClaims(sub: .init(value: user), exp: .init(value: Date().addingTimeInterval(3600)), team: team))
    }
}
