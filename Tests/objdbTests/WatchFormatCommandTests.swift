import Foundation
import Testing
import ObjDB
import ObjDBTestModels
import ObjDBTestProcesses

/// `watch` writes objects in the text `query` and `export` write: a whole `Double` as `1.0`,
/// the same for every value (CLI.md promises stable formats).
@Suite(.serialized)
struct WatchFormatCommandTests {
    let scratch = Scratch()

    /// The JSON lines `query` prints for AllTypes 1 (the object path) and `export` prints for
    /// it (the row path); the test checks they agree.
    func printed(_ file: String) throws -> String {
        let query = try CommandRunner.run(["query", file, "AllTypes", "id == 1", "--format", "jsonl"]).output
        let export = try CommandRunner.run(["export", file, "--class", "AllTypes", "--format", "jsonl"]).output
        let line = String(query.dropLast())  // its newline
        #expect(export.hasPrefix(line + "\n"), "export: \(export)\nquery: \(query)")
        return line
    }

    @Test func watchWritesValuesAsQueryAndExportDo() throws {
        let file = scratch.file("watched.objdb")
        try CLIFixture.make(file)
        let jsonl = try TestProcess("objdb", ["watch", file, "AllTypes", "--format", "jsonl"])
        defer { jsonl.kill() }
        let table = try TestProcess("objdb", ["watch", file, "AllTypes"])
        defer { table.kill() }
        let first = try #require(jsonl.readLine())
        #expect(first.hasPrefix("{\"transaction\":"))
        #expect(first.hasSuffix(",\"watching\":\"\(file)\"}"))
        #expect(table.readLine()?.hasPrefix("watching \(file) at transaction ") == true)

        #expect(try CommandRunner.run(["set", file, "AllTypes", "1", "double=1", "float=2", "--write"]).status == 0)
        let object = try printed(file)
        #expect(object.contains("\"double\":1.0"), "\(object)")
        #expect(object.contains("\"float\":2.0"), "\(object)")
        let line = try #require(jsonl.readLine())
        let transaction = try #require(line.firstMatch(of: /"transaction":(\d+)\}$/)?.1)
        #expect(line == "{\"class\":\"AllTypes\",\"deleted\":[],\"inserted\":[],\"modified\":[\(object)],\"transaction\":\(transaction)}")
        #expect(table.readLine() == "\(transaction) AllTypes ~ 1 \(object)")

        // An insertion and a deletion, by primary key.
        #expect(try CommandRunner.run(["delete", file, "AllTypes", "2", "--write"]).status == 0)
        let deletion = try #require(jsonl.readLine())
        #expect(deletion.hasPrefix("{\"class\":\"AllTypes\",\"deleted\":[\"2\"],\"inserted\":[],\"modified\":[],\"transaction\":"))
        #expect(table.readLine()?.hasSuffix(" AllTypes - 2") == true)
    }
}
