import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

struct MultiInstanceTests {
    let directory = TemporaryDirectory()

    @Test func instancesShareOneEnvironment() throws {
        let a = try directory.open()
        let b = try directory.open()
        #expect(a.environment === b.environment)
        let elsewhere = try directory.open(name: "other.objdb")
        #expect(a.environment !== elsewhere.environment)
        // A second spelling of the same path shares it too.
        let spelled = directory.url.appendingPathComponent(".").appendingPathComponent("test.objdb")
        let c = try Database(configuration: Configuration(fileURL: spelled, objectTypes: [Person.self, Note.self, AllTypes.self]))
        #expect(c.environment === a.environment)
    }

    @Test func changesAppearInAnotherInstanceAfterRefresh() throws {
        let a = try directory.open()
        let b = try directory.open()
        try a.write { try a.add(person(1, "Ann")) }
        let bPeople = b.objects(Person.self)
        #expect(bPeople.count == 1)                     // b had not read yet: it starts at the newest version
        try a.write { try a.add(person(2, "Bob")) }
        #expect(bPeople.count == 1)                     // b stays on its version…
        let annInB = try #require(b.object(ofType: Person.self, forPrimaryKey: 1))
        try a.write { a.object(ofType: Person.self, forPrimaryKey: 1)?.name = "Anne" }
        #expect(annInB.name == "Ann")
        #expect(b.refresh())                            // …until it refreshes
        #expect(bPeople.count == 2)
        #expect(annInB.name == "Anne")
        #expect(!b.refresh())                           // nothing newer
    }

    @Test func writeMovesTheInstanceToTheNewestVersion() throws {
        let a = try directory.open()
        let b = try directory.open()
        #expect(b.objects(Person.self).count == 0)
        try a.write { try a.add(person(1, "Ann")) }
        try b.write {
            #expect(b.objects(Person.self).count == 1)
            try b.add(person(2, "Bob"))
        }
        #expect(b.objects(Person.self).count == 2)
    }

    @Test func classesAddedByAnotherInstanceAreSeen() throws {
        let a = try directory.open(nil)
        let b = try directory.open(nil)
        #expect(b.schema.objectSchema.isEmpty)
        try a.write { try a.add(person(1, "Ann")) }
        #expect(b.refresh())
        #expect(b.schema["Person"] != nil)
        #expect(b.objects(Person.self).count == 1)
        // b adding a class of its own keeps a's.
        try b.write { try b.add(Note()) }
        a.refresh()
        #expect(Set(a.schema.objectSchema.map(\.className)) == ["Note", "Person"])
        let reopened = try directory.open(nil)
        #expect(Set(reopened.schema.objectSchema.map(\.className)) == ["Note", "Person"])
    }

    @Test func writersOnOtherThreadsWaitTheirTurn() async throws {
        let config = directory.configuration([Note.self])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let db = try Database(configuration: config)
                    for _ in 0..<25 { try db.write { try db.add(Note()) } }
                }
            }
            try await group.waitForAll()
        }
        let db = try Database(configuration: config)
        #expect(db.objects(Note.self).count == 100)
    }
}
