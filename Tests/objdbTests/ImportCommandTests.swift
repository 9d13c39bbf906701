import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// `import`: what `export` wrote comes back identical (JSON lines, JSON, CSV); a bad row stops
/// the import with its line number and nothing is written; update policies.
@Suite(.serialized)
struct ImportCommandTests {
    let scratch = Scratch()
    let source: String

    init() throws {
        source = scratch.file("source.objdb")
        try CLIFixture.make(source)
    }

    /// An empty file with the fixture's classes.
    func emptyDatabase(_ name: String) throws -> String {
        let file = scratch.file(name)
        _ = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: CLIFixture.types))
        return file
    }

    /// The export of `file` as parsed JSON, without object keys (a new file numbers its own).
    func exported(_ file: String) throws -> NSDictionary {
        let text = try CommandRunner.run(["export", file]).output
        let json = try JSONSerialization.jsonObject(with: Data(text.utf8))
        func strip(_ value: Any) -> Any {
            if let object = value as? [String: Any] {
                return object.filter { $0.key != "$key" }.mapValues(strip)
            }
            if let array = value as? [Any] { return array.map(strip) }
            return value
        }
        return try #require(strip(json) as? NSDictionary)
    }

    static let order = ["AllTypes", "Note", "Person", "Pet", "Owner"]  // link targets first

    @Test(arguments: ["jsonl", "json"])
    func exportThenImportGivesTheSameData(format: String) throws {
        let target = try emptyDatabase("target-\(format).objdb")
        for className in Self.order {
            let file = scratch.file("\(className).\(format)")
            let export = try CommandRunner.run(["export", source, "--class", className, "--format", format])
            try Data(export.output.utf8).write(to: URL(fileURLWithPath: file))
            let result = try CommandRunner.run(["import", target, className, file])
            #expect(result.status == 0, "\(className): \(result.error)")
        }
        #expect(try exported(target) == exported(source))
    }

    @Test func csvRoundTripOfValueClasses() throws {
        let target = try emptyDatabase("target-csv.objdb")
        for className in ["AllTypes", "Person", "Note"] {
            let file = scratch.file("\(className).csv")
            try Data(CommandRunner.run(["export", source, "--class", className, "--format", "csv"]).output.utf8)
                .write(to: URL(fileURLWithPath: file))
            let result = try CommandRunner.run(["import", target, className, file])
            #expect(result.status == 0, "\(className): \(result.error)")
        }
        let sourceExport = try exported(source), targetExport = try exported(target)
        for className in ["AllTypes", "Person", "Note"] {
            #expect(targetExport[className] as? NSArray == sourceExport[className] as? NSArray, "\(className)")
        }
    }

    // A bad row stops the import, names its line, and nothing of the file is written.
    @Test func aBadRowWritesNothing() throws {
        let target = try emptyDatabase("target-bad.objdb")
        let file = scratch.file("people.jsonl")
        let lines = [
            #"{"id": 1, "name": "Ann", "age": 31}"#,
            #"{"id": 2, "name": "Bob"}"#,
            #"{"id": 3, "name": "Cid", "age": "old"}"#,
        ]
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
        let result = try CommandRunner.run(["import", target, "Person", file])
        #expect(result.status == 1)
        #expect(result.error == "objdb: \(file):3: Person.age is Int?: the string \"old\" is not of type Int\n")
        #expect(try CommandRunner.run(["classes", target, "--format", "csv"]).output.contains("Person,0,false"))

        try Data(#"{"id": 1, "height": 2}"#.utf8).write(to: URL(fileURLWithPath: file))
        let unknown = try CommandRunner.run(["import", target, "Person", file])
        #expect(unknown.error.contains(":1: class 'Person' has no stored property 'height'"))
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try CommandRunner.run(["import", target, "Person", file]).error.contains(":1: not valid JSON"))
    }

    @Test func updatePolicies() throws {
        let file = scratch.file("person.jsonl")
        try Data(#"{"id": 2, "name": "Robert"}"#.utf8).write(to: URL(fileURLWithPath: file))
        let refused = try CommandRunner.run(["import", source, "Person", file])
        #expect(refused.status == 1)
        #expect(refused.error.contains("already exists"))
        #expect(try CommandRunner.run(["import", source, "Person", file, "--update", "modified"]).status == 0)
        let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: source)))
        let bob = try #require(db.object(ofType: Person.self, forPrimaryKey: 2))
        #expect(bob.name == "Robert")
        #expect(bob.age == 45)  // not in the file: kept
    }
}
