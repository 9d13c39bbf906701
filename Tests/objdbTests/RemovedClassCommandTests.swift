import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// A class version 0 of an app had (with an index and a primary key) and version 1 removed.
final class RetiredNote: Object {
    override class var className: String { "RetiredNote" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(indexed: true) var text: String = ""
}

/// What `classes`, `schema`, `check` and `stat` say of a file after a migration removed a class
/// with `deleteData(forType:)`.
@Suite(.serialized)
struct RemovedClassCommandTests {
    let scratch = Scratch()

    @Test func commandsNoLongerListARemovedClass() throws {
        let file = scratch.file("migrated.objdb")
        let url = URL(fileURLWithPath: file)
        do {
            let db = try Database(configuration: Configuration(fileURL: url, objectTypes: [Person.self, RetiredNote.self]))
            try db.write {
                let person = Person()
                person.id = 1
                person.name = "Ann"
                try db.add(person)
                for id in 1...3 {
                    let note = RetiredNote()
                    note.id = id
                    note.text = "note \(id)"
                    try db.add(note)
                }
            }
        }
        let before = try CommandRunner.run(["classes", file, "--format", "csv"])
        #expect(before.output == "class,objects,embedded\nPerson,1,false\nRetiredNote,3,false\n")
        do {
            var config = Configuration(fileURL: url, objectTypes: [Person.self])
            config.schemaVersion = 1
            config.migrationBlock = { migration, _ in migration.deleteData(forType: "RetiredNote") }
            _ = try Database(configuration: config)
        }
        let classes = try CommandRunner.run(["classes", file, "--format", "csv"])
        #expect(classes.output == "class,objects,embedded\nPerson,1,false\n")
        let schema = try CommandRunner.run(["schema", file, "RetiredNote"])
        #expect(schema.status == 1)
        #expect(schema.error == "objdb: \(file): no class 'RetiredNote' (classes: Person)\n")
        let check = try CommandRunner.run(["check", file])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.hasPrefix("\(file): healthy ("))
        #expect(check.output.contains("1 objects in 1 classes"))
        let stat = try CommandRunner.run(["stat", file, "--format", "csv"])
        #expect(!stat.output.contains("RetiredNote"))
        let info = try CommandRunner.run(["info", file])
        #expect(info.output.contains("Schema version:  1"))
        #expect(info.output.contains("Classes:         1"))
    }
}
