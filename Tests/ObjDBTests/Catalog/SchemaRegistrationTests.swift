import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// A model named like `Person` but with a different property, to simulate a changed model.
final class ChangedPerson: Object {
    override class var className: String { "Person" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var fullName: String = ""
}

/// `Person` with one more index than the stored one.
final class IndexedNote: Object {
    override class var className: String { "Note" }
    @Persisted(indexed: true) var text: String = ""
    @Persisted var created: Date = Date(timeIntervalSince1970: 0)
}

struct SchemaRegistrationTests {
    let directory = TemporaryDirectory()

    @Test func classesAreAddedOnFirstWriteWhenTypesAreNotListed() throws {
        let db = try directory.open(nil)
        #expect(db.schema.objectSchema.isEmpty)
        #expect(db.objects(Person.self).isEmpty)          // readable before it exists
        #expect(db.object(ofType: Person.self, forPrimaryKey: 1) == nil)
        try db.write { try db.add(person(1, "Ann")) }
        #expect(db.schema["Person"]?.primaryKeyProperty?.name == "id")
        let reopened = try directory.open(nil)
        #expect(reopened.objects(Person.self).count == 1)
    }

    @Test func aClassCreatedInARolledBackWriteIsForgotten() throws {
        let db = try directory.open(nil)
        db.beginWrite()
        let ann = person(1, "Ann")
        try db.add(ann)
        db.cancelWrite()
        #expect(db.schema["Person"] == nil)
        #expect(ann.isInvalidated)
        try db.write { try db.add(person(2, "Bob")) }
        #expect(db.objects(Person.self).map(\.id) == [2])
    }

    @Test func listedTypesAreCheckedAtOpen() throws {
        do {
            let db = try directory.open([Person.self])
            try db.write { try db.add(person(1, "Ann")) }
        }
        let error = try #require(throws: ObjDBError.self) { try directory.open([ChangedPerson.self]) }
        #expect(error.code == .migrationRequired)
        #expect(error.message.contains("'Person.fullName' was added"))
        #expect(error.message.contains("'Person.name' was removed"))
        #expect(error.className == "Person")
    }

    @Test func unlistedTypesAreNotPartOfTheDatabase() throws {
        let db = try directory.open([Person.self])
        let error = try #require(throws: ObjDBError.self) { try db.write { try db.add(Note()) } }
        #expect(error.code == .unknownClass)
        #expect(error.message.contains("Configuration.objectTypes"))
    }

    @Test func changedModelWithoutListedTypesFailsOnFirstWrite() throws {
        do {
            let db = try directory.open(nil)
            try db.write { try db.add(person(1, "Ann")) }
        }
        let db = try directory.open(nil)
        let changed = ChangedPerson()
        let error = try #require(throws: ObjDBError.self) { try db.write { try db.add(changed) } }
        #expect(error.code == .migrationRequired)
    }

    @Test func deleteDatabaseIfMigrationNeededStartsOver() throws {
        do {
            let db = try directory.open([Person.self])
            try db.write { try db.add(person(1, "Ann")) }
        }
        var config = directory.configuration([ChangedPerson.self])
        config.deleteDatabaseIfMigrationNeeded = true
        let db = try Database(configuration: config)
        #expect(db.objects(ChangedPerson.self).isEmpty)
        #expect(db.schema["Person"]?["fullName"] != nil)
    }

    @Test func indexesAreAddedAndRemovedAtOpenWithoutAMigration() throws {
        do {
            let db = try directory.open([Note.self])
            try db.write {
                for text in ["b", "a", "b"] { let n = Note(); n.text = text; try db.add(n) }
            }
        }
        do {
            let db = try directory.open([IndexedNote.self])
            #expect(db.schema["Note"]?["text"]?.isIndexed == true)
            let info = try #require(try db.classInfo(for: IndexedNote.self))
            let index = try #require(info.tables.indexes[try info.column(named: "text")])
            let txn = try #require(db.readableTxn())
            #expect(try txn.entryCount(index) == 3)    // built from the existing rows
            try db.write { let n = IndexedNote(); n.text = "c"; try db.add(n) }
            #expect(try #require(db.readableTxn()).entryCount(index) == 4)
        }
        let db = try directory.open([Note.self])
        #expect(db.schema["Note"]?["text"]?.isIndexed == false)
        #expect(db.objects(Note.self).count == 4)
    }
}
