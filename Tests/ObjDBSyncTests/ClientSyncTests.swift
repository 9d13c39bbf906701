import Foundation
import Logging
import ObjDB
import ObjDBSync
import ObjDBSyncProtocol
import ObjDBSyncServer
import ObjDBSyncTestModels
import ObjDBSyncTestSupport
import PostgresNIO
import Testing

/// The sync client end to end: real PostgreSQL, real services on 127.0.0.1, real files.
@Suite(.serialized)
struct ClientSyncTests {
    let directory = SyncScratch()

    static let types: [ObjectBase.Type] = syncedTestTypes

    /// The key of the files whose names start with "secret".
    static let key = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })

    func configuration(_ name: String) -> Configuration {
        var config = Configuration(fileURL: directory.url(name))
        config.objectTypes = Self.types
        if name.hasPrefix("secret") { config.encryptionKey = Self.key }
        return config
    }

    func client(_ name: String, _ server: SyncServer, user: String = "ann") async throws -> SyncClient {
        let token = try await makeToken(user: user)
        let client = try SyncClient(
            configuration: configuration(name),
            sync: SyncConfiguration(
                serverURL: URL(string: "ws://127.0.0.1:\(server.port)/sync")!, token: { token }, reconnectDelay: .milliseconds(50),
                maximumReconnectDelay: .milliseconds(400)))
        try await client.subscriptions.update {
            $0.append(QuerySubscription<SyncedTodo>())
            $0.append(QuerySubscription<SyncedOwner>())
        }
        return client
    }

    func open(_ name: String) throws -> Database { try Database(configuration: configuration(name), isolation: nil) }

    func add(_ db: Database, _ id: String, title: String = "", lines: [String] = []) throws {
        try db.write {
            let todo = SyncedTodo()
            todo.id = id
            todo.title = title
            todo.lines.append(objectsIn: lines)
            try db.add(todo)
        }
    }

    /// Every todo of a file as (id, title, done, count, lines).
    func todos(_ name: String) throws -> [String] {
        let db = try open(name)
        return db.objects(SyncedTodo.self).sorted(by: \.id).map { "\($0.id)|\($0.title)|\($0.done)|\($0.count)|\(Array($0.lines))" }
    }

    /// Every row of the Todo table as the same text.
    func rows(_ pg: TemporaryPostgres.Database) async throws -> [String] {
        try await pg.withConnection { connection in
            let rows = try await connection.query(
                #"SELECT id, title, done, count, lines FROM "SyncedTodo" ORDER BY id COLLATE "C""#, logger: Logger(label: "test"))
            var result: [String] = []
            for try await (id, title, done, count, lines) in rows.decode((String, String, Bool, Int, [String]).self) {
                result.append("\(id)|\(title)|\(done)|\(count)|\(lines)")
            }
            return result
        }
    }

    @Test func aCommitOnOneFileReachesTheOther() async throws {
        try await withSyncServer { server, _ in
            let a = try await client("a.objdb", server)
            let b = try await client("b.objdb", server)
            await a.start()
            await b.start()
            defer { Task { await a.stop(); await b.stop() } }
            try add(try open("a.objdb"), "t1", title: "milk", lines: ["x"])
            try await a.waitForUpload()
            try await b.waitForDownload()
            #expect(try todos("b.objdb") == ["t1|milk|false|0|[\"x\"]"])
            await a.stop()
            await b.stop()
        }
    }

    /// An encrypted file syncs as a plain one does (its outbox and sync state are encrypted in
    /// the file, and read in the clear by the client): writes go both ways, and none of them
    /// can be found in the encrypted file's bytes.
    @Test func anEncryptedFileSyncsBothWays() async throws {
        try await withSyncServer { server, _ in
            let secret = try await client("secret.objdb", server)
            let plain = try await client("plain.objdb", server)
            await secret.start()
            await plain.start()
            try add(try open("secret.objdb"), "s1", title: "Quetzalcoatl-from-secret", lines: ["Xylophone-line"])
            try await secret.waitForUpload()
            try await plain.waitForDownload()
            #expect(try todos("plain.objdb") == ["s1|Quetzalcoatl-from-secret|false|0|[\"Xylophone-line\"]"])
            try add(try open("plain.objdb"), "p1", title: "Zanzibar-from-plain")
            try await plain.waitForUpload()
            try await secret.waitForDownload()
            #expect(try todos("secret.objdb") == ["p1|Zanzibar-from-plain|false|0|[]", "s1|Quetzalcoatl-from-secret|false|0|[\"Xylophone-line\"]"])
            await secret.stop()
            await plain.stop()
            let bytes = try Data(contentsOf: directory.url("secret.objdb"))
            for word in ["Quetzalcoatl", "Xylophone", "Zanzibar", "SyncedTodo"] {
                #expect(bytes.range(of: Data(word.utf8)) == nil, "\(word) is in the encrypted file")
                #expect(try Data(contentsOf: directory.url("plain.objdb")).range(of: Data(word.utf8)) != nil, "\(word) is not in the plain file")
            }
        }
    }

    @Test func offlineEditsOnBothSidesConverge() async throws {
        try await withSyncServer { server, pg in
            let a = try await client("a.objdb", server)
            let b = try await client("b.objdb", server)
            // Both files start from the same todo.
            await a.start()
            try add(try open("a.objdb"), "t", title: "start", lines: ["a0"])
            try await a.waitForUpload()
            await b.start()
            try await b.waitForDownload()
            await a.stop()
            await b.stop()
            // Offline: A retitles and appends, B marks done and appends; both add their own.
            let dbA = try open("a.objdb")
            let dbB = try open("b.objdb")
            try dbA.write {
                let t = try #require(dbA.object(ofType: SyncedTodo.self, forPrimaryKey: "t"))
                t.title = "from A"
                t.lines.append("a1")
            }
            try dbB.write {
                let t = try #require(dbB.object(ofType: SyncedTodo.self, forPrimaryKey: "t"))
                t.done = true
                t.lines.append("b1")
            }
            try add(dbA, "onlyA")
            try add(dbB, "onlyB")
            await a.start()
            try await a.waitForUpload()
            await b.start()
            try await b.waitForUpload()
            try await a.waitForDownload()
            try await b.waitForDownload()
            let expected = ["onlyA||false|0|[]", "onlyB||false|0|[]", "t|from A|true|0|[\"a0\", \"a1\", \"b1\"]"]
            #expect(try todos("a.objdb") == expected)
            #expect(try todos("b.objdb") == expected)
            #expect(try await rows(pg) == expected)
            await a.stop()
            await b.stop()
        }
    }

    @Test func aSQLWriteReachesTheFile() async throws {
        try await withSyncServer { server, pg in
            let a = try await client("a.objdb", server)
            await a.start()
            try add(try open("a.objdb"), "t", title: "before")
            try await a.waitForUpload()
            try await pg.withConnection { connection in
                try await connection.query(#"UPDATE "SyncedTodo" SET title = 'from psql' WHERE id = 't'"#, logger: Logger(label: "test"))
                try await connection.query(
                    #"INSERT INTO "SyncedTodo" (id, title, done, count, score, lines) VALUES ('new', 'inserted', true, 3, 0, '{}')"#,
                    logger: Logger(label: "test"))
            }
            try await a.waitForDownload()
            #expect(try todos("a.objdb") == ["new|inserted|true|3|[]", "t|from psql|false|0|[]"])
            await a.stop()
        }
    }

    // Review finding: one row a SQL client wrote in a form the class cannot read stopped every
    // client's downloads of the class, at every retry.
    @Test func aRowThatDoesNotReadIsLeftOutAndTheOthersArrive() async throws {
        try await withSyncServer { server, pg in
            let a = try await client("a.objdb", server)
            await a.start()
            try add(try open("a.objdb"), "first")
            try await a.waitForUpload()
            try await pg.withConnection { connection in
                _ = try await connection.query(
                    #"""
                    INSERT INTO "SyncedTodo" (id, title, done, count, score, lines, place)
                    VALUES ('broken', 'x', false, 0, 0, '{}', '{"not":"tagged"}'), ('fine', 'ok', false, 0, 0, '{}', NULL)
                    """#, logger: Logger(label: "test"))
            }
            try await a.waitForDownload()
            #expect(try todos("a.objdb") == ["fine|ok|false|0|[]", "first||false|0|[]"])
            await a.stop()
        }
    }

    @Test func linksAndEmbeddedObjectsTravel() async throws {
        try await withSyncServer { server, _ in
            let a = try await client("a.objdb", server)
            let b = try await client("b.objdb", server)
            await a.start()
            await b.start()
            let db = try open("a.objdb")
            let when = Date(timeIntervalSince1970: 1_700_000_000.123_456_7)
            try db.write {
                let owner = SyncedOwner()
                owner.id = "o"
                owner.name = "Ann"
                let todo = SyncedTodo()
                todo.id = "t"
                todo.owner = owner
                todo.when = when
                todo.score = -.infinity
                let place = SyncedPlace()
                place.city = "Oslo"
                todo.place = place
                try db.add(todo)
            }
            try await a.waitForUpload()
            try await b.waitForDownload()
            let other = try open("b.objdb")
            let todo = try #require(other.object(ofType: SyncedTodo.self, forPrimaryKey: "t"))
            #expect(todo.owner?.name == "Ann")
            #expect(todo.place?.city == "Oslo")
            #expect(todo.when?.timeIntervalSince1970.bitPattern == when.timeIntervalSince1970.bitPattern)
            #expect(todo.score == -.infinity)
            await a.stop()
            await b.stop()
        }
    }

    @Test func deletesReachTheOtherFile() async throws {
        try await withSyncServer { server, pg in
            let a = try await client("a.objdb", server)
            let b = try await client("b.objdb", server)
            await a.start()
            await b.start()
            try add(try open("a.objdb"), "gone")
            try await a.waitForUpload()
            try await b.waitForDownload()
            let dbB = try open("b.objdb")
            try dbB.write { dbB.delete(try #require(dbB.object(ofType: SyncedTodo.self, forPrimaryKey: "gone"))) }
            try await b.waitForUpload()
            try await a.waitForDownload()
            #expect(try todos("a.objdb").isEmpty)
            #expect(try await rows(pg).isEmpty)
            await a.stop()
            await b.stop()
        }
    }

    @Test func twoServiceInstancesServeTheSameData() async throws {
        try await withSyncServer { first, pg in
            let second = try await makeServer(pg)
            let a = try await client("a.objdb", first)
            let b = try await client("b.objdb", second)
            await a.start()
            await b.start()
            try add(try open("a.objdb"), "via-first")
            try add(try open("b.objdb"), "via-second")
            try await a.waitForUpload()
            try await b.waitForUpload()
            try await a.waitForDownload()
            try await b.waitForDownload()
            #expect(try todos("a.objdb") == ["via-first||false|0|[]", "via-second||false|0|[]"])
            #expect(try todos("b.objdb") == ["via-first||false|0|[]", "via-second||false|0|[]"])
            await a.stop()
            await b.stop()
            try await second.stop()
        }
    }

    @Test func aCopiedFileStartsOverAsANewClient() async throws {
        try await withSyncServer { server, pg in
            let a = try await client("a.objdb", server)
            try add(try open("a.objdb"), "one")
            // The copy is taken before the original uploads more.
            try FileManager.default.copyItem(at: directory.url("a.objdb"), to: directory.url("copy.objdb"))
            try add(try open("a.objdb"), "two")
            await a.start()
            try await a.waitForUpload()
            await a.stop()
            let originalID = try #require(try open("a.objdb").syncFileState()?.clientID)
            // The copy's outbox is behind the service's record of its id: it is reset.
            try add(try open("copy.objdb"), "three")
            let copy = try await client("copy.objdb", server)
            await copy.start()
            try await copy.waitForUpload()
            try await copy.waitForDownload()
            #expect(try open("copy.objdb").syncFileState()?.clientID != originalID)
            #expect(try todos("copy.objdb").map { $0.prefix(while: { $0 != "|" }) } == ["one", "three", "two"])
            #expect(try await rows(pg).map { $0.prefix(while: { $0 != "|" }) } == ["one", "three", "two"])
            await copy.stop()
        }
    }

    @Test func waitsOfAStoppedClientThrowInsteadOfHanging() async throws {
        try await withSyncServer { server, _ in
            let a = try await client("a.objdb", server)
            try add(try open("a.objdb"), "pending")
            await #expect(throws: ObjDBError.self) { try await a.waitForUpload() }
            await #expect(throws: ObjDBError.self) { try await a.waitForDownload() }
            await a.start()
            try await a.waitForUpload()
            await a.stop()
        }
    }

    @Test func oneClientPerFile() async throws {
        try await withSyncServer { server, _ in
            let a = try await client("a.objdb", server)
            let error = await #expect(throws: ObjDBError.self) { _ = try await client("a.objdb", server) }
            #expect(error?.code == .fileInUse)
            _ = a
        }
    }

    @Test func statesGoFromConnectingToConnectedToStopped() async throws {
        try await withSyncServer { server, _ in
            let a = try await client("a.objdb", server)
            #expect(a.state == .stopped)
            var states = a.states.makeAsyncIterator()
            #expect(await states.next() == .stopped)
            await a.start()
            var seen: [SyncState] = []
            while let state = await states.next() {
                seen.append(state)
                if state == .connected { break }
            }
            #expect(seen.last == .connected)
            await a.stop()
            #expect(a.state == .stopped)
        }
    }
}

/// A temporary directory for a test's files, removed when the test ends.
final class SyncScratch: Sendable {
    let root: URL

    init() {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("objdb-sync-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    func url(_ name: String) -> URL { root.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: root) }
}

/// Runs `body` with a fresh database and a service in development mode, stopped afterwards.
func withSyncServer(
    afterApplyingUpload: (@Sendable (UUID, UInt64) async -> Void)? = nil, _ body: (SyncServer, TemporaryPostgres.Database) async throws -> Void
) async throws {
    let pg = try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_client")
    try await withStartedServer(on: pg, afterApplyingUpload: afterApplyingUpload) { try await body($0, pg) }
}
