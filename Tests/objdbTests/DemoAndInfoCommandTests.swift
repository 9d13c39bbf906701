import Foundation
import Testing

/// `objdb demo` and `objdb info`, run as a user runs them.
struct DemoAndInfoCommandTests {
    let scratch = Scratch()

    @Test func demoCreatesADatabaseThatInfoDescribes() throws {
        let file = scratch.file("demo.objdb")
        let demo = try CommandRunner.run(["demo", file])
        #expect(demo.status == 0, "\(demo.error)")
        #expect(demo.output.contains("Wrote 3 authors and 6 books in one transaction, each book linked to its author"))
        #expect(demo.output.contains("Deleted one book; 5 books remain"))
        #expect(demo.output.contains("Reopened the file:"))
        #expect(demo.output.contains("Jorge Luis Borges, Argentina (Buenos Aires): Labyrinths (1962), Ficciones (1944)"))
        #expect(demo.output.contains("'The Last Man' is checked out"))
        // Live results: the initial state, then Realm-style indices for each commit elsewhere.
        #expect(demo.output.contains("Observing the poetry, by year: View with a Grain of Sand"))
        #expect(demo.output.contains("told: deletions [], insertions [1], modifications [] → View with a Grain of Sand, Poems New and Collected"))
        #expect(demo.output.contains("told: deletions [], insertions [], modifications [0] → View with a Grain of Sand, Poems New and Collected"))
        // A migration at launch: a renamed property keeps its data, an added one is computed.
        #expect(demo.output.contains("Reopened at schema version 1"))
        #expect(demo.output.contains("  JLB: Jorge Luis Borges, Argentina (Buenos Aires), 2 books"))
        #expect(demo.output.contains("  WS: Wisława Szymborska, Poland, 2 books"))
        #expect(FileManager.default.fileExists(atPath: file))

        let info = try CommandRunner.run(["info", file])
        #expect(info.status == 0, "\(info.error)")
        let lines = info.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("Format version:  3"))
        #expect(lines.contains("Schema version:  1"))
        #expect(lines.contains("      homeland: String?"))
        #expect(lines.contains("      initials: String"))
        #expect(!lines.contains { $0.contains("country") })
        #expect(lines.contains("Classes:         2"))
        #expect(lines.contains("  Author  3 objects"))
        #expect(lines.contains("  Book    6 objects"))
        #expect(lines.contains("      isbn: String (primary key)"))
        #expect(lines.contains("      name: String (indexed)"))
        #expect(lines.contains("      year: Int16"))
        #expect(lines.contains("      author: Author?"))
        #expect(lines.contains("      tags: List<String>"))
        #expect(lines.contains("      books: LinkingObjects<Book> (origin: author)"))
        let size = try #require(lines.first { $0.hasPrefix("Size:") })
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect(size == "Size:            \(attributes[.size] as? Int ?? -1) bytes")
    }

    @Test func infoAsJSON() throws {
        let file = scratch.file("demo.objdb")
        #expect(try CommandRunner.run(["demo", file]).status == 0)
        let info = try CommandRunner.run(["info", file, "--format", "json"])
        #expect(info.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(info.output.utf8)) as? [String: Any])
        #expect(json["formatVersion"] as? Int == 3)
        let classes = try #require(json["classes"] as? [[String: Any]])
        #expect(classes.map { $0["name"] as? String } == ["Author", "Book"])
        #expect(classes.map { $0["count"] as? Int } == [3, 6])
    }

    @Test func demoRefusesToOverwriteWithoutTheFlag() throws {
        let file = scratch.file("demo.objdb")
        #expect(try CommandRunner.run(["demo", file]).status == 0)
        let again = try CommandRunner.run(["demo", file])
        #expect(again.status != 0)
        #expect(again.error.contains("--overwrite"))
        let forced = try CommandRunner.run(["demo", file, "--overwrite"])
        #expect(forced.status == 0, "\(forced.error)")
    }

    @Test func demoWithoutAPathUsesATemporaryDirectory() throws {
        let demo = try CommandRunner.run(["demo"])
        #expect(demo.status == 0, "\(demo.error)")
        let created = try #require(demo.output.split(separator: "\n").first { $0.hasPrefix("Creating ") })
        let path = String(created.dropFirst("Creating ".count))
        #expect(FileManager.default.fileExists(atPath: path))
        try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    @Test func infoOnAFileThatIsNotADatabase() throws {
        let file = scratch.file("garbage.objdb")
        try Data(repeating: 0xAB, count: 10_000).write(to: URL(fileURLWithPath: file))
        let info = try CommandRunner.run(["info", file])
        #expect(info.status == 1)
        #expect(info.error.contains("not an ObjDB file"))
        #expect(info.output.isEmpty)
    }

    @Test func infoOnAMissingFile() throws {
        let info = try CommandRunner.run(["info", scratch.file("missing.objdb")])
        #expect(info.status == 1)
        #expect(info.error == "objdb: \(scratch.file("missing.objdb")): no such file\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("missing.objdb")))
    }

    @Test func helpListsTheCommands() throws {
        let help = try CommandRunner.run(["--help"])
        #expect(help.status == 0)
        for command in ["demo", "info", "classes", "schema", "query", "get", "export", "check", "backup", "stat", "watch", "set", "delete", "store"] {
            #expect(help.output.contains("  \(command) "), "\(command) is missing from --help")
        }
    }
}
