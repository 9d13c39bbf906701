import Testing
@testable import ObjDB
import ObjDBTestModels

/// ``ClassChanges``: the per-class record of one write transaction.
struct ClassChangesTests {
    @Test func modificationsMergeWritesPerObjectAcrossNarrowAndWideColumns() {
        // Keys from 100 up are this transaction's inserts.
        let changes = ClassChanges(nextKey: 100)
        changes.modified(1, columns: [0])
        changes.modified(2, columns: [63, 64])
        changes.modified(1, columns: [5, 70])
        changes.modified(3, columns: [])
        changes.modified(100, columns: [1])  // inserted: not a modification
        changes.modified(4, columns: [2])
        changes.deleted(4)  // deleted later: not a modification
        let merged = changes.modifications
        #expect(Set(merged.keys) == [1, 2, 3])
        #expect(merged[1]?.columns == [0, 5, 70])
        #expect(merged[2]?.columns == [63, 64])
        #expect(merged[3]?.columns == [])
        #expect(merged[2]?.count == 2)
    }

    @Test func keysAreAllocatedInOrderFromTheCounter() throws {
        let changes = ClassChanges(nextKey: 7)
        #expect(try changes.allocateKey() == 7)
        #expect(try changes.allocateKey() == 8)
        #expect(changes.isNew(7) && !changes.isNew(6))
        changes.deleted(7)  // an insert deleted again leaves no trace
        changes.deleted(3)
        #expect(changes.deletions == [3])
    }

    /// A counter at the top of the range (only a damaged file holds one) throws instead of
    /// overflowing; the key before it is the last one handed out.
    @Test func anExhaustedKeyCounterThrows() throws {
        let changes = ClassChanges(nextKey: .max - 1)
        #expect(try changes.allocateKey() == .max - 1)
        let error = try #require(throws: ObjDBError.self) { try changes.allocateKey() }
        #expect(error.code == .corruptFile)
        #expect(changes.nextKey == .max)
    }

    /// Through the database: a file whose counter is one below the top takes one more object,
    /// then refuses the next with an error, and keeps what it had.
    @Test func insertsIntoAFileWithAnExhaustedCounterThrowInsteadOfCrashing() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open([Person.self])
        let info = try #require(try db.classInfo(for: Person.self))
        db.environment.raiseCounterFloor(info.classID, to: UInt64.max - 1)
        try db.write { try db.add(person(1, "last key")) }
        let error = try #require(throws: ObjDBError.self) { try db.write { try db.add(person(2, "no key left")) } }
        #expect(error.code == .corruptFile)
        #expect(db.objects(Person.self).map(\.name) == ["last key"])
    }
}
