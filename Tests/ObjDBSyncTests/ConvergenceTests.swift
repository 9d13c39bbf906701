import Foundation
import Logging
import ObjDB
import ObjDBSync
import ObjDBSyncServer
import ObjDBSyncTestModels
import ObjDBSyncTestSupport
import PostgresNIO
import Testing

/// After any interleaving of offline edits on several files, once all are online and quiet,
/// every file and PostgreSQL hold the same data.
@Suite(.serialized)
struct ConvergenceTests {
    let directory = SyncScratch()

    @Test(arguments: [UInt64(1), 2, 3])
    func randomEditsAndDisconnectsConverge(seed: UInt64) async throws {
        try await withSyncServer { server, pg in
            var random = SeededGenerator(state: seed)
            let names = ["a", "b", "c"]
            let token = try await makeToken(user: "ann")
            var clients: [SyncClient] = []
            var databases: [Database] = []
            for name in names {
                var config = Configuration(fileURL: directory.url("\(name).objdb"))
                config.objectTypes = syncedTestTypes
                let client = try SyncClient(
                    configuration: config,
                    sync: SyncConfiguration(
                        serverURL: URL(string: "ws://127.0.0.1:\(server.port)/sync")!, token: { token },
                        reconnectDelay: .milliseconds(20), maximumReconnectDelay: .milliseconds(100)))
                try await client.subscriptions.update { $0.append(QuerySubscription<SyncedTodo>()) }
                clients.append(client)
                databases.append(try Database(configuration: config, isolation: nil))
            }
            let ids = (0..<6).map { "t\($0)" }
            // What each file did, for the report of a divergence.
            var trace: [String] = []
            for round in 0..<4 {
                // Some files go offline for the round; the others stay connected.
                for client in clients {
                    if Bool.random(using: &random) { await client.start() } else { await client.stop() }
                }
                for _ in 0..<24 {
                    let index = Int.random(in: 0..<databases.count, using: &random)
                    let db = databases[index]
                    db.refresh()
                    let id = ids.randomElement(using: &random) ?? "t0"
                    try db.write {
                        // Read inside the write: the client's downloads commit between this
                        // file's writes, and may have created or deleted the object since.
                        let existing = db.object(ofType: SyncedTodo.self, forPrimaryKey: id)
                        let roll = Int.random(in: 0..<6, using: &random)
                        defer {
                            let after = db.object(ofType: SyncedTodo.self, forPrimaryKey: id).map(Self.row) ?? "absent"
                            trace.append("round \(round) \(names[index]) \(id): kind \(roll) → \(after)")
                        }
                        switch roll {
                        case 0 where existing == nil:
                            let todo = SyncedTodo()
                            todo.id = id
                            todo.title = "made by \(names[index]) in round \(round)"
                            try db.add(todo)
                        case 1: existing?.title = "\(names[index])\(Int.random(in: 0..<100, using: &random))"
                        case 2: existing?.done.toggle()
                        case 3: existing?.count = Int.random(in: -5...5, using: &random)
                        case 4: existing?.lines.append("\(names[index])\(round)")
                        case 5: if let existing { db.delete(existing) }
                        default: existing?.score = Double.random(in: 0..<1, using: &random)
                        }
                    }
                }
                // All online and quiet: everything uploaded, then everything downloaded.
                for client in clients { await client.start() }
                for client in clients { try await client.waitForUpload() }
                for client in clients { try await client.waitForDownload() }
                let expected = try await rows(pg)
                for (name, db) in zip(names, databases) {
                    db.refresh()
                    let local = db.objects(SyncedTodo.self).sorted(by: \.id).map(Self.row)
                    #expect(local == expected, "seed \(seed), round \(round): file \(name) differs from PostgreSQL")
                    if local != expected { try await report(name, db, pg, trace: trace, differing: Set(local).symmetricDifference(expected)) }
                }
            }
            for client in clients { await client.stop() }
        }
    }

    /// Prints what led to a divergence: the file's sync state, the writes to the objects that
    /// differ (each with the object as it was after), and their feed rows.
    func report(_ name: String, _ db: Database, _ pg: TemporaryPostgres.Database, trace: [String], differing: Set<String>) async throws {
        let keys = Set(differing.compactMap { $0.split(separator: "|").first.map(String.init) })
        print("divergence of file \(name): \(String(describing: try db.syncFileState()))")
        for line in trace where keys.contains(where: { line.contains(" \($0):") }) { print("  " + line) }
        try await pg.withConnection { connection in
            let rows = try await connection.query(
                """
                SELECT f.xid::text, k.pk, f.op::text, f.old->>'title', f.old->>'score', f.at::text
                FROM objdb_changes f CROSS JOIN LATERAL unnest(coalesce(f.pks, ARRAY[f.pk])) AS k(pk) WHERE k.pk = ANY(\(Array(keys))) ORDER BY f.xid
                """,
                logger: Logger(label: "test"))
            for try await (xid, pk, op, title, score, at) in rows.decode((String, String, String, String?, String?, String).self) {
                print("  feed \(xid) \(pk) \(op) old title \(title ?? "-") score \(score ?? "-") at \(at)")
            }
            let clients = try await connection.query("SELECT client_id::text, last_sequence FROM objdb_clients", logger: Logger(label: "test"))
            for try await (id, sequence) in clients.decode((String, Int64).self) { print("  client \(id) last sequence \(sequence)") }
        }
    }

    static func row(_ todo: SyncedTodo) -> String {
        "\(todo.id)|\(todo.title)|\(todo.done)|\(todo.count)|\(todo.score)|\(Array(todo.lines))"
    }

    func rows(_ pg: TemporaryPostgres.Database) async throws -> [String] {
        try await pg.withConnection { connection in
            let result = try await connection.query(
                #"SELECT id, title, done, count, score, lines FROM "SyncedTodo" ORDER BY id COLLATE "C""#, logger: Logger(label: "test"))
            var rows: [String] = []
            for try await (id, title, done, count, score, lines) in result.decode((String, String, Bool, Int, Double, [String]).self) {
                rows.append("\(id)|\(title)|\(done)|\(count)|\(score)|\(lines)")
            }
            return rows
        }
    }
}
