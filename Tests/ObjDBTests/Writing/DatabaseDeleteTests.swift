import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

struct DatabaseDeleteTests {
    let directory = TemporaryDirectory()

    @Test func deleteInvalidatesEveryInstanceOfTheObject() throws {
        let db = try directory.open()
        let ann = person(1, "Ann")
        try db.write { try db.add([ann, person(2, "Bob")]) }
        let sameAnn = try #require(db.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(!ann.isInvalidated)
        try db.write { db.delete(ann) }
        #expect(ann.isInvalidated && sameAnn.isInvalidated)
        #expect(ann.isManaged)
        #expect(db.object(ofType: Person.self, forPrimaryKey: 1) == nil)
        #expect(db.objects(Person.self).map(\.name) == ["Bob"])
        try db.write { db.delete(ann) }   // deleting again does nothing
        #expect(db.objects(Person.self).count == 1)
    }

    @Test func deletedPrimaryKeyCanBeReused() throws {
        let db = try directory.open()
        let ann = person(1, "Ann")
        try db.write { try db.add(ann) }
        try db.write {
            db.delete(ann)
            try db.add(person(1, "New Ann"))
        }
        #expect(db.object(ofType: Person.self, forPrimaryKey: 1)?.name == "New Ann")
        #expect(ann.isInvalidated)
    }

    @Test func objectKeysAreNeverReused() throws {
        let db = try directory.open()
        let a = Note()
        try db.write { try db.add(a) }
        let firstKey = a._objdbKey
        try db.write { db.delete(a) }
        let b = Note()
        try db.write { try db.add(b) }
        #expect(b._objdbKey > firstKey)
        // Also across reopening the file.
        let keyOfB = b._objdbKey
        try db.write { db.delete(b) }
        let reopened = try directory.open()
        let c = Note()
        try reopened.write { try reopened.add(c) }
        #expect(c._objdbKey > keyOfB)
    }

    @Test func deleteResultsAndSequences() throws {
        let db = try directory.open()
        try db.write { try db.add((1...10).map { person($0, "P\($0)") }) }
        let all = db.objects(Person.self)
        try db.write { db.delete(all.filter { $0.id % 2 == 0 }) }
        #expect(all.map(\.id) == [1, 3, 5, 7, 9])
        let three = try #require(db.object(ofType: Person.self, forPrimaryKey: 3))
        try db.write { db.delete(all) }
        #expect(all.isEmpty && all.count == 0)
        #expect(three.isInvalidated)
        // The primary-key and name index entries went with the rows.
        #expect(db.object(ofType: Person.self, forPrimaryKey: 3) == nil)
        #expect(try all.filter("name == 'P3'").isEmpty)
        try db.write { try db.add(person(3, "P3")) }
        #expect(try all.filter("name == 'P3'").map(\.id) == [3])
        // Deleting a whole class inside a transaction that added some of its objects.
        try db.write {
            try db.add(person(4, "P4"))
            db.delete(all)
            #expect(all.isEmpty)
        }
        #expect(all.isEmpty)
    }

    @Test func deleteAllEmptiesEveryClassAndKeepsTheSchema() throws {
        let db = try directory.open()
        try db.write {
            try db.add([person(1, "Ann"), person(2, "Bob")])
            try db.add(Note())
        }
        try db.write { db.deleteAll() }
        #expect(db.objects(Person.self).isEmpty && db.objects(Note.self).isEmpty)
        #expect(db.schema["Person"] != nil)
        try db.write { try db.add(person(1, "Ann again")) }   // primary-key table was emptied too
        #expect(db.objects(Person.self).count == 1)
    }

    @Test func rollingBackADeleteRestoresTheObject() throws {
        let db = try directory.open()
        let ann = person(1, "Ann")
        try db.write { try db.add(ann) }
        db.beginWrite()
        db.delete(ann)
        #expect(ann.isInvalidated)
        db.cancelWrite()
        #expect(!ann.isInvalidated)
        #expect(ann.name == "Ann")
    }
}

/// The transaction's record of what changed, which change notifications will use.
struct ChangeTrackingTests {
    let directory = TemporaryDirectory()

    @Test func insertionsDeletionsAndModificationsAreRecorded() throws {
        let db = try directory.open()
        try db.write { try db.add((1...3).map { person($0, "P\($0)") }) }
        let existing = try #require(db.object(ofType: Person.self, forPrimaryKey: 2))
        let existingKey = existing._objdbKey
        db.beginWrite()
        existing.age = 9
        db.delete(try #require(db.object(ofType: Person.self, forPrimaryKey: 3)))
        let added = person(4, "P4")
        try db.add(added)
        added.name = "changed after insert"            // not a modification: the object is new
        let info = try #require(try db.classInfo(for: Person.self))
        let changes = try #require(db.writeContext?.changes.ofClass(info.classID))
        #expect(changes.isNew(added._objdbKey) && !changes.isNew(existingKey))
        #expect(changes.deletions.count == 1)
        #expect(Array(changes.modifications.keys) == [existingKey])
        let ageColumn = try info.column(named: "age")
        #expect(changes.modifications[existingKey]?.columns == [ageColumn])
        db.delete(added)                               // inserted then deleted: not a deletion
        #expect(changes.deletions.count == 1)
        try db.commitWrite()
    }

    @Test func columnSetHoldsWideColumns() {
        var set = ColumnSet()
        set.formUnion([3, 70, 0, 3, 200])
        #expect(set.columns == [0, 3, 70, 200])
        #expect(set.count == 4)
    }
}
