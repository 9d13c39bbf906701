import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// `import` into a file that does not exist (or lacks the class): `--schema` names the database
/// or dump the objects came from; without it the error says so.
@Suite(.serialized)
struct ImportNewFileCommandTests {
    let scratch = Scratch()
    let source: String

    init() throws {
        source = scratch.file("source.objdb")
        try CLIFixture.make(source)
    }

    /// The export of `className` from `source` in `format`, written to a file; its path.
    func export(_ className: String, format: String = "jsonl") throws -> String {
        let file = scratch.file("\(className).\(format)")
        let export = try CommandRunner.run(["export", source, "--class", className, "--format", format])
        #expect(export.status == 0)
        try Data(export.output.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// The JSON lines export of `file`, without object keys (a new file numbers its own).
    func exported(_ file: String) throws -> [String] {
        try CommandRunner.run(["export", file, "--format", "jsonl"]).output.split(separator: "\n").map {
            String($0).replacing(/"\$key":\d+,?/, with: "")
        }
    }

    @Test func withoutASchemaTheErrorSaysHow() throws {
        let people = try export("Person")
        let target = scratch.file("new.objdb")
        let result = try CommandRunner.run(["import", target, "Person", people])
        #expect(result.status == 1)
        #expect(result.output == "")
        #expect(result.error == """
            objdb: \(target): no such file. An export holds objects but not their schema (types, primary key, indexes): \
            to create \(target), name the database the objects came from, or a dump of it, with --schema: \
            objdb import \(target) Person \(people) --schema <source.objdb>

            """)
        #expect(!FileManager.default.fileExists(atPath: target))
        // What the error says works.
        let again = try CommandRunner.run(["import", target, "Person", people, "--schema", source])
        #expect(again.status == 0, "\(again.error)")
        #expect(again.output == "imported 4 Person objects (created 7 classes from \(source))\n")
    }

    // Every class imported into a new file, the first import creating it: the same data and
    // the same schema as the source.
    @Test func importCreatesANewFileWithTheSourceSchema() throws {
        let target = scratch.file("copy.objdb")
        for className in ["AllTypes", "Note", "Person", "Pet", "Owner"] {
            let result = try CommandRunner.run(["import", target, className, try export(className), "--schema", source])
            #expect(result.status == 0, "\(className): \(result.error)")
        }
        #expect(try exported(target) == exported(source))
        #expect(try CommandRunner.run(["schema", target]).output == CommandRunner.run(["schema", source]).output)
        #expect(try CommandRunner.run(["check", target]).status == 0)
    }

    // A dump's header serves as the schema too, with its schema version.
    @Test func aDumpGivesTheSchemaAndItsVersion() throws {
        let versioned = scratch.file("versioned.objdb")
        do {
            var config = Configuration(fileURL: URL(fileURLWithPath: versioned), objectTypes: [Person.self])
            config.schemaVersion = 3
            let db = try Database(configuration: config)
            try db.write {
                let person = Person()
                person.id = 9
                person.name = "Zoe"
                person.age = 40
                try db.add(person)
            }
        }
        let dump = scratch.file("versioned.dump")
        try Data(CommandRunner.run(["dump", versioned]).output.utf8).write(to: URL(fileURLWithPath: dump))
        let people = scratch.file("people.csv")
        try Data(CommandRunner.run(["export", versioned, "--class", "Person", "--format", "csv"]).output.utf8)
            .write(to: URL(fileURLWithPath: people))
        let target = scratch.file("from-dump.objdb")
        let result = try CommandRunner.run(["import", target, "Person", people, "--schema", dump])
        #expect(result.status == 0, "\(result.error)")
        #expect(try CommandRunner.run(["info", target]).output.contains("Schema version:  3"))
        #expect(try exported(target) == exported(versioned))
    }

    // A bad row: nothing is written, and the new file is removed again.
    @Test func aFailedImportLeavesNoNewFile() throws {
        let bad = scratch.file("bad.jsonl")
        try Data("{\"id\":1,\"name\":\"Ann\"}\n{\"id\":\"two\"}\n".utf8).write(to: URL(fileURLWithPath: bad))
        let target = scratch.file("never.objdb")
        let result = try CommandRunner.run(["import", target, "Person", bad, "--schema", source])
        #expect(result.status == 1)
        #expect(result.error.hasPrefix("objdb: \(bad):2: "), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(!FileManager.default.fileExists(atPath: target + "-lock"))
    }

    @Test func aBadSchemaSourceIsRefused() throws {
        let people = try export("Person")
        let target = scratch.file("new.objdb")
        let missing = try CommandRunner.run(["import", target, "Person", people, "--schema", scratch.file("nowhere.objdb")])
        #expect(missing.status == 1)
        #expect(missing.error == "objdb: \(scratch.file("nowhere.objdb")): no such file (--schema names a database or a dump)\n")
        let text = scratch.file("notes.txt")
        try Data("not a schema\n".utf8).write(to: URL(fileURLWithPath: text))
        let foreign = try CommandRunner.run(["import", target, "Person", people, "--schema", text])
        #expect(foreign.status == 1)
        #expect(foreign.error.contains("(not an ObjDB file)"), "\(foreign.error)")
        let brokenDump = scratch.file("broken.dump")
        try Data("{\"objdb-dump\":9,\"schemaVersion\":0,\"classes\":[]}\n".utf8).write(to: URL(fileURLWithPath: brokenDump))
        let dump = try CommandRunner.run(["import", target, "Person", people, "--schema", brokenDump])
        #expect(dump.status == 1)
        #expect(dump.error == "objdb: \(brokenDump):1: dump format version 9 is not supported: this objdb reads versions 1 and 2\n")
        // A source without the class.
        let empty = scratch.file("empty-source.objdb")
        _ = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: empty), objectTypes: [Note.self]))
        let lacking = try CommandRunner.run(["import", target, "Person", people, "--schema", empty])
        #expect(lacking.status == 1)
        #expect(lacking.error.contains("no class 'Person' (classes: Note)"), "\(lacking.error)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    // An existing file without the class: the error points at --schema, which adds the classes
    // the file lacks and leaves the others alone.
    @Test func anExistingFileGetsTheClassesItLacks() throws {
        let people = try export("Person")
        let target = scratch.file("notes.objdb")
        do {
            let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: target), objectTypes: [Note.self]))
            try db.write {
                let note = Note()
                note.text = "kept"
                try db.add(note)
            }
        }
        let without = try CommandRunner.run(["import", target, "Person", people])
        #expect(without.status == 1)
        #expect(without.error == "objdb: \(target): no class 'Person' (classes: Note); to add it, name the database the objects came from, or a dump of it, with --schema\n")
        let with = try CommandRunner.run(["import", target, "Person", people, "--schema", source])
        #expect(with.status == 0, "\(with.error)")
        #expect(with.output == "imported 4 Person objects (created 6 classes from \(source))\n")
        let classes = try CommandRunner.run(["classes", target, "--format", "csv"]).output
        #expect(classes == "class,objects,embedded\nAddress,0,true\nAllTypes,0,false\nLocation,0,true\nNote,1,false\nOwner,0,false\nPerson,4,false\nPet,0,false\n")
        #expect(try CommandRunner.run(["query", target, "Note", "--format", "jsonl"]).output.contains("\"text\":\"kept\""))
    }
}
