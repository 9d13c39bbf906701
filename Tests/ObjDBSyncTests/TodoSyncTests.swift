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
            try await sql(pg, #"INSERT INTO "Todo" (id, title, done) VALUES ('0000beef', 'bread', false)"#)
            let expected = "[x] \(id) oat milk\n[ ] 0000beef bread\n"
            let listA = try await todo("a.objdb", server, token, "list").output
            #expect(Set(listA.split(separator: "\n")) == Set(expected.split(separator: "\n")))
            // A delete on one side removes it everywhere.
            #expect(try await todo("a.objdb", server, token, "remove", "0000beef").status == 0)
            #expect(try await todo("b.objdb", server, token, "list").output == "[x] \(id) oat milk\n")
        }
    }
}
