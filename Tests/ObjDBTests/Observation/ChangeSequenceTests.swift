import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// `results.changes` and `object.changes` as `AsyncSequence`s (registered when the iterator is
/// made, the initial state first, ended by cancellation or an object's deletion), and delivery
/// into the isolation domain that opened a database (an actor, the main actor).
@Suite(.serialized)
struct ChangeSequenceTests {
    let directory = TemporaryDirectory()

    /// The shape of a collection change, for comparison.
    static func shape<C: Collection>(_ change: CollectionChange<C>?) -> String {
        switch change {
        case .initial(let c): return "initial \(c.count)"
        case .update(_, let d, let i, let m): return "update d\(d) i\(i) m\(m)"
        case .error(let error): return "error \(error)"
        case nil: return "end"
        }
    }

    // A commit between makeAsyncIterator() and the first next() is not lost.
    @Test func changesMadeBeforeTheFirstNextAreKept() async throws {
        let db = try directory.open([Person.self])
        var iterator = db.objects(Person.self).changes.makeAsyncIterator()
        db.refresh()  // a delivery point: the initial state (empty)
        try db.write { try db.add(person(1, "Ann", age: 30)) }
        try db.write { try db.add(person(2, "Bob", age: 40)) }
        // The collection in a change is live: read now, it shows the current version.
        #expect(Self.shape(await iterator.next()) == "initial 2")
        #expect(Self.shape(await iterator.next()) == "update d[] i[0] m[]")
        #expect(Self.shape(await iterator.next()) == "update d[] i[1] m[]")
    }

    // The iterator's observation sees the same indices `observe` reports.
    @Test func updatesCarryRealmIndices() async throws {
        let db = try directory.open([Person.self])
        try db.write { for i in 0..<5 { try db.add(person(i, "p\(i)", age: i)) } }
        var iterator = db.objects(Person.self).sorted(by: \.age).changes.makeAsyncIterator()
        db.refresh()
        try db.write {
            db.objects(Person.self).first { $0.age == 1 }?.age = 10  // moves to the end
            db.objects(Person.self).first { $0.age == 3 }?.name = "renamed"  // stays
        }
        #expect(Self.shape(await iterator.next()) == "initial 5")
        #expect(Self.shape(await iterator.next()) == "update d[1] i[4] m[3]")
    }

    // An object's sequence ends after `.deleted`.
    @Test func anObjectSequenceEndsWithItsDeletion() async throws {
        let db = try directory.open([Person.self])
        try db.write { try db.add(person(1, "Ann", age: 30)) }
        let ann = try #require(db.object(ofType: Person.self, forPrimaryKey: 1))
        var iterator = ann.changes.makeAsyncIterator()
        try db.write { ann.age = 31 }
        try db.write { db.delete(ann) }
        guard case .change(_, let properties) = await iterator.next() else {
            Issue.record("expected a change")
            return
        }
        #expect(properties.map(\.name) == ["age"])
        guard case .deleted = await iterator.next() else {
            Issue.record("expected the deletion")
            return
        }
        #expect(await iterator.next() == nil)
    }

    // Cancelling the iterating task ends the loop, and the observation with it.
    @Test @MainActor func cancellationEndsTheLoop() async throws {
        let db = try directory.open([Person.self])
        let results = db.objects(Person.self)
        let started = AsyncStream<Void>.makeStream()
        let task = Task { @MainActor in
            var seen = 0
            started.continuation.yield()
            for await _ in results.changes { seen += 1 }
            return seen
        }
        for await _ in started.stream { break }
        db.refresh()
        task.cancel()
        let seen = await task.value
        #expect(seen <= 1)  // the initial state, if it came before the cancellation
        // Nothing keeps observing: a later commit reaches no observer.
        try db.write { try db.add(person(1, "Ann", age: 30)) }
        #expect(db.observationCenter?.isEmpty ?? true)
    }

    // Leaving a `for await` loop early ends the observation: the iterator owns it.
    @Test func breakingOutOfTheLoopEndsTheObservation() async throws {
        let db = try directory.open([Person.self])
        do {
            var iterator = db.objects(Person.self).changes.makeAsyncIterator()
            db.refresh()
            #expect(Self.shape(await iterator.next()) == "initial 0")
        }  // the iterator is gone: as after `break`
        try db.write { try db.add(person(1, "Ann", age: 30)) }
        #expect(db.observationCenter?.isEmpty ?? true)
    }

    /// Opens a database on its own executor and records what its observer is told.
    actor Watcher {
        var db: Database?
        var token: NotificationToken?
        var calls: [String] = []

        func start(_ configuration: Configuration) throws {
            let db = try Database(configuration: configuration)
            self.db = db
            token = db.objects(Person.self).observe { change in
                self.calls.append(ChangeSequenceTests.shape(change))
            }
        }

        /// Iterates the changes of all persons, telling `progress` how many it has seen.
        func iterate(_ configuration: Configuration, count: Int, progress: AsyncStream<Int>.Continuation) async throws -> [String] {
            let db = try Database(configuration: configuration)
            var shapes: [String] = []
            for await change in db.objects(Person.self).changes {
                shapes.append(ChangeSequenceTests.shape(change))
                progress.yield(shapes.count)
                if shapes.count == count { break }
            }
            return shapes
        }
    }

    /// Waits until `condition` holds, up to five seconds.
    func eventually(isolation: isolated (any Actor)? = #isolation, _ condition: () async -> Bool) async throws -> Bool {
        for _ in 0..<500 {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    // A database opened by an actor is told of other instances' commits on that actor, without
    // a refresh().
    @Test func anActorHearsOfOtherInstancesCommits() async throws {
        let configuration = directory.configuration([Person.self])
        let watcher = Watcher()
        try await watcher.start(configuration)
        #expect(try await eventually { await watcher.calls == ["initial 0"] })
        let writer = try Database(configuration: configuration)
        try writer.write { try writer.add(person(1, "Ann", age: 30)) }
        #expect(try await eventually { await watcher.calls == ["initial 0", "update d[] i[0] m[]"] })
        withExtendedLifetime(writer) {}
    }

    // `for await` inside an actor, with the commits made elsewhere.
    @Test func anActorIteratesChanges() async throws {
        let configuration = directory.configuration([Person.self])
        _ = try Database(configuration: configuration)  // creates the file
        let watcher = Watcher()
        let (progress, reported) = AsyncStream<Int>.makeStream()
        let iteration = Task { try await watcher.iterate(configuration, count: 3, progress: reported) }
        let writer = try Database(configuration: configuration)
        // Each commit waits for the state before it, so the three states are distinct.
        var seen = progress.makeAsyncIterator()
        #expect(await seen.next() == 1)
        try writer.write { try writer.add(person(1, "Ann", age: 30)) }
        #expect(await seen.next() == 2)
        try writer.write { writer.objects(Person.self).first?.age = 31 }
        let shapes = try await iteration.value
        #expect(shapes == ["initial 0", "update d[] i[0] m[]", "update d[] i[] m[0]"])
    }

    // A database opened on the main actor is told on the main queue.
    @Test @MainActor func theMainActorHearsOfOtherInstancesCommits() async throws {
        let configuration = directory.configuration([Person.self])
        let db = try Database(configuration: configuration)
        var calls: [String] = []
        let token = db.objects(Person.self).observe { calls.append(Self.shape($0)) }
        #expect(try await eventually { calls == ["initial 0"] })
        let writer = try Database(configuration: configuration, isolation: nil)
        try writer.write { try writer.add(person(1, "Ann", age: 30)) }
        #expect(try await eventually { calls == ["initial 0", "update d[] i[0] m[]"] })
        withExtendedLifetime(token) {}
    }
}
