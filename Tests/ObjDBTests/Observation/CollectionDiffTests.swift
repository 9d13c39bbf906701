import Foundation
import Testing
@testable import ObjDB

/// The diff behind collection notifications: Realm's index semantics, checked on realm-core's
/// cases and, for random changes, against what the indices must do.
struct CollectionDiffTests {
    /// Applies a diff: deletions from the highest index down, then insertions from `new`.
    static func apply(_ diff: CollectionDiff, to old: [UInt64], new: [UInt64]) -> [UInt64] {
        var result = old
        for index in diff.deletions.reversed() { result.remove(at: index) }
        for index in diff.insertions { result.insert(new[index], at: index) }
        return result
    }

    // realm-core test/object-store/collection_change_indices.cpp, "calculate() sorted": moves
    // among three objects; (insertions, deletions).
    @Test(arguments: [
        ([1, 3, 2], [1], [2]),
        ([2, 1, 3], [0], [1]),
        ([2, 3, 1], [2], [0]),
        ([3, 1, 2], [0], [2]),
        ([3, 2, 1], [0, 1], [1, 2]),
    ] as [([UInt64], [Int], [Int])])
    func movesAmongThreeObjects(_ new: [UInt64], _ insertions: [Int], _ deletions: [Int]) {
        let diff = CollectionDiff.between([1, 2, 3], new, inKeyOrder: false, modified: [])
        #expect(diff.insertions == insertions)
        #expect(diff.deletions == deletions)
        #expect(diff.modifications.isEmpty)
        #expect(Self.apply(diff, to: [1, 2, 3], new: new) == new)
    }

    // Same file: between equally good choices, the modified object is the one that moves…
    @Test func theModifiedObjectIsTheOneThatMoves() {
        let second = CollectionDiff.between([1, 2, 3], [1, 3, 2], inKeyOrder: false, modified: [2])
        #expect(second == CollectionDiff(deletions: [1], insertions: [2], modifications: []))
        let third = CollectionDiff.between([1, 2, 3], [1, 3, 2], inKeyOrder: false, modified: [3])
        #expect(third == CollectionDiff(deletions: [2], insertions: [1], modifications: []))
    }

    // …but a smaller diff wins over moving only modified objects.
    @Test func aSmallerDiffWinsOverMovingTheModifiedObject() {
        let diff = CollectionDiff.between([1, 2, 3], [2, 3, 1], inKeyOrder: false, modified: [2])
        #expect(diff == CollectionDiff(deletions: [0], insertions: [2], modifications: [1]))
    }

    // Same file: the longest runs stay, each side diffed on its own.
    @Test func theLongestRunsStay() {
        let old: [UInt64] = [10, 1, 2, 11, 3, 4, 5, 12, 6, 7, 13]
        let new: [UInt64] = [13, 1, 2, 12, 3, 4, 5, 11, 6, 7, 10]
        let diff = CollectionDiff.between(old, new, inKeyOrder: false, modified: [])
        #expect(diff.deletions == [0, 3, 7, 10])
        #expect(diff.insertions == [0, 3, 7, 10])
    }

    // Modifications are old indices, of objects that stayed.
    @Test func modificationsAreOldIndicesOfObjectsThatStayed() {
        let diff = CollectionDiff.between([1, 2, 3, 4], [1, 3, 4, 5], inKeyOrder: true, modified: [3, 4])
        #expect(diff == CollectionDiff(deletions: [1], insertions: [3], modifications: [2, 3]))
        let sorted = CollectionDiff.between([1, 2, 3, 4], [3, 1, 4, 5], inKeyOrder: false, modified: [3, 4])
        #expect(sorted.modifications == [3])  // 3 moved: a deletion and an insertion only
        #expect(Self.apply(sorted, to: [1, 2, 3, 4], new: [3, 1, 4, 5]) == [3, 1, 4, 5])
    }

    @Test func nothingChangedIsEmpty() {
        #expect(CollectionDiff.between([4, 2, 9], [4, 2, 9], inKeyOrder: false, modified: []).isEmpty)
        #expect(CollectionDiff.between([], [], inKeyOrder: true, modified: []).isEmpty)
        #expect(CollectionDiff.between([1, 2], [1, 2], inKeyOrder: true, modified: [7]).isEmpty)
    }

    /// Random old and new orders of random key sets: the deletions and insertions turn the old
    /// collection into the new one, every index is in range and ascending, and modifications
    /// are exactly the modified objects that stayed in place (kept objects keep their order).
    @Test func randomChangesApplyExactly() {
        var generator = SeededRandom(seed: 22)
        for round in 0..<600 {
            let universe = UInt64(1)...UInt64(round % 3 == 0 ? 400 : 30)
            let oldKeys = Array(universe.filter { _ in Bool.random(using: &generator) }.shuffled(using: &generator))
            var newKeys = oldKeys.filter { _ in Int.random(in: 0..<10, using: &generator) > 1 }
            newKeys += universe.filter { !oldKeys.contains($0) && Int.random(in: 0..<10, using: &generator) == 0 }
            // Mostly small moves, sometimes a full shuffle.
            if round % 5 == 0 {
                newKeys.shuffle(using: &generator)
            } else {
                for _ in 0..<Int.random(in: 0...3, using: &generator) where newKeys.count > 1 {
                    let from = Int.random(in: 0..<newKeys.count, using: &generator)
                    let key = newKeys.remove(at: from)
                    newKeys.insert(key, at: Int.random(in: 0...newKeys.count, using: &generator))
                }
            }
            let inKeyOrder = round % 4 == 1
            let old = inKeyOrder ? oldKeys.sorted() : oldKeys
            let new = inKeyOrder ? newKeys.sorted() : newKeys
            let modified = universe.filter { _ in Int.random(in: 0..<6, using: &generator) == 0 }
            let diff = CollectionDiff.between(old, new, inKeyOrder: inKeyOrder, modified: modified)
            #expect(Self.apply(diff, to: old, new: new) == new, "round \(round)")
            for indices in [diff.deletions, diff.modifications] {
                #expect(indices == indices.sorted() && Set(indices).count == indices.count && indices.allSatisfy { $0 < old.count })
            }
            #expect(diff.insertions == diff.insertions.sorted() && diff.insertions.allSatisfy { $0 < new.count })
            let deleted = Set(diff.deletions)
            let stayed = old.indices.filter { !deleted.contains($0) }
            #expect(diff.modifications == stayed.filter { modified.contains(old[$0]) }, "round \(round)")
            // What stays keeps its order, and everything in both versions that was not moved stays.
            let stayedKeys = stayed.map { old[$0] }
            let insertedKeys = Set(diff.insertions.map { new[$0] })
            #expect(new.filter { !insertedKeys.contains($0) } == stayedKeys)
        }
    }

    /// A large reversal is decided by a longest increasing subsequence, fast, and still exact.
    @Test func aLargeReversalStaysExact() {
        let old = Array(UInt64(1)...20_000)
        let new = Array(old.reversed())
        let diff = CollectionDiff.between(old, new, inKeyOrder: false, modified: [])
        #expect(Self.apply(diff, to: old, new: new) == new)
        #expect(diff.deletions.count == 19_999)
    }
}
