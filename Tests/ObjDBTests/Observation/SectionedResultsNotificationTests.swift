import Foundation
#if canImport(UIKit)
import UIKit  // IndexPath(item:section:) on Apple platforms
#elseif canImport(AppKit)
import AppKit  // IndexPath(item:section:) on Apple platforms
#endif
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Notifications of `SectionedResults` and `ResultsSection`: the results' flat changes mapped to
/// Realm's index paths. Cases follow realm-swift's `SectionedResultsTests` (named in each);
/// expected index paths are worked out by hand from the sections before and after.
@Suite(.serialized)
struct SectionedResultsNotificationTests {
    let directory = TemporaryDirectory()

    /// One `.update`, flattened for comparison.
    struct Update: Equatable, CustomStringConvertible {
        var deletions: [IndexPath] = []
        var insertions: [IndexPath] = []
        var modifications: [IndexPath] = []
        var sectionsToInsert: IndexSet = []
        var sectionsToDelete: IndexSet = []
        var description: String {
            "del \(deletions.map { [$0[0], $0[1]] }) ins \(insertions.map { [$0[0], $0[1]] }) mod \(modifications.map { [$0[0], $0[1]] }) +s \(Array(sectionsToInsert)) -s \(Array(sectionsToDelete))"
        }
    }

    /// What an observer was told.
    final class Recorder<Collection> {
        var initial = 0
        var updates: [Update] = []
        var errors = 0
        var token: NotificationToken?

        func record(_ change: SectionedResultsChange<Collection>) {
            switch change {
            case .initial: initial += 1
            case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
                updates.append(Update(
                    deletions: deletions, insertions: insertions, modifications: modifications,
                    sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete))
            case .error: errors += 1
            }
        }

        /// The updates since the last call.
        func take() -> [Update] {
            defer { updates = [] }
            return updates
        }
    }

    func path(_ item: Int, _ section: Int) -> IndexPath { IndexPath(item: item, section: section) }

    /// banana, box, apple, chalk (ids 1…4): sections a [apple], b [banana, box], c [chalk].
    func fruit() throws -> Database {
        let db = try directory.open([Person.self])
        try db.write {
            for (index, name) in ["banana", "box", "apple", "chalk"].enumerated() { try db.add(person(index + 1, name)) }
        }
        return db
    }

    func observe(_ sections: SectionedResults<String, Person>, keyPaths: [String]? = nil) -> Recorder<SectionedResults<String, Person>> {
        let recorder = Recorder<SectionedResults<String, Person>>()
        recorder.token = sections.observe(keyPaths: keyPaths) { [unowned recorder] in recorder.record($0) }
        return recorder
    }

    func observe(_ section: ResultsSection<String, Person>, keyPaths: [String]? = nil) -> Recorder<ResultsSection<String, Person>> {
        let recorder = Recorder<ResultsSection<String, Person>>()
        recorder.token = section.observe(keyPaths: keyPaths) { [unowned recorder] in recorder.record($0) }
        return recorder
    }

    func named(_ db: Database, _ name: String) -> Person? { db.objects(Person.self).where { $0.name == name }.first }

    // realm-swift: testObservation (the initial call, and a second observer's).
    @Test func initialCallHasTheSections() throws {
        let db = try fruit()
        let sections = db.objects(Person.self).sectioned(by: \.initial, ascending: true)
        var counts: [Int] = []
        let token = sections.observe { change in
            if case .initial(let collection) = change { counts.append(collection.count) }
        }
        db.refresh()
        let second = observe(sections)
        db.refresh()
        #expect(counts == [3] && second.initial == 1)
        try db.write { db.delete(db.objects(Person.self)) }
        #expect(second.take() == [Update(sectionsToDelete: [0, 1, 2])])
        token.invalidate()
    }

    /// A write that skips the token moves the flat results without the sections hearing of it;
    /// the next change (deleting what that write added) does not lead from the sections they
    /// reported, and must give a valid update rather than index past them (found in review).
    @Test func aSkippedWriteThenADeleteGivesAValidUpdate() throws {
        let db = try fruit()
        let sections = db.objects(Person.self).sectioned(by: \.initial, ascending: true)
        let recorder = observe(sections)
        db.refresh()
        let token = try #require(recorder.token)
        try db.write(withoutNotifying: [token]) { try db.add(person(5, "cherry")) }
        try db.write { if let cherry = named(db, "cherry") { db.delete(cherry) } }
        #expect(sections.allKeys == ["a", "b", "c"] && sections[2].count == 1)
        // Whatever the update says, applied to the three sections reported it gives these.
        for update in recorder.take() {
            #expect(update.deletions.allSatisfy { $0[0] < 3 } && update.insertions.allSatisfy { $0[0] < 3 })
        }
        #expect(recorder.errors == 0)
    }

    // realm-swift: testObserveOnQueue (delivered here on the database's own context).
    @Test func sectionsDeletedAndInsertedAndAnObjectMovedInItsSection() throws {
        let db = try fruit()
        let sections = db.objects(Person.self).sectioned(by: \.initial, ascending: true)
        let recorder = observe(sections, keyPaths: ["name"])
        db.refresh()
        try db.write {
            for name in ["banana", "apple"] { if let object = named(db, name) { db.delete(object) } }
            named(db, "box")?.name = "bog"
            try db.add(person(5, "zebra"))
        }
        #expect(sections.allKeys == ["b", "c", "z"])
        #expect(recorder.take() == [Update(
            deletions: [path(0, 1), path(1, 1)], insertions: [path(0, 0), path(0, 2)], sectionsToInsert: [2], sectionsToDelete: [0])])
        try db.write {
            named(db, "bog")?.name = "bogg"
            named(db, "chalk")?.age = 1  // not watched
        }
        #expect(recorder.take() == [Update(modifications: [path(0, 0)])])
    }

    // realm-swift: testObservationOnSection
    @Test func aSectionIsToldOnlyOfItsOwnObjects() throws {
        let db = try fruit()
        let sections = db.objects(Person.self).sectioned(by: \.initial, ascending: true)
        let a = observe(sections[0], keyPaths: ["name"])
        let b = observe(sections[1], keyPaths: ["name"])
        db.refresh()
        #expect(a.initial == 1 && b.initial == 1)

        try db.write { for name in ["banana", "apple"] { if let object = named(db, name) { db.delete(object) } } }
        #expect(a.take() == [Update(sectionsToDelete: [0])])
        #expect(b.take() == [Update(deletions: [path(0, 1)])])
        #expect(sections[0].count == 1)

        try db.write {
            named(db, "box")?.name = "bog"
            try db.add(person(5, "bag"))
        }
        #expect(a.take() == [])
        #expect(b.take() == [Update(deletions: [path(0, 0)], insertions: [path(0, 0), path(1, 0)])])

        try db.write { try db.add(person(6, "app")) }
        #expect(a.take() == [Update(insertions: [path(0, 0)], sectionsToInsert: [0])])
        #expect(b.take() == [])
    }

    @Test func aSectionEmptiedByDeletesIsDeletedWithoutItsObjects() throws {
        let db = try fruit()
        let sections = db.objects(Person.self).sectioned(by: \.initial)
        let recorder = observe(sections)
        db.refresh()
        try db.write { for name in ["banana", "box"] { if let object = named(db, name) { db.delete(object) } } }
        #expect(sections.allKeys == ["a", "c"])
        #expect(recorder.take() == [Update(sectionsToDelete: [1])])
    }

    @Test func aDeletionInsideASectionIsAnIndexPathInTheOldSections() throws {
        let db = try fruit()
        let sections = db.objects(Person.self).sectioned(by: \.initial)
        let recorder = observe(sections)
        db.refresh()
        try db.write { if let object = named(db, "banana") { db.delete(object) } }
        #expect(recorder.take() == [Update(deletions: [path(0, 1)])])
        try db.write { try db.add(person(7, "cedar")) }  // before chalk
        #expect(recorder.take() == [Update(insertions: [path(0, 2)])])
    }

    @Test func anObjectMovingBetweenSectionsIsADeletionAndAnInsertion() throws {
        let db = try fruit()
        let sections = db.objects(Person.self).sectioned(by: \.initial)
        let recorder = observe(sections)
        db.refresh()
        // box: b (1, 1) → c, after chalk (2, 1).
        try db.write { named(db, "box")?.name = "cube" }
        #expect(sections.map { $0.map(\.name) } == [["apple"], ["banana"], ["chalk", "cube"]])
        #expect(recorder.take() == [Update(deletions: [path(1, 1)], insertions: [path(1, 2)])])
        // banana leaves b, which empties: section 1 deleted; it opens section "d", inserted.
        try db.write { named(db, "banana")?.name = "date" }
        #expect(sections.allKeys == ["a", "c", "d"])
        #expect(recorder.take() == [Update(insertions: [path(0, 2)], sectionsToInsert: [2], sectionsToDelete: [1])])
    }

    @Test func aModificationInPlaceIsAModificationAtTheOldIndexPath() throws {
        let db = try fruit()
        let sections = db.objects(Person.self).sectioned(by: \.initial)
        let recorder = observe(sections)
        db.refresh()
        try db.write { named(db, "box")?.age = 3 }
        #expect(recorder.take() == [Update(modifications: [path(1, 1)])])
        // Not in sort order but in the same section at the same place.
        try db.write { named(db, "box")?.name = "bp" }
        #expect(recorder.take() == [Update(modifications: [path(1, 1)])])
    }

    @Test func blockSectionsFollowChangesOfTheKeyTheyRead() throws {
        let db = try directory.open([Person.self])
        try db.write { for (id, age) in [(1, 5), (2, 15), (3, 25)] { try db.add(person(id, "p\(id)", age: age)) } }
        let sections = db.objects(Person.self).sectioned(by: { ($0.age ?? 0) / 10 * 10 }, sortDescriptors: [SortDescriptor(keyPath: "age")])
        let recorder = Recorder<SectionedResults<Int, Person>>()
        recorder.token = sections.observe { [unowned recorder] in recorder.record($0) }
        db.refresh()
        // 15 → 19: same decade, same place: a modification.
        try db.write { db.object(ofType: Person.self, forPrimaryKey: 2)?.age = 19 }
        #expect(recorder.take() == [Update(modifications: [path(0, 1)])])
        // 5 → 21: decade 0 empties, the object joins decade 20 before 25.
        try db.write { db.object(ofType: Person.self, forPrimaryKey: 1)?.age = 21 }
        #expect(sections.allKeys == [10, 20])
        #expect(sections.map { $0.map(\.id) } == [[2], [1, 3]])
        #expect(recorder.take() == [Update(insertions: [path(0, 1)], sectionsToDelete: [0])])
    }

    @Test func aCommitThatChangesNothingShownCallsNothing() throws {
        let db = try fruit()
        let sections = try db.objects(Person.self).filter("name BEGINSWITH 'b'").sectioned(by: \.initial)
        let recorder = observe(sections)
        db.refresh()
        try db.write { named(db, "apple")?.age = 9 }
        #expect(recorder.take() == [])
        try db.write { try db.add(person(8, "bun")) }
        #expect(recorder.take() == [Update(insertions: [path(2, 0)])])
    }

    @Test func fromAndToEmptyResults() throws {
        let db = try directory.open([Person.self])
        let sections = db.objects(Person.self).sectioned(by: \.initial)
        let recorder = observe(sections)
        db.refresh()
        #expect(recorder.initial == 1)
        try db.write {
            try db.add(person(1, "x"))
            try db.add(person(2, "y"))
        }
        #expect(recorder.take() == [Update(insertions: [path(0, 0), path(0, 1)], sectionsToInsert: [0, 1])])
        try db.write { db.delete(db.objects(Person.self)) }
        #expect(sections.isEmpty)
        #expect(recorder.take() == [Update(sectionsToDelete: [0, 1])])
    }

    /// The sectioned results the random test observes, by shape.
    enum RandomShape: String, CaseIterable, Sendable {
        /// `sectioned(by: \.initial)`: consecutive sections, sorted by name.
        case initials
        /// A block key that follows the sort (the decade of the age, sorted by age).
        case decades
        /// A block key that does not follow the sort (the id modulo 3, sorted by name): the
        /// sections interleave.
        case interleaved
    }

    /// Many commits with random changes: every update, applied to the sections reported before,
    /// gives the sections now (as a table view applies a batch update). Renames and age changes
    /// move objects (or change their key) or modify them in place.
    @Test(arguments: RandomShape.allCases)
    func randomChangesReplayToTheNewSections(_ shape: RandomShape) throws {
        let db = try directory.open([Person.self])
        var generator = SplitMix(seed: 41)
        let letters = ["a", "b", "c", "d", "e"]
        func name() -> String { letters[Int(generator.next() % 5)] + "\(generator.next() % 100)" }
        try db.write { for id in 0..<40 { try db.add(person(id, name(), age: Int(generator.next() % 60))) } }
        let people = db.objects(Person.self)
        let sections: SectionedResults<String, Person> =
            switch shape {
            case .initials: people.sectioned(by: \.initial)
            case .decades: people.sectioned(by: { "\(($0.age ?? 0) / 10)" }, sortDescriptors: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "id")])
            case .interleaved: people.sectioned(by: { "\($0.id % 3)" }, sortDescriptors: [SortDescriptor(keyPath: "name"), SortDescriptor(keyPath: "id")])
            }
        let recorder = observe(sections)
        db.refresh()
        func snapshot() -> [(key: String, ids: [Int])] { sections.map { ($0.key, $0.map(\.id)) } }
        var shown = snapshot()
        var nextID = 40
        var updates = 0
        var modifications = 0
        for _ in 0..<80 {
            try db.write {
                for _ in 0..<Int(generator.next() % 4) {
                    let count = UInt64(people.count)
                    switch generator.next() % 4 {
                    case 0:
                        try db.add(person(nextID, name(), age: Int(generator.next() % 60)))
                        nextID += 1
                    case 1:
                        if count > 0 { db.delete(people[Int(generator.next() % count)]) }
                    case 2:
                        if count > 0 { people[Int(generator.next() % count)].name = name() }
                    default:
                        if count > 0 { people[Int(generator.next() % count)].age = Int(generator.next() % 60) }
                    }
                }
            }
            let now = snapshot()
            for update in recorder.take() {
                shown = Self.apply(update, to: shown, now: now)
                updates += 1
                modifications += update.modifications.count
            }
            #expect(shown.map(\.key) == now.map(\.key))
            #expect(shown.map(\.ids) == now.map(\.ids))
            shown = now
        }
        #expect(updates > 40)
        #expect(modifications > 5)
    }

    /// `update` applied to `old` as a batch update: deletions and deleted sections in old
    /// indices, then insertions and inserted sections in new ones (objects taken from `now`).
    static func apply(_ update: Update, to old: [(key: String, ids: [Int])], now: [(key: String, ids: [Int])]) -> [(key: String, ids: [Int])] {
        var sections = old.enumerated().filter { !update.sectionsToDelete.contains($0.offset) }.map { entry in
            (key: entry.element.key, ids: entry.element.ids.enumerated().filter { item in
                !update.deletions.contains(IndexPath(item: item.offset, section: entry.offset))
            }.map(\.element))
        }
        for index in update.sectionsToInsert { sections.insert((key: now[index].key, ids: []), at: index) }
        for path in update.insertions { sections[path[0]].ids.insert(now[path[0]].ids[path[1]], at: path[1]) }
        return sections
    }
    // Sections that change place among the others (a key that does not follow the sort):
    // deleted and inserted again for the sections' observer; nothing for an untouched one's.
    @Test func aSectionThatChangesPlaceIsReinsertedButItsOwnObserverHearsNothing() throws {
        let db = try directory.open([Person.self])
        try db.write {
            try db.add(person(0, "b"))
            try db.add(person(1, "c"))
        }
        let sections = db.objects(Person.self).sectioned(
            by: { "\($0.id % 3)" }, sortDescriptors: [SortDescriptor(keyPath: "name"), SortDescriptor(keyPath: "id")])
        #expect(sections.allKeys == ["0", "1"])
        let all = observe(sections)
        let one = observe(sections[1])
        db.refresh()
        try db.write { named(db, "b")?.name = "d" }  // section "0" now comes after "1"
        #expect(sections.allKeys == ["1", "0"])
        let updates = all.take()
        #expect(updates.count == 1)
        // Applied as a batch update, it gives the sections now.
        let before: [(key: String, ids: [Int])] = [("0", [0]), ("1", [1])]
        let now = sections.map { ($0.key, $0.map(\.id)) }
        if let update = updates.first {
            let applied = Self.apply(update, to: before, now: now)
            #expect(applied.map(\.key) == ["1", "0"])
            #expect(applied.map(\.ids) == [[1], [0]])
        }
        #expect(one.take() == [])
    }

    // realm-swift: testObserveOnQueue — the sections re-created on the queue, changes there.
    @Test func observingOnAQueueDeliversThere() throws {
        let db = try fruit()
        let queue = DispatchQueue(label: "sections observer")
        let calls = LockedCalls()
        let token = db.objects(Person.self).sectioned(by: \.initial).observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            switch change {
            case .initial(let sections): calls.append("initial \(sections.allKeys)")
            case .update(let sections, let deletions, let insertions, _, let sectionsToInsert, let sectionsToDelete):
                calls.append("update \(sections.allKeys) -\(deletions.map { [$0[0], $0[1]] }) +\(insertions.map { [$0[0], $0[1]] }) +s\(Array(sectionsToInsert)) -s\(Array(sectionsToDelete))")
            case .error(let error): calls.append("error \(error)")
            }
        }
        try calls.wait(for: 1)
        try db.write { try db.add(person(5, "date")) }
        try calls.wait(for: 2)
        try db.write { db.delete(db.objects(Person.self).where { $0.name == "apple" }) }
        try calls.wait(for: 3)
        #expect(calls.all == [
            "initial [\"a\", \"b\", \"c\"]",
            "update [\"a\", \"b\", \"c\", \"d\"] -[] +[[3, 0]] +s[3] -s[]",
            "update [\"b\", \"c\", \"d\"] -[] +[] +s[] -s[0]",
        ])
        token.invalidate()
    }

    // One section observed on a queue: only the commits that touch its key.
    @Test func aSectionObservedOnAQueueHearsOfItsKeyOnly() throws {
        let db = try fruit()
        let queue = DispatchQueue(label: "section observer")
        let calls = LockedCalls()
        let section = db.objects(Person.self).sectioned(by: \.initial)[1]
        let token = section.observe(on: queue) { change in
            switch change {
            case .initial(let section): calls.append("initial \(section.key) \(section.count)")
            case .update(let section, _, let insertions, _, _, _): calls.append("update \(section.key) \(section.count) +\(insertions.map { [$0[0], $0[1]] })")
            case .error(let error): calls.append("error \(error)")
            }
        }
        try calls.wait(for: 1)
        try db.write { try db.add(person(5, "apricot")) }
        try db.write { try db.add(person(6, "berry")) }
        try calls.wait(for: 2)
        #expect(calls.all == ["initial b 2", "update b 3 +[[1, 1]]"])
        token.invalidate()
    }

    /// A change of an async sequence, flattened: `initial` with the section keys, or the update.
    func flattened<Collection>(_ change: SectionedResultsChange<Collection>?, keys: (Collection) -> [String]) -> String {
        switch change {
        case .initial(let collection): "initial \(keys(collection))"
        case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
            Update(
                deletions: deletions, insertions: insertions, modifications: modifications,
                sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete
            ).description
        case .error(let error): "error \(error)"
        case nil: "end"
        }
    }

    // `changes`: the same updates as `observe`, as an AsyncSequence.
    @Test func changesGiveTheUpdatesInOrder() async throws {
        let db = try fruit()
        let sections = db.objects(Person.self).sectioned(by: \.initial)
        var iterator = sections.changes.makeAsyncIterator()
        db.refresh()  // a delivery point: the initial state
        try db.write { try db.add(person(5, "date")) }
        try db.write { db.delete(try #require(named(db, "box"))) }
        // The sections in a change are live: read now, they show the current version.
        #expect(flattened(await iterator.next()) { $0.allKeys } == "initial [\"a\", \"b\", \"c\", \"d\"]")
        #expect(flattened(await iterator.next()) { $0.allKeys } == Update(insertions: [path(0, 3)], sectionsToInsert: [3]).description)
        #expect(flattened(await iterator.next()) { $0.allKeys } == Update(deletions: [path(1, 1)]).description)
    }

    // A section's `changes`: only the commits that touch its key.
    @Test func aSectionsChangesSkipOtherSections() async throws {
        let db = try fruit()
        let section = db.objects(Person.self).sectioned(by: \.initial)[1]
        #expect(section.key == "b")
        var iterator = section.changes.makeAsyncIterator()
        db.refresh()
        try db.write { try db.add(person(5, "apricot")) }  // section a only
        try db.write { try db.add(person(6, "berry")) }
        #expect(flattened(await iterator.next()) { [$0.key] } == "initial [\"b\"]")
        #expect(flattened(await iterator.next()) { [$0.key] } == Update(insertions: [path(1, 1)]).description)
    }
}

/// A small deterministic generator for the random test.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
