import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// List edits (``ListEdit``): recorded by `List`'s methods, kept in the change log, and turned
/// into Realm's indices (realm-core `transact_log_handler.cpp`: a set is `modify`, a move a
/// `move`, a swap two moves), checked against both versions of the list.
struct ListEditTests {
    @Test func aSetIsAModificationOfTheOldPosition() throws {
        let diff = try #require(ListEditDiff([.set(at: 1)], old: [1, 2, 3], new: [1, 9, 3]))
        #expect(diff.deletions == [] && diff.insertions == [] && diff.replaced == [1])
        #expect(diff.survivors.map(\.old) == [0, 2] && diff.survivors.map(\.new) == [0, 2])
    }

    @Test func aMoveIsADeletionAndAnInsertion() throws {
        let diff = try #require(ListEditDiff([.move(from: 0, to: 2)], old: [1, 2, 3, 4], new: [2, 3, 1, 4]))
        #expect(diff.deletions == [0] && diff.insertions == [2] && diff.replaced == [])
    }

    @Test func aSwapIsTwoMoves() throws {
        // Realm's list_swap(0, 3): move(0, 3), then move(2, 0).
        let diff = try #require(ListEditDiff([.move(from: 0, to: 3), .move(from: 2, to: 0)], old: [1, 2, 3, 4], new: [4, 2, 3, 1]))
        #expect(diff.deletions == [0, 3] && diff.insertions == [0, 3])
    }

    @Test func editsOfNewElementsAreInsertionsOnly() throws {
        // Inserted, then replaced, then moved: still one insertion; the erased old element a deletion.
        let edits: [ListEdit] = [.insert(at: 1, count: 2), .set(at: 2), .erase(at: 0, count: 1), .move(from: 0, to: 2)]
        let diff = try #require(ListEditDiff(edits, old: [1, 2], new: [8, 2, 7]))
        #expect(diff.deletions == [0] && diff.insertions == [0, 2] && diff.replaced == [])
        #expect(diff.survivors.map(\.old) == [1] && diff.survivors.map(\.new) == [1])
    }

    @Test func editsThatDoNotLeadToTheNewListAreRefused() {
        #expect(ListEditDiff([.insert(at: 0, count: 1)], old: [1], new: [1]) == nil)
        #expect(ListEditDiff([], old: [1, 2], new: [2, 1]) == nil)
        #expect(ListEditDiff([.erase(at: 1, count: 5)], old: [1, 2], new: []) == nil)
        #expect(ListEditDiff([.set(at: 3)], old: [1, 2], new: [1, 2]) == nil)
    }

    /// A damaged or hostile log entry cannot make an observer allocate or work without bound.
    @Test func hugeCountsAreRefusedBeforeAnyWork() throws {
        #expect(ListEditDiff([.insert(at: 0, count: Int(Int32.max))], old: [], new: [1]) == nil)
        #expect(ListEditDiff(Array(repeating: .set(at: 0), count: ListEdit.limit + 1), old: [1], new: [1]) == nil)
        var changes = ChangeSet()
        var owners = ClassChangeSet()
        owners.modified = [3: ColumnSet()]
        owners.listEdits = [3: [2: Array(repeating: .set(at: 0), count: ListEdit.limit + 1)]]
        changes.classes[1] = owners
        let bytes = ChangeLogFormat.encode(changes)
        let error = try #require(throws: ObjDBError.self) { try bytes.withUnsafeBytes { try ChangeLogFormat.decode($0) } }
        #expect(error.code == .corruptFile)
    }

    @Test func appendsAndRemovalsFromTheFrontAreMergedAndTheLogIsBounded() {
        var edits: [ListEdit] = []
        for at in 5..<105 { #expect(ListEdit.append(.insert(at: at, count: 1), to: &edits)) }
        for _ in 0..<50 { #expect(ListEdit.append(.erase(at: 0, count: 1), to: &edits)) }
        #expect(edits == [.insert(at: 5, count: 100), .erase(at: 0, count: 50)])
        for at in 0..<(ListEdit.limit - 2) { #expect(ListEdit.append(.set(at: at % 7), to: &edits)) }
        #expect(!ListEdit.append(.set(at: 0), to: &edits))
    }

    @Test func listEditsSurviveTheChangeLog() throws {
        var changes = ChangeSet()
        var owners = ClassChangeSet()
        owners.modified = [3: ColumnSet(), 9: ColumnSet()]
        owners.listEdits = [3: [2: [.insert(at: 0, count: 2), .set(at: 7)]], 9: [2: [.move(from: 4, to: 1)], 5: [.erase(at: 3, count: 300)]]]
        changes.classes[1] = owners
        let bytes = ChangeLogFormat.encode(changes)
        #expect(try bytes.withUnsafeBytes { try ChangeLogFormat.decode($0) } == changes)
    }

    @Test func laterChangesWithoutEditsDropTheEarlierOnes() {
        var first = ClassChangeSet()
        first.modified = [3: columns(2)]
        first.listEdits = [3: [2: [.set(at: 0)]]]
        var second = ClassChangeSet()
        second.modified = [3: columns(2)]  // the list changed again, with no edits listed
        var merged = first
        merged.append(second)
        #expect(merged.listEdits[3]?[2] == nil)
        // Two commits that both listed their edits: the edits follow each other.
        second.listEdits = [3: [2: [.move(from: 1, to: 0)]]]
        merged = first
        merged.append(second)
        #expect(merged.listEdits[3]?[2] == [.set(at: 0), .move(from: 1, to: 0)])
    }

    private func columns(_ values: Int...) -> ColumnSet {
        var set = ColumnSet()
        set.formUnion(values)
        return set
    }
}
