import Foundation
import Observation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// What observation tracking saw: every value `read` gave, each time the tracked properties
/// changed, read again on the main actor's next turn (as SwiftUI renders).
@MainActor
final class TrackedReads<Value> {
    private(set) var values: [Value] = []
    /// How many times a tracked property changed.
    private(set) var changes = 0
    private let read: @MainActor () -> Value

    init(_ read: @escaping @MainActor () -> Value) {
        self.read = read
        track()
    }

    private func track() {
        let value = withObservationTracking {
            read()
        } onChange: { [weak self] in
            Task { @MainActor in
                self?.changes += 1
                self?.track()
            }
        }
        values.append(value)
    }
}

/// Waits until `condition` holds, up to five seconds, letting the main queue run.
@MainActor
fileprivate func eventually(_ condition: @MainActor () -> Bool) async throws -> Bool {
    for _ in 0..<500 {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// `LiveResults`: a frozen snapshot replaced on the main actor on every change, and edits that
/// act on the objects the snapshot showed.
///
/// The time limit catches hangs only: in a parallel run on 2 cores a test can wait minutes for
/// the main actor and the thread pool (a limit of one minute failed a CI run that way).
@Suite(.serialized, .timeLimit(.minutes(5)))
@MainActor
struct LiveResultsTests {
    let directory = TemporaryDirectory()

    func people(_ db: Database, _ ids: ClosedRange<Int>) throws {
        try db.write {
            for id in ids { try db.add(person(id, "P\(id)", age: id)) }
        }
    }

    /// The ids the database reads now.
    func ids(_ db: Database) -> [Int] { db.objects(Person.self).sorted(by: \.id).map(\.id) }

    @Test func theSnapshotIsFrozenAndReplacedOnEachChange() async throws {
        let db = try directory.open([Person.self])
        try people(db, 1...3)
        let live = LiveResults(db.objects(Person.self).sorted(by: \.id))
        #expect(live.snapshot.map(\.id) == [1, 2, 3])
        #expect(live.snapshot.allSatisfy { $0.isFrozen })
        #expect(live.lastChange == nil)
        let first = live.snapshot
        let tracked = TrackedReads { live.snapshot.map(\.name) }

        try db.write { try db.add(person(4, "P4")) }
        #expect(try await eventually { live.snapshot.map(\.id) == [1, 2, 3, 4] })
        #expect(live.lastChange == LiveChange(deletions: [], insertions: [3], modifications: []))
        // Tracking reads again on the main actor's next turn, as a view renders.
        #expect(try await eventually { tracked.values.last == ["P1", "P2", "P3", "P4"] })
        try db.write { db.objects(Person.self).where { $0.id == 2 }.first?.name = "Bea" }
        #expect(try await eventually { live.snapshot.map(\.name) == ["P1", "Bea", "P3", "P4"] })
        #expect(live.lastChange == LiveChange(deletions: [], insertions: [], modifications: [1]))
        #expect(try await eventually { tracked.values.last == ["P1", "Bea", "P3", "P4"] })
        try db.write { db.delete(db.objects(Person.self).where { $0.id == 1 }) }
        #expect(try await eventually { live.snapshot.map(\.id) == [2, 3, 4] })
        #expect(live.lastChange == LiveChange(deletions: [0], insertions: [], modifications: []))

        // The first snapshot still reads its version, deleted row and old name included.
        #expect(first.map(\.name) == ["P1", "P2", "P3"])
        #expect(try await eventually { tracked.values.last == ["Bea", "P3", "P4"] })
        #expect(tracked.changes >= 3)
        #expect(tracked.values == [["P1", "P2", "P3"], ["P1", "P2", "P3", "P4"], ["P1", "Bea", "P3", "P4"], ["Bea", "P3", "P4"]])
    }

    @Test func deleteActsOnTheObjectsTheSnapshotShowed() async throws {
        let db = try directory.open([Person.self])
        try people(db, 1...6)
        let live = LiveResults(db.objects(Person.self).sorted(by: \.id))
        try live.delete(atOffsets: IndexSet([1, 3]))
        #expect(ids(db) == [1, 3, 5, 6])
        // Delivered by the commit of the same instance.
        #expect(live.snapshot.map(\.id) == [1, 3, 5, 6])
        #expect(live.lastChange == LiveChange(deletions: [1, 3], insertions: [], modifications: []))
        // Offsets outside the snapshot name nothing.
        try live.delete(atOffsets: IndexSet([10]))
        #expect(ids(db) == [1, 3, 5, 6])
    }

    /// The case of the issue: a delete issued for a row another instance already deleted.
    @Test func aStaleDeleteSkipsTheRowAnotherInstanceDeleted() async throws {
        let configuration = directory.configuration([Person.self])
        let db1 = try Database(configuration: configuration)
        let db2 = try Database(configuration: configuration)
        try people(db1, 1...5)
        let a = LiveResults(db1.objects(Person.self).sorted(by: \.id))
        let b = LiveResults(db2.objects(Person.self).sorted(by: \.id))
        #expect(try await eventually { b.snapshot.map(\.id) == [1, 2, 3, 4, 5] })

        try a.delete(atOffsets: IndexSet([0]))
        // b has not heard of it yet: its view still shows 1 at offset 0, and deletes that row.
        #expect(b.snapshot.map(\.id) == [1, 2, 3, 4, 5])
        try b.delete(atOffsets: IndexSet([0]))
        #expect(ids(db1) == [2, 3, 4, 5])
        #expect(ids(db2) == [2, 3, 4, 5])
        #expect(try await eventually { b.snapshot.map(\.id) == [2, 3, 4, 5] && a.snapshot.map(\.id) == [2, 3, 4, 5] })

        // Deleted by another thread meanwhile: the same.
        let stale = b.snapshot
        try onAnotherThread(configuration) { other in
            try other.write { other.delete(other.objects(Person.self).where { $0.id == 2 || $0.id == 3 }) }
        }
        try b.delete(atOffsets: IndexSet([0, 1, 2]))
        #expect(ids(db2) == [5])
        #expect(stale.map(\.id) == [2, 3, 4, 5])
        #expect(try await eventually { a.snapshot.map(\.id) == [5] && b.snapshot.map(\.id) == [5] })
    }

    /// Two instances delete rows while observation tracking reads every snapshot of both: no
    /// crash, and each snapshot read is the state of a committed version.
    @Test func twoInstancesDeleteWhileTrackingReadsTheSnapshot() async throws {
        let configuration = directory.configuration([Person.self])
        let db1 = try Database(configuration: configuration)
        let db2 = try Database(configuration: configuration)
        try people(db1, 1...40)
        var committed: Set<[Int]> = [Array(1...40)]
        let a = LiveResults(db1.objects(Person.self).sorted(by: \.id))
        let b = LiveResults(db2.objects(Person.self).where { $0.age != nil }.sorted(by: \.id))
        // Reads every row's properties, as a List's rows would.
        let readA = TrackedReads { a.snapshot.map { row in (row.name == "P\(row.id)" ? row.id : -1) } }
        let readB = TrackedReads { b.snapshot.map { row in (row.age == row.id ? row.id : -1) } }
        var random = SeededRandom(seed: 41)
        var round = 0
        while ids(db1).count > 2 {
            round += 1
            let count1 = a.snapshot.count
            let count2 = b.snapshot.count
            if count1 > 0 { try a.delete(atOffsets: IndexSet([random.below(count1)])) }
            committed.insert(ids(db1))
            if count2 > 1 {
                // Often stale: b hears of a's commit on the main queue's next turn.
                try b.delete(atOffsets: IndexSet([random.below(count2), random.below(count2)]))
            }
            committed.insert(ids(db2))
            if round % 3 == 0 {
                try onAnotherThread(configuration) { other in
                    try other.write {
                        if let last = other.objects(Person.self).sorted(by: \.id).last { other.delete(last) }
                    }
                }
                // Another thread's commit: recorded from a fresh read on that version.
                db1.refresh()
                committed.insert(ids(db1))
            }
            #expect(committed.contains(a.snapshot.map(\.id)) && committed.contains(b.snapshot.map(\.id)))
            if round % 2 == 0 { try await Task.sleep(for: .milliseconds(5)) }
        }
        let final = ids(db1)
        #expect(try await eventually { a.snapshot.map(\.id) == final && b.snapshot.map(\.id) == final })
        #expect(try await eventually { readA.values.last == final && readB.values.last == final })
        for seen in readA.values + readB.values {
            #expect(!seen.contains(-1), "a row read wrong values")
            #expect(committed.contains(seen), "a snapshot that is no committed version: \(seen)")
        }
        #expect(readA.changes > 3 && readB.changes > 3)
    }

    @Test func moveReordersTheListByTheObjectsShown() async throws {
        let db = try directory.open([Owner.self, Pet.self])
        let owner = Owner()
        owner.id = 1
        for id in 1...5 {
            let pet = Pet()
            pet.id = id
            owner.pets.append(pet)
        }
        try db.write { try db.add(owner) }
        let live = LiveResults(owner.pets)
        #expect(live.snapshot.map(\.id) == [1, 2, 3, 4, 5])
        // As SwiftUI's onMove: before the element at the destination, counted before the move.
        try live.move(fromOffsets: IndexSet([0]), toOffset: 3)
        #expect(owner.pets.map(\.id) == [2, 3, 1, 4, 5])
        #expect(live.snapshot.map(\.id) == [2, 3, 1, 4, 5])
        #expect(live.lastChange.map { !$0.deletions.isEmpty && !$0.insertions.isEmpty } == true)
        try live.move(fromOffsets: IndexSet([0, 2]), toOffset: 5)
        #expect(owner.pets.map(\.id) == [3, 4, 5, 2, 1])
        try live.move(fromOffsets: IndexSet([4]), toOffset: 0)
        #expect(owner.pets.map(\.id) == [1, 3, 4, 5, 2])
    }

    @Test func moveMatchesSwiftUIsOnMove() async throws {
        let db = try directory.open([Owner.self, Pet.self])
        let owner = Owner()
        owner.id = 1
        for id in 1...7 {
            let pet = Pet()
            pet.id = id
            owner.pets.append(pet)
        }
        try db.write { try db.add(owner) }
        let live = LiveResults(owner.pets)
        var random = SeededRandom(seed: 7)
        for _ in 0..<40 {
            let before = owner.pets.map(\.id)
            let offsets = IndexSet((0..<7).filter { _ in random.below(3) == 0 })
            let destination = random.below(8)
            try live.move(fromOffsets: offsets, toOffset: destination)
            #expect(owner.pets.map(\.id) == Self.moved(before, offsets, destination), "\(before) \(Array(offsets)) → \(destination)")
            #expect(live.snapshot.map(\.id) == owner.pets.map(\.id))
        }
    }

    /// `MutableCollection.move(fromOffsets:toOffset:)` as SwiftUI defines it.
    static func moved(_ array: [Int], _ offsets: IndexSet, _ destination: Int) -> [Int] {
        let items = offsets.map { array[$0] }
        var rest = array.indices.filter { !offsets.contains($0) }.map { array[$0] }
        rest.insert(contentsOf: items, at: destination - offsets.count(in: 0..<destination))
        return rest
    }

    @Test func aStaleMoveActsOnTheObjectsShown() async throws {
        let configuration = directory.configuration([Owner.self, Pet.self])
        let db = try Database(configuration: configuration)
        let owner = Owner()
        owner.id = 1
        for id in 1...5 {
            let pet = Pet()
            pet.id = id
            owner.pets.append(pet)
        }
        try db.write { try db.add(owner) }
        let live = LiveResults(owner.pets)
        try onAnotherThread(configuration) { other in
            guard let owner = other.object(ofType: Owner.self, forPrimaryKey: 1) else { return }
            try other.write {
                let front = Pet()
                front.id = 9
                owner.pets.insert(front, at: 0)
                other.delete(other.objects(Pet.self).where { $0.id == 3 })
            }
        }
        // The view still shows 1 2 3 4 5: move 1 before 3 — which is gone, so before 4.
        #expect(live.snapshot.map(\.id) == [1, 2, 3, 4, 5])
        try live.move(fromOffsets: IndexSet([0]), toOffset: 2)
        #expect(owner.pets.map(\.id) == [9, 2, 1, 4, 5])
        // A moved object gone meanwhile is skipped.
        let stale = live.snapshot
        try onAnotherThread(configuration) { other in
            try other.write { other.delete(other.objects(Pet.self).where { $0.id == 2 }) }
        }
        #expect(live.snapshot.map(\.id) == stale.map(\.id))
        try live.move(fromOffsets: IndexSet([1, 2]), toOffset: 5)
        #expect(owner.pets.map(\.id) == [9, 4, 5, 1])
        // The list's object deleted: nothing to move, no crash.
        try onAnotherThread(configuration) { other in
            try other.write { other.delete(other.objects(Owner.self)) }
        }
        try live.move(fromOffsets: IndexSet([0]), toOffset: 2)
        #expect(try await eventually { live.snapshot.isEmpty })
    }

    @Test func moveOnQueryResultsIsAProgrammerError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await MainActor.run {
                let directory = TemporaryDirectory()
                let db = try directory.open([Person.self])
                try db.write { try db.add(person(1, "Ann")) }
                let live = LiveResults(db.objects(Person.self).sorted(by: \.id))
                try live.move(fromOffsets: IndexSet([0]), toOffset: 1)
            }
        }
        #expect(standardError(result).contains("only LiveResults made from a List can be reordered"))
    }
}

/// `LiveObject`: one frozen object, replaced on each change, `nil` once deleted.
///
/// The time limit catches hangs only: in a parallel run on 2 cores a test can wait minutes for
/// the main actor and the thread pool (a limit of one minute failed a CI run that way).
@Suite(.serialized, .timeLimit(.minutes(5)))
@MainActor
struct LiveObjectTests {
    let directory = TemporaryDirectory()

    @Test func followsChangesAndBecomesNilWhenDeleted() async throws {
        let configuration = directory.configuration([Person.self])
        let db = try Database(configuration: configuration)
        let ann = person(1, "Ann")
        try db.write { try db.add(ann) }
        let one = LiveObject(ann)
        #expect(one.object?.name == "Ann")
        #expect(one.object?.isFrozen == true)
        let tracked = TrackedReads { one.object?.name }

        try db.write { ann.name = "Annie" }
        #expect(try await eventually { one.object?.name == "Annie" })
        #expect(try await eventually { tracked.values.last == "Annie" })
        let shown = one.object
        try onAnotherThread(configuration) { other in
            try other.write { other.delete(other.objects(Person.self)) }
        }
        #expect(try await eventually { one.object == nil })
        // What a view still held reads its version.
        #expect(shown?.name == "Annie")
        #expect(try await eventually { tracked.values.last == .some(nil) })
        #expect(tracked.values == ["Ann", "Annie", nil])
    }

    @Test func deletedBeforeOrThroughTheSameInstance() async throws {
        let db = try directory.open([Person.self])
        try db.write { try db.add([person(1, "Ann"), person(2, "Bob")]) }
        let frozenAnn = try #require(db.objects(Person.self).where { $0.id == 1 }.first).freeze()
        try db.write { db.delete(db.objects(Person.self).where { $0.id == 1 }) }
        // Frozen before the deletion: thawed to nothing.
        #expect(LiveObject(frozenAnn).object == nil)

        let bob = try #require(db.objects(Person.self).where { $0.id == 2 }.first)
        let one = LiveObject(bob)
        try db.write { db.delete(bob) }
        #expect(one.object == nil)
    }

    @Test func aRowOfALiveResultsFollowedAlone() async throws {
        let db = try directory.open([Person.self])
        try db.write { try db.add([person(1, "Ann"), person(2, "Bob")]) }
        let list = LiveResults(db.objects(Person.self).sorted(by: \.id))
        let detail = LiveObject(list.snapshot[1])
        #expect(detail.object?.name == "Bob")
        try list.delete(atOffsets: IndexSet([1]))
        #expect(detail.object == nil)
        #expect(list.snapshot.map(\.id) == [1])
    }
}
