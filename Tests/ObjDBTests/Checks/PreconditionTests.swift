import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// The standard error of an exit test, as text ("" when the exit test did not run).
func standardError(_ result: ExitTest.Result?) -> String {
    result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
}

/// Programmer errors stop the process with a message, as Swift does for an index out of range.
/// The messages start with "ObjDB: " and are kept in release builds (`objdbFatal`).
struct PreconditionTests {
    @Test func settingAManagedPropertyOutsideAWriteTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            let ann = person(1, "Ann")
            try db.write { try db.add(ann) }
            ann.name = "Changed"
        }
        #expect(standardError(result).contains(#"ObjDB: Cannot set 'Person.name' outside a write transaction; wrap the change in db.write { }"#))
    }

    @Test func changingAPrimaryKeyTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            let ann = person(1, "Ann")
            try db.write { try db.add(ann) }
            try db.write { ann.id = 2 }
        }
        #expect(standardError(result).contains(#"ObjDB: The primary key 'Person.id' cannot be changed after the object was added; to store the object under another key, delete it and add a new object with that key"#))
    }

    @Test func settingThePrimaryKeyToTheSameValueIsAllowed() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open()
        let ann = person(1, "Ann")
        try db.write { try db.add(ann) }
        try db.write { ann.id = 1 }
        #expect(ann.id == 1)
    }

    @Test func readingADeletedObjectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            let ann = person(1, "Ann")
            try db.write { try db.add(ann) }
            try db.write { db.delete(ann) }
            _ = ann.name
        }
        #expect(standardError(result).contains(#"ObjDB: Object of class 'Person' with key 1 has been deleted or invalidated"#))
    }

    @Test func deletingAnUnmanagedObjectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            try db.write { db.delete(person(1, "Ann")) }
        }
        #expect(standardError(result).contains(#"ObjDB: Database.delete was given an object that is not stored: the Person is not managed"#))
        #expect(standardError(result).contains("Pass the stored object"))
    }

    @Test func nestedWritesTrap() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            try db.write { try db.write {} }
        }
        #expect(standardError(result).contains(#"ObjDB: Database.write was called inside a write transaction of the same Database; nested write transactions are not supported"#))
    }

    @Test func unknownKeyInSubscriptTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = person(1, "Ann")["nope"]
        }
        #expect(standardError(result).contains(#"ObjDB: "#))
        #expect(standardError(result).contains(#"has no persisted property 'nope'"#))
    }
    @Test func aNestedBeginWriteTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            beginWriteTwice(db)
        }
        #expect(standardError(result).contains(#"ObjDB: Database.beginWrite() was called while this Database is already in a write transaction; nested write transactions are not supported. End the current one with commitWrite() or cancelWrite() first"#))
    }

    @Test func aWriteInsideBeginWriteTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            try writeInsideBeginWrite(db)
        }
        #expect(standardError(result).contains(#"ObjDB: Database.write was called inside a write transaction of the same Database"#))
    }

    @Test func cancelWriteWithoutBeginWriteTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            try cancelAfterCommit(db)
        }
        #expect(standardError(result).contains(#"ObjDB: Database.cancelWrite() was called without a write transaction: nothing was rolled back"#))
    }

    /// A write through another instance on the same thread is not a nested write of the same
    /// Database: it throws instead of trapping (it would deadlock on LMDB's writer lock).
    @Test func aWriteThroughAnotherInstanceInsideAWriteThrows() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open()
        let other = try directory.open()
        let error = try db.write {
            try #require(throws: ObjDBError.self) { try other.write {} }
        }
        #expect(error.code == .writeConflict)
    }

    @Test func objectsOfAClassStoredDifferentlyTrapsWithTheDifferences() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            do {
                let older = try directory.open(nil)
                try older.write { try older.add(person(1, "Ann")) }
            }
            // The app's model changed since the file was written; the class is not listed.
            let db = try directory.open(nil)
            _ = db.objects(ChangedPerson.self)
        }
        let text = standardError(result)
        #expect(text.contains(#"ObjDB: Database.objects(_:) was called for class 'Person', but the schema of 'Person' stored in the file differs from the model class: property 'fullName' was added; property 'name' was removed; property 'age' was removed; property 'kind' was removed."#))
        #expect(text.contains(#"List Person in Configuration.objectTypes to get a migrationRequired error from Database(configuration:) at open instead"#))
    }

    /// What the message of the test above promises: with the class listed, the open throws.
    @Test func listingTheClassMakesTheOpenThrowInstead() throws {
        let directory = TemporaryDirectory()
        do {
            let db = try directory.open(nil)
            try db.write { try db.add(person(1, "Ann")) }
        }
        let error = try #require(throws: ObjDBError.self) { try directory.open([ChangedPerson.self]) }
        #expect(error.code == .migrationRequired)
        #expect(error.message.contains("'Person.fullName' was added"))
    }

    @Test func objectForPrimaryKeyOfAClassStoredDifferentlyTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            do {
                let older = try directory.open(nil)
                try older.write { try older.add(person(1, "Ann")) }
            }
            let db = try directory.open(nil)
            _ = db.object(ofType: ChangedPerson.self, forPrimaryKey: 1)
        }
        #expect(standardError(result).contains(#"ObjDB: Database.object(ofType:forPrimaryKey:) was called for class 'Person', but the schema of 'Person' stored in the file differs"#))
    }

    @Test func deletingOutsideAWriteTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            let ann = person(1, "Ann")
            try db.write { try db.add(ann) }
            db.delete(ann)
        }
        #expect(standardError(result).contains(#"ObjDB: Database.delete and deleteAll() must be called inside a write transaction; wrap the call in db.write { }"#))
    }
}

// `beginWrite`, `commitWrite` and `cancelWrite` are unavailable in asynchronous code such as an
// exit test's body: these synchronous functions make the calls.

private func beginWriteTwice(_ db: Database) {
    db.beginWrite()
    db.beginWrite()
}

private func writeInsideBeginWrite(_ db: Database) throws {
    db.beginWrite()
    try db.write {}
}

private func cancelAfterCommit(_ db: Database) throws {
    db.beginWrite()
    try db.commitWrite()
    db.cancelWrite()
}

extension PreconditionTests {
    // Realm's NotificationTests `testSkipNotificationForDifferentRealm`: skipping another
    // instance's observer is refused.
    @Test func skippingAnotherInstancesObserverTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            let other = try directory.open()
            let token = other.objects(Person.self).observe { _ in }
            try db.write(withoutNotifying: [token]) {}
        }
        #expect(standardError(result).contains("ObjDB: write(withoutNotifying:) was given the token of an observer registered on another Database instance"))
    }
}

extension PreconditionTests {
    /// A migration commits by itself: committing from the block would leave half a migration.
    @Test func committingInsideAMigrationBlockTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            do {
                let db = try directory.open([Person.self])
                try db.write { try db.add(person(1, "Ann")) }
            }
            var configuration = directory.configuration([Person.self])
            configuration.schemaVersion = 1
            configuration.migrationBlock = { migration, _ in
                try migration.enumerateObjects(ofType: "Person") { _, new in try new?.database?.commitWrite() }
            }
            _ = try Database(configuration: configuration)
        }
        #expect(standardError(result).contains("ObjDB: commitWrite() was called inside a migration block"))
    }
}
