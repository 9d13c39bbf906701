import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// An instance reads one version until `refresh()`, a write of its own, or a delivery on its own
/// executor moves it: another thread's commit never shows in the middle of its code. Checked in
/// every isolation a database can be opened in, after the instance's own write (where the
/// snapshot used not to be kept), after a rollback, and between two plain reads.
///
/// The time limit catches hangs only: in a parallel run on 2 cores a test can wait minutes for
/// the main actor and the thread pool (a limit of one minute failed a CI run that way).
@Suite(.serialized, .timeLimit(.minutes(5)))
struct SnapshotIsolationTests {
    let directory = TemporaryDirectory()

    /// What an instance sees around other threads' commits, as lines to compare.
    static func scenario(_ configuration: Configuration, isolation: isolated (any Actor)?) throws -> [String] {
        let db = try Database(configuration: configuration, isolation: isolation)
        let people = db.objects(Person.self)
        var seen: [String] = []
        func note(_ label: String) {
            let ann = db.object(ofType: Person.self, forPrimaryKey: 1)
            seen.append("\(label): \(people.count) people, Ann \(ann?.age.map(String.init) ?? "-")")
        }

        // realm-swift ThreadSafeReferenceTests.testPassThreadSafeReferencesToMultipleObjects:
        // after the instance's own write, another thread changes both objects through references.
        // Nothing is read between the write and the other commit (a read began the snapshot).
        let ann = person(1, "Ann", age: 0)
        let bob = person(2, "Bob", age: 0)
        try db.write { try db.add([ann, bob]) }
        let annReference = ThreadSafeReference(to: ann)
        let bobReference = ThreadSafeReference(to: bob)
        try onAnotherThread(configuration) { other in
            guard let ann = other.resolve(annReference), let bob = other.resolve(bobReference) else { return }
            try other.write {
                ann.age = 42
                bob.name = "the meaning of life"
            }
        }
        seen.append("own write, other commit: Ann \(ann.age ?? -1), Bob \(bob.name)")
        seen.append("refresh \(db.refresh())")
        seen.append("refreshed: Ann \(ann.age ?? -1), Bob \(bob.name)")

        // Two reads around another thread's commit, with an observer now: deliveries may move
        // the instance only at its own delivery points. (Without one, as above, a commit's
        // delivery does not begin the snapshot that hid the first case.)
        let token = people.observe { _ in }
        defer { token.invalidate() }
        note("before")
        try onAnotherThread(configuration) { other in
            try other.write {
                other.object(ofType: Person.self, forPrimaryKey: 1)?.age = 43
                try other.add(person(3, "Cid", age: 1))
            }
        }
        note("after a commit elsewhere")
        seen.append("refresh \(db.refresh())")
        note("refreshed")

        // After a rollback: the instance reads the version its write began on.
        try db.write { ann.age = 50 }
        do {
            try db.write {
                ann.age = 99
                throw TimedOut(what: "nothing (a rollback)")
            }
        } catch is TimedOut {}
        try onAnotherThread(configuration) { other in
            try other.write { other.object(ofType: Person.self, forPrimaryKey: 1)?.age = 44 }
        }
        note("rolled back, other commit")
        seen.append("refresh \(db.refresh())")
        note("refreshed")
        seen.append("refresh again \(db.refresh())")
        return seen
    }

    static let expected = [
        "own write, other commit: Ann 0, Bob Bob",
        "refresh true",
        "refreshed: Ann 42, Bob the meaning of life",
        "before: 2 people, Ann 42",
        "after a commit elsewhere: 2 people, Ann 42",
        "refresh true",
        "refreshed: 3 people, Ann 43",
        "rolled back, other commit: 3 people, Ann 50",
        "refresh true",
        "refreshed: 3 people, Ann 44",
        "refresh again false",
    ]

    @Test(arguments: Isolation.allCases)
    func readsStayAtTheirVersionUntilRefresh(_ isolation: Isolation) async throws {
        let configuration = directory.configuration([Person.self], name: "\(isolation).objdb")
        let seen = try await inIsolation(isolation) { try Self.scenario(configuration, isolation: $0) }
        #expect(seen == Self.expected)
    }

    // The commit that lands first after the instance's own write is the one that used to show:
    // the write is the last thing the instance did before reading again.
    @Test func theFirstCommitAfterAnOwnWriteDoesNotShow() throws {
        let configuration = directory.configuration([Person.self])
        let db = try Database(configuration: configuration, isolation: nil)
        try db.write { try db.add(person(1, "Ann", age: 0)) }
        let ann = try #require(db.object(ofType: Person.self, forPrimaryKey: 1))
        try db.write { ann.age = 1 }
        let other = try Database(configuration: configuration, isolation: nil)
        try other.write { other.object(ofType: Person.self, forPrimaryKey: 1)?.age = 2 }
        #expect(ann.age == 1)
        #expect(db.refresh())
        #expect(ann.age == 2)
    }

    // A write that changes nothing also leaves the instance where the write began.
    @Test func anEmptyWriteKeepsTheVersion() throws {
        let configuration = directory.configuration([Person.self])
        let db = try Database(configuration: configuration, isolation: nil)
        try db.write { try db.add(person(1, "Ann", age: 0)) }
        try db.write {}
        let other = try Database(configuration: configuration, isolation: nil)
        try other.write { try other.add(person(2, "Bob")) }
        #expect(db.objects(Person.self).count == 1)
        #expect(db.refresh())
        #expect(db.objects(Person.self).count == 2)
    }
}
