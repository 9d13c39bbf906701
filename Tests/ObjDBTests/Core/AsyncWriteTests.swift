import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// `asyncWrite`: a write from an actor (or the main actor) that waits for the process's other
/// writers without blocking its executor, and the gate all writers of a process pass.
///
/// The time limit catches hangs only: in a parallel run on 2 cores a test can wait minutes for
/// the main actor and the thread pool (a limit of one minute failed a CI run that way).
@Suite(.serialized, .timeLimit(.minutes(5)))
struct AsyncWriteTests {
    let directory = TemporaryDirectory()

    /// Holds a write transaction open on a thread of its own until told to commit.
    final class HeldWrite: @unchecked Sendable {
        private let begun = DispatchSemaphore(value: 0)
        private let release = DispatchSemaphore(value: 0)
        private let done = DispatchSemaphore(value: 0)
        let failure = LockedFailure()

        /// Begins the transaction on a new thread; returns once it holds the writer lock.
        init(_ configuration: Configuration, id: Int) {
            Thread { [begun, release, done, failure] in
                do {
                    let db = try Database(configuration: configuration, isolation: nil)
                    db.beginWrite()
                    try db.add(person(id, "held"))
                    begun.signal()
                    release.wait()
                    try db.commitWrite()
                } catch {
                    failure.set(error)
                    begun.signal()
                }
                done.signal()
            }.start()
            begun.wait()
        }

        /// Commits, and waits until the thread is done.
        func commit() throws {
            release.signal()
            done.wait()
            if let error = failure.error { throw error }
        }
    }

    /// An actor that writes with `asyncWrite` and answers pings.
    actor Writer {
        let db: Database
        /// The file's writer gate, to watch from outside.
        nonisolated let gate: WriterGate

        init(_ configuration: Configuration) throws {
            db = try Database(configuration: configuration, isolation: nil)
            gate = db.environment.writerGate
        }

        func add(_ id: Int) async throws {
            try await db.asyncWrite { try db.add(person(id, "async \(id)")) }
        }

        /// A write with `write { }` on the same executor.
        func addBlocking(_ id: Int) throws {
            try db.write { try db.add(person(id, "blocking \(id)")) }
        }

        func ping() -> Bool { true }

        func names() -> [String] {
            db.refresh()
            return db.objects(Person.self).sorted(by: \.id).map(\.name)
        }
    }

    /// Waits until `gate` has `threads` blocked threads and `tasks` suspended tasks.
    func waitUntil(_ gate: WriterGate, threads: Int = 0, tasks: Int) async throws {
        for _ in 0..<2_000 where gate.waiting != (threads, tasks) {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(gate.waiting == (threads, tasks))
    }

    @Test func itWritesReturnsAndRollsBackLikeWrite() async throws {
        let db = try directory.open([Person.self])
        let count = try await db.asyncWrite {
            try db.add(person(1, "Ann"))
            return db.objects(Person.self).count
        }
        #expect(count == 1)
        await #expect(throws: ObjDBError.self) {
            try await db.asyncWrite { try db.add(person(1, "Ann again")) }  // duplicate key
        }
        #expect(db.objects(Person.self).map(\.name) == ["Ann"])
        #expect(!db.isInWriteTransaction)
        #expect(!db.environment.writerGate.isHeld)
    }

    // While a thread of this process holds the writer lock, the actor waiting in asyncWrite
    // keeps answering; its write lands once the lock is free.
    @Test func theWaitingActorKeepsRunning() async throws {
        let configuration = directory.configuration([Person.self])
        let writer = try Writer(configuration)
        let held = HeldWrite(configuration, id: 1)
        let write = Task { try await writer.add(2) }
        try await waitUntil(writer.gate, tasks: 1)  // the write waits for its turn
        // Were the actor blocked, the ping would wait for the commit below: it never comes.
        let answered = try await finish(Task { await writer.ping() }, within: .seconds(30), "a ping while the write waits")
        #expect(answered)
        try held.commit()
        try await finish(write, "the waiting asyncWrite")
        #expect(await writer.names() == ["held", "async 2"])
    }

    // The main actor too.
    @Test @MainActor func theMainActorKeepsRunning() async throws {
        let configuration = directory.configuration([Person.self])
        let db = try Database(configuration: configuration)
        let held = HeldWrite(configuration, id: 1)
        var ran = false
        let write = Task { @MainActor in try await db.asyncWrite { try db.add(person(2, "main")) } }
        try await waitUntil(db.environment.writerGate, tasks: 1)
        await Task { @MainActor in ran = true }.value  // the main actor is free
        #expect(ran)
        try held.commit()
        try await finish(write, "the main actor's asyncWrite")
        db.refresh()
        #expect(db.objects(Person.self).sorted(by: \.id).map(\.name) == ["held", "main"])
    }

    // An asyncWrite waits; then a write { } on the same actor blocks the actor while the lock is
    // held elsewhere. Handing the lock to the waiting task (which needs the blocked actor) would
    // deadlock: the blocked thread goes first, then the task.
    @Test func aBlockingWriteOnTheSameActorDoesNotDeadlock() async throws {
        let configuration = directory.configuration([Person.self])
        let writer = try Writer(configuration)
        let held = HeldWrite(configuration, id: 1)
        let waiting = Task { try await writer.add(2) }
        let gate = writer.gate
        try await waitUntil(gate, tasks: 1)
        let blocking = Task { try await writer.addBlocking(3) }
        try await waitUntil(gate, threads: 1, tasks: 1)  // the actor is now blocked in write { }
        try held.commit()
        try await finish(blocking, "the blocking write")
        try await finish(waiting, "the waiting asyncWrite")
        #expect(await writer.names() == ["held", "async 2", "blocking 3"])
    }

    // write { } and asyncWrite alternating on one actor, while threads keep the gate busy: the
    // task takes the gate on the actor, so the actor's own write { } never waits behind it.
    @Test func writeAndAsyncWriteAlternateOnOneActorUnderContention() async throws {
        let configuration = directory.configuration([Person.self])
        let writer = try Writer(configuration)
        let busy = Task.detached {
            try onAnotherThread(configuration) { db in
                for i in 0..<300 { try db.write { try db.add(person(50_000 + i, "busy")) } }
            }
        }
        let alternating = Task {
            for i in 0..<150 {
                try await writer.add(2 * i)
                try await writer.addBlocking(2 * i + 1)
            }
        }
        try await finish(alternating, within: .seconds(50), "the alternating writes")
        try await finish(busy, "the busy thread")
        #expect(await writer.names().count == 600)
    }

    // Many writers at once, tasks and threads: every write lands once, and the gate ends open.
    @Test func tasksAndThreadsAllWrite() async throws {
        let configuration = directory.configuration([Person.self])
        let writers = try (0..<4).map { _ in try Writer(configuration) }
        let threads = (0..<2).map { thread in
            Task.detached {
                try onAnotherThread(configuration) { db in
                    for i in 0..<50 { try db.write { try db.add(person(10_000 + thread * 100 + i, "thread")) } }
                }
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, writer) in writers.enumerated() {
                group.addTask { for i in 0..<50 { try await writer.add(index * 100 + i) } }
            }
            try await group.waitForAll()
        }
        for thread in threads { try await finish(thread, "a writing thread") }
        let db = try directory.open([Person.self])
        #expect(db.objects(Person.self).count == 300)
        #expect(!db.environment.writerGate.isHeld)
    }

    // A read-only database refuses at once, as write does.
    @Test func aReadOnlyDatabaseRefuses() async throws {
        let configuration = directory.configuration([Person.self])
        _ = try Database(configuration: configuration)  // creates the file
        var readOnly = configuration
        readOnly.readOnly = true
        let db = try Database(configuration: readOnly)
        await #expect {
            try await db.asyncWrite { try db.add(person(1, "Ann")) }
        } throws: { ($0 as? ObjDBError)?.code == .readOnly }
    }

    // The gate itself: a blocked thread is handed the gate before a waiting task, and a task
    // woken when the gate opens takes it.
    @Test func theGateServesThreadsThenTasks() async throws {
        let gate = WriterGate()
        gate.enter()
        let order = LockedOrder()
        let task = Task {
            await gate.enterSuspending()
            order.append("task")
            gate.leave()
        }
        try await waitUntil(gate, tasks: 1)
        let thread = Task.detached {
            gate.enter()
            order.append("thread")
            gate.leave()
        }
        try await waitUntil(gate, threads: 1, tasks: 1)
        #expect(order.names.isEmpty)
        gate.leave()
        try await finish(Task { await task.value; await thread.value }, "the gate's waiters")
        #expect(order.names == ["thread", "task"])
        #expect(!gate.isHeld)
    }
}

/// Names appended from several threads.
final class LockedOrder: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var names: [String] { lock.withLock { stored } }
    func append(_ name: String) { lock.withLock { stored.append(name) } }
}
