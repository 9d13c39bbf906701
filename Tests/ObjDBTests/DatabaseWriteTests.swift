import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

struct DatabaseWriteTests {
    let directory = TemporaryDirectory()

    struct Boom: Error {}

    @Test func writeReturnsTheBlockValue() throws {
        let db = try directory.open()
        let count: Int = try db.write {
            try db.add(person(1, "Ann"))
            try db.add(person(2, "Bob"))
            return db.objects(Person.self).count
        }
        #expect(count == 2)
        #expect(!db.isInWriteTransaction)
    }

    @Test func throwingBlockRollsBackEverything() throws {
        let db = try directory.open()
        try db.write { try db.add(person(1, "Ann")) }
        let ann = try #require(db.object(ofType: Person.self, forPrimaryKey: 1))
        let added = person(2, "Bob")
        #expect(throws: Boom.self) {
            try db.write {
                ann.name = "Changed"
                try db.add(added)
                #expect(db.objects(Person.self).count == 2)   // visible inside the transaction
                throw Boom()
            }
        }
        #expect(!db.isInWriteTransaction)
        #expect(ann.name == "Ann")
        #expect(db.objects(Person.self).count == 1)
        #expect(added.isInvalidated)
        #expect(db.object(ofType: Person.self, forPrimaryKey: 2) == nil)
        // And the file agrees after reopening.
        let other = try directory.open()
        #expect(other.objects(Person.self).map(\.name) == ["Ann"])
    }

    @Test func beginCommitAndCancel() throws {
        let db = try directory.open()
        db.beginWrite()
        #expect(db.isInWriteTransaction)
        try db.add(person(1, "Ann"))
        try db.commitWrite()
        #expect(!db.isInWriteTransaction)
        db.beginWrite()
        try db.add(person(2, "Bob"))
        db.cancelWrite()
        #expect(!db.isInWriteTransaction)
        #expect(db.objects(Person.self).map(\.id) == [1])
        let error = try #require(throws: ObjDBError.self) { try db.commitWrite() }
        #expect(error.code == .notInWriteTransaction)
    }

    @Test func writingOutsideATransactionThrows() throws {
        let db = try directory.open()
        let error = try #require(throws: ObjDBError.self) { try db.add(person(1, "Ann")) }
        #expect(error.code == .notInWriteTransaction)
        #expect(error.message.contains("add(_:update:)"))
        #expect(db.objects(Person.self).isEmpty)
    }

    @Test func readOnlyDatabaseRefusesWrites() throws {
        do {
            let db = try directory.open()
            try db.write { try db.add(person(1, "Ann")) }
        }
        var config = directory.configuration()
        config.readOnly = true
        let db = try Database(configuration: config)
        #expect(db.objects(Person.self).count == 1)
        let error = try #require(throws: ObjDBError.self) { try db.write { try db.add(person(2, "Bob")) } }
        #expect(error.code == .readOnly)
        #expect(!db.isInWriteTransaction)
        db.beginWrite()
        #expect(throws: ObjDBError.self) { try db.add(person(3, "Cy")) }
        let commit = try #require(throws: ObjDBError.self) { try db.commitWrite() }
        #expect(commit.code == .readOnly)
        #expect(db.objects(Person.self).count == 1)
    }

    @Test func readOnlyOpenOfMissingFileFails() throws {
        var config = directory.configuration()
        config.readOnly = true
        let error = try #require(throws: ObjDBError.self) { try Database(configuration: config) }
        #expect(error.code == .fileNotFound)
        #expect(!FileManager.default.fileExists(atPath: directory.file().path))
    }

    @Test func managedPropertiesWriteThroughToTheFile() throws {
        let db = try directory.open()
        let ann = person(1, "Ann", age: 30)
        try db.write { try db.add(ann) }
        try db.write {
            ann.age = nil
            ann.name = "Anne"
            ann.kind = .vip
        }
        let reopened = try directory.open(name: "test.objdb")
        let stored = try #require(reopened.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(stored.name == "Anne" && stored.age == nil && stored.kind == .vip)
    }

    @Test func objectsAreLiveAcrossInstancesOfTheSameStoredObject() throws {
        let db = try directory.open()
        let ann = person(1, "Ann")
        try db.write { try db.add(ann) }
        let other = try #require(db.object(ofType: Person.self, forPrimaryKey: 1))
        try db.write { other.name = "Changed through another instance" }
        #expect(ann.name == "Changed through another instance")
        #expect(ann.id == other.id)
    }

    @Test func identityIsStablePerStoredObject() throws {
        let db = try directory.open()
        let ann = person(1, "Ann")
        let unmanagedIdentity = (ann as any Identifiable).id as? ObjectIdentity
        try db.write { try db.add(ann) }
        let again = try #require(db.object(ofType: Person.self, forPrimaryKey: 1))
        let a = (ann as any Identifiable).id as? ObjectIdentity
        let b = (again as any Identifiable).id as? ObjectIdentity
        #expect(a != nil && a == b)
        #expect(unmanagedIdentity != a)
        #expect(ann.id == 1)   // the model's own `id` shadows Identifiable's
    }

    @Test func keyValueCodingReadsAndWrites() throws {
        let db = try directory.open()
        let ann = person(1, "Ann", age: 3)
        #expect(ann["name"] as? String == "Ann")
        ann["age"] = 4
        #expect(ann.age == 4)
        #expect(throws: ObjDBError.self) { try ann.setValue("four", forKey: "age") }
        #expect(throws: ObjDBError.self) { try ann.value(forKey: "nope") }
        try db.write { try db.add(ann) }
        #expect(ann["age"] as? Int == 4)
        #expect(ann["kind"] as? String == "regular")
        try db.write {
            ann["age"] = nil
            ann["kind"] = "vip"
        }
        #expect(ann.age == nil && ann.kind == .vip)
        let mismatch = try #require(throws: ObjDBError.self) { try db.write { try ann.setValue(nil, forKey: "name") } }
        #expect(mismatch.code == .typeMismatch)
        #expect(mismatch.message.contains("Person.name"))
        #expect(ann.name == "Ann")
    }

    @Test func writeConflictOnTheSameThreadIsAnErrorNotADeadlock() throws {
        let a = try directory.open()
        let b = try directory.open()
        try a.write {
            let error = try #require(throws: ObjDBError.self) { try b.write { try b.add(person(1, "Ann")) } }
            #expect(error.code == .writeConflict)
        }
        #expect(!b.isInWriteTransaction)
        try b.write { try b.add(person(1, "Ann")) }
        #expect(b.objects(Person.self).count == 1)
    }
}
