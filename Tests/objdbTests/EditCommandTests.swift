import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// `set` and `delete`: type-checked edits in one write transaction, refused without `--write`.
@Suite(.serialized)
struct EditCommandTests {
    let scratch = Scratch()
    let file: String

    init() throws {
        file = scratch.file("fixture.objdb")
        try CLIFixture.make(file)
    }

    func person(_ id: Int) throws -> (name: String, age: Int?)? {
        let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file)))
        return db.object(ofType: Person.self, forPrimaryKey: id).map { ($0.name, $0.age) }
    }

    @Test func setChangesTypedValues() throws {
        let result = try CommandRunner.run(["set", file, "Person", "2", "name=Robert", "age=46", "--write"])
        #expect(result.status == 0, "\(result.error)")
        #expect(try person(2)?.name == "Robert")
        #expect(try person(2)?.age == 46)
        #expect(try CommandRunner.run(["set", file, "Person", "2", "age=null", "--write"]).status == 0)
        #expect(try person(2)?.age == nil)
        let date = try CommandRunner.run(["set", file, "AllTypes", "2", "date=2026-01-02T03:04:05.500Z", "int8=-128", "--write"])
        #expect(date.status == 0, "\(date.error)")
        let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file)))
        let all = try #require(db.object(ofType: AllTypes.self, forPrimaryKey: 2))
        #expect(all.date == Date(timeIntervalSince1970: 1_767_323_045.5))
        #expect(all.int8 == -128)
    }

    @Test func setRefusesBadInput() throws {
        let withoutWrite = try CommandRunner.run(["set", file, "Person", "2", "name=X"])
        #expect(withoutWrite.status == 64)
        #expect(withoutWrite.error.contains("pass --write"))
        let mismatch = try CommandRunner.run(["set", file, "Person", "2", "age=old", "--write"])
        #expect(mismatch.status == 1)
        #expect(mismatch.error == "objdb: Person.age is Int?: 'old' is not an integer\n")
        let tooBig = try CommandRunner.run(["set", file, "AllTypes", "2", "int8=200", "--write"])
        #expect(tooBig.status == 1)
        #expect(tooBig.error.contains("within 8-bit range"))
        let primaryKey = try CommandRunner.run(["set", file, "Person", "2", "id=9", "--write"])
        #expect(primaryKey.status == 1)
        #expect(primaryKey.error.contains("is the primary key"))
        let unknown = try CommandRunner.run(["set", file, "Person", "2", "height=2", "--write"])
        #expect(unknown.status == 1)
        #expect(unknown.error.contains("no stored property 'height'"))
        let missing = try CommandRunner.run(["set", file, "Person", "99", "name=X", "--write"])
        #expect(missing.status == 1)
        #expect(missing.error.contains("no Person with id 99"))
        #expect(try person(2)?.name == "Bob")  // nothing was written
    }

    @Test func deleteByPrimaryKeyOrPredicate() throws {
        #expect(try CommandRunner.run(["delete", file, "Person", "1"]).status == 64)
        let one = try CommandRunner.run(["delete", file, "Person", "1", "--write"])
        #expect(one.output == "deleted 1 Person object\n")
        let some = try CommandRunner.run(["delete", file, "Person", "--where", "age > 40", "--write"])
        #expect(some.output == "deleted 2 Person objects\n")
        let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file)))
        #expect(db.objects(Person.self).map(\.name) == ["Cid"])
    }
}
