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

/// What a rollback leaves behind: invalidated objects stay invalidated, and their keys are never
/// handed out again.
struct RollbackKeyTests {
    let directory = TemporaryDirectory()

    @Test func objectsOfARolledBackInsertStayInvalidatedAfterLaterInserts() throws {
        let db = try directory.open()
        try db.write { try db.add(person(1, "Ann")) }
        let lost = person(2, "Lost")
        db.beginWrite()
        try db.add(lost)
        let lostKey = lost._objdbKey
        db.cancelWrite()
        #expect(lost.isInvalidated)
        // The next insert must not take the rolled-back key and bring `lost` back to life.
        let bob = person(3, "Bob")
        try db.write { try db.add(bob) }
        #expect(lost.isInvalidated)
        #expect(bob._objdbKey > lostKey)
        #expect(ObjectIdentity(lost) != ObjectIdentity(bob))
        // Another instance in this process (same environment) does not reuse it either.
        let other = try directory.open()
        try other.write { try other.add(person(4, "Cy")) }
        #expect(db.refresh())
        #expect(lost.isInvalidated)
        #expect(db.objects(Person.self).map(\.name) == ["Ann", "Bob", "Cy"])
    }

    @Test func failedCommitInvalidatesInsertedObjects() throws {
        let db = try directory.open()
        let note = Note()
        #expect(throws: DatabaseWriteTests.Boom.self) {
            try db.write {
                try db.add(note)
                #expect(!note.isInvalidated)
                throw DatabaseWriteTests.Boom()
            }
        }
        try db.write { try db.add(Note()) }
        #expect(note.isInvalidated)
        #expect(db.objects(Note.self).count == 1)
    }
}

/// `add` of a sequence is all or nothing, for updates as well as inserts.
struct SequenceAddAtomicityTests {
    let directory = TemporaryDirectory()

    @Test func updatesBeforeAFailingObjectAreRestored() throws {
        let db = try directory.open()
        try db.write { try db.add(person(1, "Ann", age: 30)) }
        let ann = try #require(db.object(ofType: Person.self, forPrimaryKey: 1))
        let newcomer = person(2, "Bea")
        // A Note has no primary key, so `.modified` cannot add it: the third object fails.
        let batch: [Object] = [person(1, "Ann Changed", age: 31), newcomer, Note()]
        try db.write {
            let error = try #require(throws: ObjDBError.self) { try db.add(batch, update: .modified) }
            #expect(error.code == .missingPrimaryKey)
            #expect(ann.name == "Ann")
            #expect(ann.age == 30)
            #expect(!newcomer.isManaged)
            #expect(newcomer.name == "Bea")       // unmanaged again, with its own values
            #expect(db.objects(Person.self).count == 1)
            #expect(db.objects(Person.self).where(name: "Ann").count == 1)
            #expect(db.objects(Note.self).isEmpty)
        }
        #expect(ann.name == "Ann")
        // The index was restored too: the old name is found, the new one is not.
        let names = try indexedNames(db)
        #expect(names == ["Ann"])
    }

    /// The keys of `Person`'s name index, read straight from the index table.
    private func indexedNames(_ db: Database) throws -> [String] {
        let info = try #require(try db.classInfo(for: Person.self))
        let column = try info.column(named: "name")
        let table = try #require(info.tables.indexes[column])
        let txn = try db.requireReadableTxn()
        let cursor = try Cursor(txn, table)
        var names: [String] = []
        var entry = try cursor.first()
        while let current = entry {
            names.append(String(decoding: current.key.dropFirst(), as: UTF8.self))
            entry = try cursor.next()
        }
        return names
    }
}

extension Results where Element == Person {
    /// The people with that exact name (until queries exist).
    fileprivate func `where`(name: String) -> [Person] { filter { $0.name == name } }
}
