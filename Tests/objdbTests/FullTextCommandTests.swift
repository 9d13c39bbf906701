import Foundation
import Testing
@testable import ObjDB

final class CLIArticle: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(fullTextIndexed: true) var body: String = ""
}

/// Full-text search through the `objdb` command: the schema it prints, `TEXT` in `query`, and a
/// `dump`/`load` round trip that keeps the index.
@Suite(.serialized)
struct FullTextCommandTests {
    let scratch = Scratch()

    func make() throws -> String {
        let file = scratch.file("articles.objdb")
        let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: [CLIArticle.self]))
        try db.write {
            for (id, body) in [(1, "Swift on Linux"), (2, "Objective-C and Swift"), (3, "Databases in Rust")] {
                let article = CLIArticle()
                (article.id, article.body) = (id, body)
                try db.add(article)
            }
        }
        return file
    }

    func run(_ arguments: [String]) throws -> String {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.error)")
        return result.output
    }

    func ids(_ json: String) throws -> [Int] {
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        return objects.compactMap { $0["id"] as? Int }.sorted()
    }

    @Test func schemaAndQueriesSeeTheIndex() throws {
        let file = try make()
        #expect(try run(["schema", file, "CLIArticle"]).contains("body: String (full-text indexed)"))
        #expect(try run(["schema", file, "CLIArticle", "--swift"]).contains("@Persisted(fullTextIndexed: true) var body: String"))
        #expect(try ids(run(["query", file, "CLIArticle", "body TEXT 'swift -objective'", "--format", "json"])) == [1])
        let plain = try CommandRunner.run(["query", file, "CLIArticle", "id TEXT 'swift'"])
        #expect(plain.status != 0)
        #expect(plain.error.contains("TEXT applies to a full-text indexed String property"), "\(plain.error)")
    }

    @Test func dumpAndLoadKeepTheIndex() throws {
        let file = try make()
        let text = try run(["dump", file])
        #expect(text.contains("\"fullTextIndexed\":true"))
        let dump = scratch.file("articles.dump")
        try text.write(toFile: dump, atomically: true, encoding: .utf8)
        let copy = scratch.file("copy.objdb")
        _ = try run(["load", copy, dump])
        #expect(try ids(run(["query", copy, "CLIArticle", "body TEXT 'swift'", "--format", "json"])) == [1, 2])
        #expect(try run(["check", copy]).hasPrefix("\(copy): healthy ("))
    }
}
