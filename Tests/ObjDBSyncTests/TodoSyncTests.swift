import Foundation
import Logging
import ObjDBSyncServer
import ObjDBSyncTestSupport
import ObjDBTestProcesses
import PostgresNIO
import Testing

/// The example app synced, as the guide's quick start runs it: two `todo --sync` processes on
/// two files, one service, and SQL writes to the table.
@Suite(.serialized)
struct TodoSyncTests {
    let directory = SyncScratch()

    func todo(_ file: String, _ server: SyncServer, _ token: String, _ arguments: String...) async throws -> TestProcess.Result {
        try await TestProcess.runOffPool(
            "todo",
            ["--file", directory.url(file).path, "--sync", "ws://127.0.0.1:\(server.port)/sync", "--token", token, "--wait", "20"] + arguments)
    }

    func sql(_ pg: TemporaryPostgres.Database, _ text: String) async throws {
        try await pg.withConnection { connection in
            _ = try await connection.query(PostgresQuery(unsafeSQL: text), logger: Logger(label: "test"))
        }
    }

    @Test func twoAppsAndSQLConverge() async throws {
        try await withSyncServer { server, pg in
            let token = try await makeToken(user: "ann")
            let added = try await todo("a.objdb", server, token, "add", "milk")
            #expect(added.status == 0, "\(added.error)")
            let id = String(added.output.dropFirst("added ".count).prefix { $0 != "\n" })
            #expect(id.count == 8)
            // The other file has it after a download.
            #expect(try await todo("b.objdb", server, token, "list").output == "[ ] \(id) milk\n")
            #expect(try await todo("b.objdb", server, token, "done", id).status == 0)
            #expect(try await todo("a.objdb", server, token, "list").output == "[x] \(id) milk\n")
            // A SQL client's writes reach both files.
            try await sql(pg, #"UPDATE "Todo" SET title = 'oat milk' WHERE id = '\#(id)'"#)
            try await sql(pg, #"INSERT INTO "Todo" (id, title, done, owner) VALUES ('0000beef', 'bread', false, 'ann')"#)
            // A row without a value the class requires is left out, not sent.
            try await sql(pg, #"INSERT INTO "Todo" (id, title, done) VALUES ('0000dead', 'no owner', false)"#)
            let expected = "[x] \(id) oat milk\n[ ] 0000beef bread\n"
            let listA = try await todo("a.objdb", server, token, "list").output
            #expect(Set(listA.split(separator: "\n")) == Set(expected.split(separator: "\n")))
            // A delete on one side removes it everywhere.
            #expect(try await todo("a.objdb", server, token, "remove", "0000beef").status == 0)
            #expect(try await todo("b.objdb", server, token, "list").output == "[x] \(id) oat milk\n")
        }
    }

    /// The example's rules file, as the guide's quick start passes it to `objdb-sync serve`.
    static let exampleRules = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/Todo/sync-rules.json")

    /// A token signed by `objdb-sync token`.
    func signedByCommand(_ user: String, secret: [UInt8] = testSecret) throws -> String {
        let secretFile = directory.url("secret-\(UUID().uuidString)")
        try Data(secret).write(to: secretFile)
        let result = try TestProcess.run("objdb-sync", ["token", "--jwt-secret-file", secretFile.path, "--user", user, "--expires", "600"])
        #expect(result.status == 0, "\(result.error)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func underTheExampleRulesEachUserHoldsOnlyTheirTodos() async throws {
        let pg = try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_todo_rules")
        let server = try await makeServer(pg, rules: try SyncRules(contentsOf: Self.exampleRules))
        defer { Task { try? await server.stop() } }
        let ann = try signedByCommand("ann"), bob = try signedByCommand("bob")
        let milk = try await todo("ann.objdb", server, ann, "add", "milk")
        #expect(milk.status == 0, "\(milk.error)")
        let milkID = String(milk.output.dropFirst("added ".count).prefix { $0 != "\n" })
        let bread = try await todo("bob.objdb", server, bob, "add", "bread")
        let breadID = String(bread.output.dropFirst("added ".count).prefix { $0 != "\n" })
        #expect(try await todo("ann.objdb", server, ann, "list").output == "[ ] \(milkID) milk\n")
        #expect(try await todo("bob.objdb", server, bob, "list").output == "[ ] \(breadID) bread\n")
        // Ann's second device gets hers only.
        #expect(try await todo("ann2.objdb", server, ann, "list").output == "[ ] \(milkID) milk\n")

        // A forged token gets nothing: the command goes on offline, with an empty file.
        let forged = try await todo("eve.objdb", server, try signedByCommand("ann", secret: Array("not-the-service-secret-0123456789".utf8)), "list")
        #expect(forged.output == "")
        #expect(forged.error.contains("offline"))

        // Bob writes Ann's todo into his file with the objdb CLI (which does not sync, but
        // records the write for upload); his next sync has it rejected and undone.
        let evil = directory.url("evil.json")
        try Data(#"[{"id": "\#(milkID)", "title": "hacked", "done": true, "owner": "ann"}]"#.utf8).write(to: evil)
        let imported = try TestProcess.run("objdb", ["import", directory.url("bob.objdb").path, "Todo", evil.path, "--update", "all"])
        #expect(imported.status == 0, "\(imported.error)")
        #expect(try await todo("bob.objdb", server, bob, "list").output.contains("hacked"))
        // A command that waits for its upload returns with the rejected write undone.
        #expect(try await todo("bob.objdb", server, bob, "done", breadID).status == 0)
        let after = try await todo("bob.objdb", server, bob, "list")
        #expect(after.output == "[x] \(breadID) bread\n", "\(after.error)")
        let rows = try await pg.withConnection { c in
            var rows: [String] = []
            let result = try await c.query(#"SELECT id, title, done, owner FROM "Todo" ORDER BY owner"#, logger: Logger(label: "t"))
            for try await (id, title, done, owner) in result.decode((String, String, Bool, String).self) { rows.append("\(id)|\(title)|\(done)|\(owner)") }
            return rows
        }
        #expect(rows == ["\(milkID)|milk|false|ann", "\(breadID)|bread|true|bob"])
        try await server.stop()
    }

    @Test func serveRefusesARulesFileItCannotUse() throws {
        let secret = directory.url("secret")
        try Data(testSecret).write(to: secret)
        let rules = directory.url("rules.json")
        try Data(#"{"classes": {"Todo": {"read": "owner.name == $user", "write": "TRUEPREDICATE"}}}"#.utf8).write(to: rules)
        for (file, expected) in [(rules.path, "owner.name"), (directory.url("missing.json").path, "cannot be read")] {
            let result = try TestProcess.run(
                "objdb-sync", ["serve", "--postgres", "postgres://nobody@127.0.0.1:1/none", "--jwt-secret-file", secret.path, "--rules", file])
            #expect(result.status != 0)
            #expect(result.error.contains(expected), "\(result.error)")
        }
    }
}
