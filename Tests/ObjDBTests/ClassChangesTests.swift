import Testing
@testable import ObjDB

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

    @Test func keysAreAllocatedInOrderFromTheCounter() {
        let changes = ClassChanges(nextKey: 7)
        #expect(changes.allocateKey() == 7)
        #expect(changes.allocateKey() == 8)
        #expect(changes.isNew(7) && !changes.isNew(6))
        changes.deleted(7)  // an insert deleted again leaves no trace
        changes.deleted(3)
        #expect(changes.deletions == [3])
    }
}
