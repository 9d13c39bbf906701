import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// `changes` in every isolation a database can be opened in — the main actor, another actor, a
/// plain and a detached task, a `DispatchQueue` and a `Thread` (the last two iterate in a task
/// they start, as they cannot `await`): the initial state, another thread's commit and the
/// task's own, each once; cancellation ends the loop and the observation in each. Realm's
/// `testAsyncSequenceObserve*` and `testObserveOnAlreadyCancelledTask` check the same promises.
///
/// The time limit catches hangs only: in a parallel run on 2 cores a test can wait minutes for
/// the main actor and the thread pool (a limit of one minute failed a CI run that way).
@Suite(.serialized, .timeLimit(.minutes(5)))
struct ChangeSequenceIsolationTests {
    let directory = TemporaryDirectory()

    typealias Body = @Sendable (Database, isolated (any Actor)?) async throws -> [String]

    /// Opens a database in `isolation` and starts `body` with it there (for a queue or a
    /// thread, in a task started there).
    static func start(_ isolation: Isolation, _ configuration: Configuration, _ body: @escaping Body) async throws -> Task<[String], any Error> {
        switch isolation {
        case .mainActor:
            return Task { @MainActor in try await body(try Database(configuration: configuration), MainActor.shared) }
        case .actor:
            let runner = IsolatedRunner()
            return Task {
                try await runner.run { actor in
                    try await body(try Database(configuration: configuration, isolation: actor), actor)
                }
            }
        case .task:
            return Task { try await body(try Database(configuration: configuration), nil) }
        case .detachedTask:
            return Task.detached { try await body(try Database(configuration: configuration), nil) }
        case .dispatchQueue:
            return try await withCheckedThrowingContinuation { continuation in
                DispatchQueue(label: "objdb.tests.changes").async {
                    do {
                        let db = try Database(configuration: configuration)
                        continuation.resume(returning: Task { try await body(db, nil) })
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        case .thread:
            return try await withCheckedThrowingContinuation { continuation in
                Thread {
                    do {
                        let db = try Database(configuration: configuration)
                        continuation.resume(returning: Task { try await body(db, nil) })
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }.start()
            }
        }
    }

    /// Iterates the changes of every person: with `writes`, after the initial state another
    /// thread inserts Ann (the loop's body reads around that commit and must see one version),
    /// then the loop changes her itself, and it stops after three changes. Says whether an
    /// observer is left once the loop ends.
    static func iterate(
        _ db: Database, _ configuration: Configuration, progress: AsyncStream<Int>.Continuation, writes: Bool,
        isolation: isolated (any Actor)?
    ) async throws -> [String] {
        let people = db.objects(Person.self)
        var seen: [String] = []
        var count = 0
        for await change in people.changes {
            count += 1
            seen.append(ChangeSequenceTests.shape(change))
            progress.yield(count)
            guard writes else { continue }
            if count == 1 {
                let before = people.count
                try onAnotherThread(configuration) { other in try other.write { try other.add(person(1, "Ann", age: 30)) } }
                seen.append("read around the commit: \(before), \(people.count)")
            } else if count == 2 {
                try db.write { people.first?.age = 31 }
            }
            if count == 3 { break }
        }
        db.refresh()  // a delivery point: forgets observers whose token is gone
        seen.append((db.observationCenter?.isEmpty ?? true) ? "no observer left" : "an observer left")
        return seen
    }

    @Test(arguments: Isolation.allCases)
    func changesDeliverInEveryIsolation(_ isolation: Isolation) async throws {
        let configuration = directory.configuration([Person.self], name: "\(isolation).objdb")
        let (_, progress) = AsyncStream<Int>.makeStream()
        let task = try await Self.start(isolation, configuration) { db, actor in
            try await Self.iterate(db, configuration, progress: progress, writes: true, isolation: actor)
        }
        let seen = try await finish(task, "the loop in \(isolation)")
        #expect(seen == [
            "initial 0", "read around the commit: 0, 0",
            "update d[] i[0] m[]",
            "update d[] i[] m[0]",
            "no observer left",
        ])
    }

    @Test(arguments: Isolation.allCases)
    func cancellationEndsTheLoopInEveryIsolation(_ isolation: Isolation) async throws {
        let configuration = directory.configuration([Person.self], name: "\(isolation).objdb")
        let (reported, progress) = AsyncStream<Int>.makeStream()
        let task = try await Self.start(isolation, configuration) { db, actor in
            try await Self.iterate(db, configuration, progress: progress, writes: false, isolation: actor)
        }
        var counts = reported.makeAsyncIterator()
        #expect(await counts.next() == 1)  // the initial state arrived: the loop now waits
        task.cancel()
        let seen = try await finish(task, "the cancelled loop in \(isolation)")
        #expect(seen == ["initial 0", "no observer left"])
    }

    // Realm's testObserveOnAlreadyCancelledTask: a task cancelled before it iterates gets nothing.
    @Test(arguments: Isolation.allCases)
    func anAlreadyCancelledTaskGetsNothing(_ isolation: Isolation) async throws {
        let configuration = directory.configuration([Person.self], name: "\(isolation).objdb")
        let (_, progress) = AsyncStream<Int>.makeStream()
        let task = try await Self.start(isolation, configuration) { db, actor in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Self.iterate(db, configuration, progress: progress, writes: false, isolation: actor)
        }
        let seen = try await finish(task, "the loop of a cancelled task in \(isolation)")
        #expect(seen == ["no observer left"])
    }

    // An object's changes in a plain task: another thread's change with its old value, then
    // the deletion, which ends the sequence.
    @Test func anObjectSequenceInAPlainTask() async throws {
        let configuration = directory.configuration([Person.self])
        let (ready, readiness) = AsyncStream<Void>.makeStream()
        let task = Task { () -> [String] in
            let db = try Database(configuration: configuration)
            let ann = person(1, "Ann", age: 30)
            try db.write { try db.add(ann) }
            var seen: [String] = []
            var changes = ann.changes.makeAsyncIterator()  // observing from here on
            readiness.yield()
            while let change = await changes.next() {
                switch change {
                case .change(_, let properties):
                    seen.append(properties.map { "\($0.name) \(String(describing: $0.oldValue)) -> \(String(describing: $0.newValue))" }.joined())
                    try onAnotherThread(configuration) { other in
                        try other.write { other.object(ofType: Person.self, forPrimaryKey: 1).map(other.delete) }
                    }
                case .deleted: seen.append("deleted")
                case .error(let error): seen.append("error \(error)")
                }
            }
            return seen
        }
        for await _ in ready { break }
        try onAnotherThread(configuration) { other in
            try other.write { other.object(ofType: Person.self, forPrimaryKey: 1)?.age = 31 }
        }
        let seen = try await finish(task, "the object's loop")
        #expect(seen == ["age Optional(30) -> Optional(31)", "deleted"])
    }
}
