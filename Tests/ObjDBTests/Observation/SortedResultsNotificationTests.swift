import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Notifications of sorted results, which place the objects a commit changed by binary search
/// (``IncrementalSortedKeys``) instead of evaluating and sorting again. Each expected change is
/// worked out by hand in Realm's index semantics (deletions in old indices, insertions in new
/// ones, modifications of objects that stayed in place, in old indices); the internal checks
/// also compare every delivery with the full evaluation and diff.
///
/// Cases follow realm-core's `test_collection_notifications` "sorted" sections (a moved object
/// is a deletion plus an insertion; one that stays in place is a modification).
@Suite(.serialized)
struct SortedResultsNotificationTests {
    let directory = TemporaryDirectory()

    /// The changes an observer was told, in order.
    final class Recorder {
        var updates: [(deletions: [Int], insertions: [Int], modifications: [Int])] = []
        var token: NotificationToken?

        init(_ results: Results<Person>) {
            token = results.observe { [unowned self] change in
                if case .update(_, let deletions, let insertions, let modifications) = change {
                    updates.append((deletions, insertions, modifications))
                }
            }
        }

        /// The one update since the last call.
        func take() -> (deletions: [Int], insertions: [Int], modifications: [Int])? {
            defer { updates = [] }
            return updates.count == 1 ? updates[0] : nil
        }
    }

    /// Ages 10, 20, 30, 40 for ids 1…4.
    func fourPeople() throws -> Database {
        let db = try directory.open([Person.self])
        try db.write { for id in 1...4 { try db.add(person(id, "p\(id)", age: id * 10)) } }
        return db
    }

    func ids(_ results: Results<Person>) -> [Int] { results.map(\.id) }

    @Test func anObjectWhoseSortValueCrossesANeighbourMoves() throws {
        let db = try fourPeople()
        let results = db.objects(Person.self).sorted(by: \.age)
        let recorder = Recorder(results)
        db.refresh()
        try db.write { db.object(ofType: Person.self, forPrimaryKey: 2)?.age = 35 }
        #expect(ids(results) == [1, 3, 2, 4])
        let update = try #require(recorder.take())
        #expect(update.deletions == [1] && update.insertions == [2] && update.modifications == [])
    }

    @Test func anObjectWhoseSortValueChangesInPlaceIsAModification() throws {
        let db = try fourPeople()
        let results = db.objects(Person.self).sorted(by: \.age)
        let recorder = Recorder(results)
        db.refresh()
        try db.write { db.object(ofType: Person.self, forPrimaryKey: 2)?.age = 21 }
        let update = try #require(recorder.take())
        #expect(update.deletions == [] && update.insertions == [] && update.modifications == [1])
        try db.write { db.object(ofType: Person.self, forPrimaryKey: 3)?.name = "renamed" }
        let renamed = try #require(recorder.take())
        #expect(renamed.deletions == [] && renamed.insertions == [] && renamed.modifications == [2])
    }

    @Test func insertionsAndDeletionsLandAtTheirSortedPlaces() throws {
        let db = try fourPeople()
        let results = db.objects(Person.self).sorted(by: \.age, ascending: false)  // 40 30 20 10
        let recorder = Recorder(results)
        db.refresh()
        try db.write {
            try db.add(person(5, "p5", age: 25))
            try db.add(person(6, "p6", age: 50))
            if let third = db.object(ofType: Person.self, forPrimaryKey: 3) { db.delete(third) }
        }
        #expect(ids(results) == [6, 4, 5, 2, 1])
        let update = try #require(recorder.take())
        #expect(update.deletions == [1] && update.insertions == [0, 2] && update.modifications == [])
    }

    @Test func aFilterThatAnObjectStopsMatchingRemovesIt() throws {
        let db = try fourPeople()
        let results = try db.objects(Person.self).filter("age >= 20").sorted(by: \.age)  // 2 3 4
        let recorder = Recorder(results)
        db.refresh()
        try db.write {
            db.object(ofType: Person.self, forPrimaryKey: 3)?.age = 5  // leaves
            db.object(ofType: Person.self, forPrimaryKey: 1)?.age = 45  // joins, at the end
        }
        #expect(ids(results) == [2, 4, 1])
        let update = try #require(recorder.take())
        #expect(update.deletions == [1] && update.insertions == [2] && update.modifications == [])
    }

    @Test func oneObjectMovingAcrossAThousandIsOneDeletionAndOneInsertion() throws {
        let db = try directory.open([Person.self])
        try db.write { for id in 0..<1_000 { try db.add(person(id, "p\(id)", age: id * 2)) } }
        let results = db.objects(Person.self).sorted(by: \.age)
        let recorder = Recorder(results)
        db.refresh()
        try db.write { db.object(ofType: Person.self, forPrimaryKey: 10)?.age = 1_991 }  // between 995 and 996
        let update = try #require(recorder.take())
        #expect(update.deletions == [10] && update.insertions == [995] && update.modifications == [])
        #expect(Array(ids(results)[994...996]) == [995, 10, 996])
    }

    /// Objects with equal sort values keep the order the query reached them in (key order for a
    /// table): a change next to a tie is evaluated again and still lands where Realm puts it.
    @Test func tiesAreOrderedAsAFullEvaluationOrdersThem() throws {
        let db = try fourPeople()
        let results = db.objects(Person.self).sorted(by: \.age)
        let recorder = Recorder(results)
        db.refresh()
        try db.write {
            try db.add(person(5, "p5", age: 20))  // ties with 2, after it (objects are keyed as added)
            try db.add(person(0, "p0", age: 30))  // ties with 3, after it
        }
        #expect(ids(results) == [1, 2, 5, 3, 0, 4])
        let update = try #require(recorder.take())
        #expect(update.deletions == [] && update.insertions == [2, 4] && update.modifications == [])
        try db.write { db.object(ofType: Person.self, forPrimaryKey: 4)?.age = 20 }  // joins the tie, between 2 and 5
        #expect(ids(results) == [1, 2, 4, 5, 3, 0])
        let moved = try #require(recorder.take())
        #expect(moved.deletions == [5] && moved.insertions == [2] && moved.modifications == [])
    }

    /// A commit that changes more objects than the fast path takes is evaluated again.
    @Test func aLargeCommitIsReportedExactly() throws {
        let db = try directory.open([Person.self])
        try db.write { for id in 0..<200 { try db.add(person(id, "p\(id)", age: id)) } }
        let results = db.objects(Person.self).sorted(by: \.age)
        let recorder = Recorder(results)
        db.refresh()
        try db.write { for person in db.objects(Person.self) where person.id % 2 == 0 { person.age = 1_000 - person.id } }
        let update = try #require(recorder.take())
        // The odd ids keep their order; the even ones now come after them, in reverse.
        #expect(ids(results) == Array(stride(from: 1, to: 200, by: 2)) + Array(stride(from: 198, through: 0, by: -2)))
        #expect(update.deletions.count == update.insertions.count)
        #expect(update.deletions.count >= 99)
    }

    /// Random commits against results sorted by optional values with nil, NaN, ±0, ±∞ and
    /// strings that differ in case and accents, ascending and descending, with ties: every update,
    /// applied to what the observer had, gives the results evaluated afresh (and the internal
    /// checks compare each fast-path delivery with the evaluation).
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomCommitsOnOptionalSortKeysAreReportedExactly(seed: UInt64) throws {
        let db = try directory.open([AllTypes.self], name: "optional-\(seed).objdb")
        var random = SeededRandom(seed: seed)
        let doubles: [Double?] = [nil, .nan, -0.0, 0.0, 1.5, -2, .infinity, -.infinity]
        let strings: [String?] = [nil, "", "a", "B", "é", "ab"]
        var nextID = 0
        func make() -> AllTypes {
            let object = AllTypes()
            object.id = nextID
            nextID += 1
            object.optDouble = doubles.randomElement(using: &random) ?? nil
            object.optString = strings.randomElement(using: &random) ?? nil
            object.int = Int.random(in: 0..<3, using: &random)
            return object
        }
        try db.write { for _ in 0..<40 { try db.add(make()) } }
        let all = db.objects(AllTypes.self)
        let observed: [Results<AllTypes>] = [
            all.sorted(by: [SortDescriptor(keyPath: "optDouble", ascending: false), SortDescriptor(keyPath: "optString")]),
            try all.filter("int != 1").sorted(by: [SortDescriptor(keyPath: "optString", ascending: false)]),
            all.sorted(by: [SortDescriptor(keyPath: "optDouble")]),
        ]
        var previous = observed.map { $0.map(\.id) }
        var updates: [[(deletions: [Int], insertions: [Int], modifications: [Int])]] = Array(repeating: [], count: observed.count)
        let tokens = observed.indices.map { index in
            observed[index].observe { change in
                if case .update(_, let deletions, let insertions, let modifications) = change {
                    updates[index].append((deletions, insertions, modifications))
                }
            }
        }
        db.refresh()
        for step in 0..<120 {
            try db.write {
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let objects = Array(db.objects(AllTypes.self))
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: try db.add(make())
                    case 1: if let victim = objects.randomElement(using: &random) { db.delete(victim) }
                    case 2: objects.randomElement(using: &random)?.optDouble = doubles.randomElement(using: &random) ?? nil
                    default: objects.randomElement(using: &random)?.optString = strings.randomElement(using: &random) ?? nil
                    }
                }
            }
            for index in observed.indices {
                let now = observed[index].map(\.id)
                defer {
                    previous[index] = now
                    updates[index] = []
                }
                guard let update = updates[index].first else {
                    #expect(previous[index] == now, "results \(index) step \(step): no call, but \(previous[index]) became \(now)")
                    continue
                }
                #expect(updates[index].count == 1)
                let deleted = Set(update.deletions), inserted = Set(update.insertions)
                let kept = previous[index].indices.filter { !deleted.contains($0) }.map { previous[index][$0] }
                let placed = now.indices.filter { !inserted.contains($0) }.map { now[$0] }
                #expect(kept == placed, "results \(index) step \(step): \(previous[index]) − \(update.deletions) ≠ \(now) − \(update.insertions)")
                #expect(update.modifications.allSatisfy { previous[index].indices.contains($0) && !deleted.contains($0) })
            }
        }
        withExtendedLifetime(tokens) {}
    }
}
