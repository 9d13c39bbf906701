import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// What a collection observer was told, in order.
final class ChangeRecorder<Collection> {
    enum Call: Equatable {
        case initial(count: Int)
        case update(deletions: [Int], insertions: [Int], modifications: [Int])
        case error
    }
    var calls: [Call] = []

    func record(_ change: CollectionChange<Collection>, count: (Collection) -> Int) {
        switch change {
        case .initial(let collection): calls.append(.initial(count: count(collection)))
        case .update(_, let deletions, let insertions, let modifications):
            calls.append(.update(deletions: deletions, insertions: insertions, modifications: modifications))
        case .error: calls.append(.error)
        }
    }

    /// The calls after the initial one.
    var updates: [Call] { Array(calls.dropFirst()) }
}

/// Collection notifications of `Results`: Realm's index semantics, delivered at this
/// instance's commits and at `refresh()`, for changes made here and by other instances.
///
/// Cases 1–13 port realm-swift's `Realm/Tests/NotificationTests.m` (`ChangesetTests`): ten
/// objects whose `age` is 0…9, observed through `age > 0 AND age < 5` (unsorted: key order),
/// which starts as the objects of age 1, 2, 3 and 4 at indices 0–3. Each test makes one write
/// through another instance and refreshes; `updates` is what the observer was told after its
/// initial call. `nil` means no call.
@Suite(.serialized)
struct ResultsNotificationTests {
    let directory = TemporaryDirectory()

    /// The observing database, a writer on the same file, and the recorder of the observed
    /// query, after its initial call.
    func fixture(sorted: Bool = false) throws -> (db: Database, writer: Database, log: ChangeRecorder<Results<Person>>, token: NotificationToken) {
        let db = try directory.open([Person.self])
        try db.write { for i in 0..<10 { try db.add(person(i, "p\(i)", age: i)) } }
        let writer = try directory.open([Person.self])
        let log = ChangeRecorder<Results<Person>>()
        var results = try db.objects(Person.self).filter("age > 0 AND age < 5")
        if sorted { results = results.sorted(by: \.age, ascending: false) }
        let token = results.observe { log.record($0, count: \.count) }
        #expect(log.calls.isEmpty, "the first call waits for a delivery point")
        db.refresh()
        #expect(log.calls == [.initial(count: 4)])
        return (db, writer, log, token)
    }

    /// Writes through `writer`, then refreshes `db`; returns the one update, or `nil`.
    func change(_ f: (db: Database, writer: Database, log: ChangeRecorder<Results<Person>>, token: NotificationToken),
                _ body: (Database) throws -> Void) throws -> ChangeRecorder<Results<Person>>.Call? {
        let before = f.log.calls.count
        try f.writer.write { try body(f.writer) }
        f.db.refresh()
        let after = Array(f.log.calls[before...])
        #expect(after.count <= 1)
        return after.first
    }

    func set(_ db: Database, age from: Int, to: Int?) {
        db.objects(Person.self).first { $0.age == from }?.age = to
    }

    func delete(_ db: Database, age: Int) {
        if let object = db.objects(Person.self).first(where: { $0.age == age }) { db.delete(object) }
    }

    // ChangesetTests testInsertObjectMatchingQuery
    @Test func insertingAMatchingObject() throws {
        let f = try fixture()
        #expect(try change(f) { try $0.add(person(10, "new", age: 3)) } == .update(deletions: [], insertions: [4], modifications: []))
        withExtendedLifetime(f.token) {}
    }

    // ChangesetTests testInsertObjectNotMatchingQuery
    @Test func insertingAnObjectThatDoesNotMatchCallsNothing() throws {
        let f = try fixture()
        #expect(try change(f) { try $0.add(person(10, "new", age: 5)) } == nil)
        withExtendedLifetime(f.token) {}
    }

    // ChangesetTests testInsertMultiple
    @Test func insertingSeveralObjects() throws {
        let f = try fixture()
        let update = try change(f) { db in
            for (id, age) in [(10, 5), (11, 3), (12, 5), (13, 2)] { try db.add(person(id, "new", age: age)) }
        }
        #expect(update == .update(deletions: [], insertions: [4, 5], modifications: []))
        withExtendedLifetime(f.token) {}
    }

    // ChangesetTests testDeleteNewlyInsertedRowMatchingQuery
    @Test func insertingAndDeletingInOneCommitCallsNothing() throws {
        let f = try fixture()
        #expect(try change(f) { db in
            let new = person(10, "new", age: 3)
            try db.add(new)
            db.delete(new)
        } == nil)
        withExtendedLifetime(f.token) {}
    }

    // ChangesetTests testModifyObjectMatchingQuery
    @Test func modifyingAMatchingObject() throws {
        let f = try fixture()
        #expect(try change(f) { set($0, age: 3, to: 4) } == .update(deletions: [], insertions: [], modifications: [2]))
        withExtendedLifetime(f.token) {}
    }

    // ChangesetTests testModifyObjectToNoLongerMatchQuery
    @Test func modifyingAnObjectSoThatItNoLongerMatches() throws {
        let f = try fixture()
        #expect(try change(f) { set($0, age: 3, to: 5) } == .update(deletions: [2], insertions: [], modifications: []))
        withExtendedLifetime(f.token) {}
    }

    // ChangesetTests testModifyObjectToMatchQuery
    @Test func modifyingAnObjectSoThatItMatches() throws {
        let f = try fixture()
        #expect(try change(f) { set($0, age: 5, to: 4) } == .update(deletions: [], insertions: [4], modifications: []))
        withExtendedLifetime(f.token) {}
    }

    // ChangesetTests testModifyObjectShiftedByDeletion: modifications are old indices.
    @Test func aModificationIsReportedAtItsOldIndex() throws {
        let f = try fixture()
        let update = try change(f) { db in
            delete(db, age: 2)
            set(db, age: 3, to: 4)
        }
        #expect(update == .update(deletions: [1], insertions: [], modifications: [2]))
        withExtendedLifetime(f.token) {}
    }

    // ChangesetTests testDeleteObjectMatchingQuery
    @Test(arguments: [(1, 0), (4, 3)])
    func deletingAMatchingObject(_ age: Int, _ index: Int) throws {
        let f = try fixture()
        #expect(try change(f) { delete($0, age: age) } == .update(deletions: [index], insertions: [], modifications: []))
        withExtendedLifetime(f.token) {}
    }

    // ChangesetTests testDeleteMultiple
    @Test func deletingSeveralObjects() throws {
        let f = try fixture()
        #expect(try change(f) { db in db.delete(try db.objects(Person.self).filter("age > 1")) }
            == .update(deletions: [1, 2, 3], insertions: [], modifications: []))
        withExtendedLifetime(f.token) {}
    }

    // ChangesetTests testDeleteMultiple (all)
    @Test func deletingEveryObject() throws {
        let f = try fixture()
        #expect(try change(f) { $0.deleteAll() } == .update(deletions: [0, 1, 2, 3], insertions: [], modifications: []))
        withExtendedLifetime(f.token) {}
    }

    // ChangesetTests testDeleteNonMatchingBeforeMatches
    @Test func deletingAnObjectThatDidNotMatchCallsNothing() throws {
        let f = try fixture()
        #expect(try change(f) { delete($0, age: 0) } == nil)
        withExtendedLifetime(f.token) {}
    }

    // ChangesetTests testExcludingChangesFromSkippedTransaction
    @Test func aSkippedCommitIsNotReportedLater() throws {
        let f = try fixture()
        try f.db.write(withoutNotifying: [f.token]) { try f.db.add(person(10, "skipped", age: 3)) }
        #expect(f.log.calls.count == 1)
        try f.db.write { try f.db.add(person(11, "seen", age: 3)) }
        #expect(f.log.updates == [.update(deletions: [], insertions: [5], modifications: [])])
    }

    // A skipped commit made on top of another instance's commit that this one had not
    // delivered yet does not swallow that commit: the observer is told of both.
    @Test func aSkippedCommitDoesNotSwallowAnotherInstancesCommit() throws {
        let f = try fixture()
        try f.writer.write { try f.writer.add(person(20, "theirs", age: 2)) }
        // No delivery point yet: the observer still sees the version before the writer's commit.
        #expect(f.log.calls.count == 1)
        try f.db.write(withoutNotifying: [f.token]) { try f.db.add(person(21, "mine", age: 99)) }
        #expect(f.log.updates == [.update(deletions: [], insertions: [4], modifications: [])])
        withExtendedLifetime(f.token) {}
    }

    // realm-core results.cpp "modifying a matching row to change its position sends
    // insert+delete": an object whose sort position changes is a deletion and an insertion,
    // not a modification. Sorted by age descending: ids 4, 3, 2, 1; id 1 becomes age 4 and
    // sorts before id 4 (a descending sort orders equal ages by descending key).
    @Test func anObjectThatMovesInASortIsADeletionAndAnInsertion() throws {
        let f = try fixture(sorted: true)
        let update = try change(f) { set($0, age: 1, to: 4) }
        #expect(try f.db.objects(Person.self).filter("age > 0 AND age < 5").sorted(by: \.age, ascending: false).map(\.id) == [1, 4, 3, 2])
        #expect(update == .update(deletions: [3], insertions: [0], modifications: []))
        withExtendedLifetime(f.token) {}
    }

    // realm-core results.cpp sorted "modifying a matching row and leaving it matching" (same place)
    @Test func aModifiedObjectThatKeepsItsPlaceInASortIsAModification() throws {
        let f = try fixture(sorted: true)  // 4, 3, 2, 1 (ids 4, 3, 2, 1)
        #expect(try change(f) { $0.object(ofType: Person.self, forPrimaryKey: 3)?.name = "renamed" }
            == .update(deletions: [], insertions: [], modifications: [1]))
        withExtendedLifetime(f.token) {}
    }

    // Own commits notify synchronously, before write returns.
    @Test func ownCommitsNotifyBeforeWriteReturns() throws {
        let f = try fixture()
        try f.db.write { try f.db.add(person(10, "mine", age: 1)) }
        #expect(f.log.updates == [.update(deletions: [], insertions: [4], modifications: [])])
    }

    // realm-core results.cpp "notifications are not delivered when collapsing transactions
    // results in no net change": two commits delivered at once are merged.
    @Test func commitsDeliveredTogetherAreMerged() throws {
        let f = try fixture()
        try f.writer.write { try f.writer.add(person(10, "brief", age: 2)) }
        try f.writer.write { if let brief = f.writer.object(ofType: Person.self, forPrimaryKey: 10) { f.writer.delete(brief) } }
        try f.writer.write { set(f.writer, age: 4, to: 3) }
        f.db.refresh()
        #expect(f.log.updates == [.update(deletions: [], insertions: [], modifications: [3])])
    }

    @Test func invalidatingTheTokenStopsTheCalls() throws {
        let f = try fixture()
        f.token.invalidate()
        try f.writer.write { try f.writer.add(person(10, "new", age: 3)) }
        f.db.refresh()
        #expect(f.log.calls.count == 1)
        #expect(f.token.isInvalidated)
    }

    @Test func releasingTheTokenStopsTheCalls() throws {
        let db = try directory.open([Person.self])
        let log = ChangeRecorder<Results<Person>>()
        do {
            let token = db.objects(Person.self).observe { log.record($0, count: \.count) }
            db.refresh()
            withExtendedLifetime(token) {}
        }
        try db.write { try db.add(person(1, "a")) }
        #expect(log.calls == [.initial(count: 0)])
    }

    /// keyPaths: a change to a property not listed does not notify (realm-swift
    /// NotificationTests.m testModifyUnobservedKeyPathLocally).
    @Test func keyPathsLimitWhatCountsAsAModification() throws {
        let db = try directory.open([Person.self])
        try db.write { for i in 0..<3 { try db.add(person(i, "p\(i)", age: i)) } }
        let log = ChangeRecorder<Results<Person>>()
        let token = db.objects(Person.self).observe(keyPaths: ["name"]) { log.record($0, count: \.count) }
        db.refresh()
        try db.write { db.object(ofType: Person.self, forPrimaryKey: 1)?.age = 50 }
        #expect(log.updates.isEmpty)
        try db.write { db.object(ofType: Person.self, forPrimaryKey: 1)?.name = "one" }
        #expect(log.updates == [.update(deletions: [], insertions: [], modifications: [1])])
        // Insertions and deletions are reported whatever the key paths.
        try db.write { try db.add(person(3, "p3")) }
        #expect(log.updates.last == .update(deletions: [], insertions: [3], modifications: []))
        withExtendedLifetime(token) {}
    }

    /// realm-swift LinkedObjectChangesetTests testModifyLinkedObject: without key paths, a
    /// change to a linked object is a modification of the object that links to it; with
    /// `pets.name` only the name counts.
    @Test func changesToLinkedObjectsAreModifications() throws {
        let db = try directory.open([Owner.self, Pet.self])
        try db.write {
            for i in 0..<5 {
                let owner = Owner()
                owner.id = i
                let pet = Pet()
                pet.id = 100 + i
                pet.name = "pet \(i)"
                owner.pets.append(pet)
                try db.add(owner)
            }
        }
        let all = ChangeRecorder<Results<Owner>>()
        let names = ChangeRecorder<Results<Owner>>()
        let tokens = [
            db.objects(Owner.self).observe { all.record($0, count: \.count) },
            db.objects(Owner.self).observe(keyPaths: ["pets.name"]) { names.record($0, count: \.count) },
        ]
        db.refresh()
        try db.write { db.object(ofType: Pet.self, forPrimaryKey: 103)?.name = "renamed" }
        #expect(all.updates == [.update(deletions: [], insertions: [], modifications: [3])])
        #expect(names.updates == [.update(deletions: [], insertions: [], modifications: [3])])
        // A pet nobody links to: nothing.
        try db.write {
            let stray = Pet()
            stray.id = 999
            try db.add(stray)
        }
        #expect(all.updates.count == 1)
        // The pet's owner link (not watched through `pets.name`).
        try db.write {
            let pet = db.object(ofType: Pet.self, forPrimaryKey: 101)
            pet?.owner = db.object(ofType: Owner.self, forPrimaryKey: 0)
        }
        #expect(all.updates.count == 2)
        #expect(names.updates.count == 1)
        withExtendedLifetime(tokens) {}
    }

    /// A database moved to the newest version without a delivery (a write that changed nothing
    /// after another instance committed) still tells its observers at the next refresh().
    @Test func refreshDeliversWhatAWriteWithoutChangesSkipped() throws {
        let f = try fixture()
        try f.writer.write { try f.writer.add(person(10, "new", age: 3)) }
        try f.db.write {}  // moves to the newest version; observers hear of it before the write
        #expect(f.log.updates == [.update(deletions: [], insertions: [4], modifications: [])])
        f.db.refresh()
        #expect(f.log.updates.count == 1)
        withExtendedLifetime(f.token) {}
    }

    /// Registering an observer inside a write transaction is a programmer error with a message.
    @Test func observingInsideAWriteStopsWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open([Person.self])
            try db.write { _ = db.objects(Person.self).observe { _ in } }
        }
        let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("cannot be registered inside a write transaction"), "\(message)")
    }

    /// A commit to a class the results do not read calls nothing.
    @Test func commitsToOtherClassesCallNothing() throws {
        let db = try directory.open([Person.self, Note.self])
        let log = ChangeRecorder<Results<Person>>()
        let token = db.objects(Person.self).observe { log.record($0, count: \.count) }
        db.refresh()
        try db.write { try db.add(Note()) }
        #expect(log.calls == [.initial(count: 0)])
        withExtendedLifetime(token) {}
    }
}
