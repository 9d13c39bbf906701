import Foundation
import ObjDB

/// Runs `body` with a database instance of its own on a new thread, and waits until it is done:
/// a commit by "another thread" that has certainly landed when this returns.
func onAnotherThread(_ configuration: Configuration, _ body: @escaping @Sendable (Database) throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let failure = LockedFailure()
    let thread = Thread {
        do {
            try body(try Database(configuration: configuration, isolation: nil))
        } catch {
            failure.set(error)
        }
        done.signal()
    }
    thread.start()
    done.wait()
    if let error = failure.error { throw error }
}

/// The first error of work done on another thread.
final class LockedFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (any Error)?

    var error: (any Error)? { lock.withLock { stored } }

    func set(_ error: any Error) { lock.withLock { stored = stored ?? error } }
}

/// The isolation domains a database can be opened and used in, for tests that check each.
enum Isolation: String, CaseIterable, Sendable {
    case mainActor, actor, task, detachedTask, dispatchQueue, thread
}

/// An actor that runs work given to it on its own executor.
actor IsolatedRunner {
    /// Runs `body` isolated to this actor.
    func run<T: Sendable>(_ body: @Sendable (isolated (any Actor)?) throws -> T) throws -> T {
        try body(self)
    }

    /// Runs `body` isolated to this actor.
    func run<T: Sendable>(_ body: @Sendable (isolated (any Actor)?) async throws -> T) async throws -> T {
        try await body(self)
    }
}

/// An error for work that did not finish in time.
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "\(what) did not finish in time" }
}

/// Resumes a continuation once, whichever of several racers comes first.
final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?

    init(_ continuation: CheckedContinuation<T, any Error>) { self.continuation = continuation }

    func resume(with result: Result<T, any Error>) {
        let taken = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
        taken?.resume(with: result)
    }
}

/// The value of `task`, or ``TimedOut`` if it does not finish within `limit` (so a test of a
/// sequence that hangs fails instead of hanging the suite).
func finish<T: Sendable>(_ task: Task<T, any Error>, within limit: Duration = .seconds(20), _ what: String) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let once = ResumeOnce(continuation)
        Task { once.resume(with: await task.result) }
        Task {
            try? await Task.sleep(for: limit)
            once.resume(with: .failure(TimedOut(what: what)))
        }
    }
}

/// Runs `body` synchronously in `isolation` and returns its value: on the main actor, on an
/// actor, in a plain or a detached task, in a block on a serial `DispatchQueue`, or on a new
/// `Thread`. `body` gets the isolation to open its database with (`nil` outside actors).
func inIsolation<T: Sendable>(
    _ isolation: Isolation, _ body: @escaping @Sendable (isolated (any Actor)?) throws -> T
) async throws -> T {
    switch isolation {
    case .mainActor:
        return try await MainActor.run { try body(MainActor.shared) }
    case .actor:
        return try await IsolatedRunner().run(body)
    case .task:
        return try await finish(Task { try body(nil) }, "the task")
    case .detachedTask:
        return try await finish(Task.detached { try body(nil) }, "the detached task")
    case .dispatchQueue:
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "objdb.tests.isolation").async {
                continuation.resume(with: Result { try body(nil) })
            }
        }
    case .thread:
        return try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body(nil) }) }.start()
        }
    }
}
