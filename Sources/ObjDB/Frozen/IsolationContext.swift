import Foundation

/// Where a live ``Database`` belongs: the main actor (or main thread), another actor, the task
/// of nonisolated code that runs in one, or the thread of code outside any task (a thread or
/// `DispatchQueue` of the program's own). ``LiveInstances`` finds the instance of the caller's
/// context by it, for `thaw()`.
enum IsolationContext {
    case main
    case actor(ObjectIdentifier)
    /// Nonisolated code of a task, which may move between threads at each `await`.
    case task(UnsafeCurrentTask)
    case thread(pthread_t)

    /// The context of code isolated to `isolation` (`#isolation` at the call).
    init(_ isolation: (any Actor)?) {
        if let isolation {
            self = isolation === MainActor.shared ? .main : .actor(ObjectIdentifier(isolation))
        } else if Thread.isMainThread {
            self = .main
        } else if let task = withUnsafeCurrentTask(body: { $0 }) {
            // Compared by identity only, never used to reach the task.
            self = .task(task)
        } else {
            self = .thread(pthread_self())
        }
    }

    /// Whether the two are the same context.
    func matches(_ other: IsolationContext) -> Bool {
        switch (self, other) {
        case (.main, .main): true
        case (.actor(let a), .actor(let b)): a == b
        case (.task(let a), .task(let b)): a == b
        case (.thread(let a), .thread(let b)): pthread_equal(a, b) != 0
        default: false
        }
    }
}

/// The live instances of this process, by file and context, held weakly.
///
/// A live instance is confined to the context that opened it; handing it to code of the same
/// context (a `thaw()` there) keeps it there.
final class LiveInstances: @unchecked Sendable {
    /// The registry of the process.
    static let shared = LiveInstances()

    private struct Entry {
        weak var database: Database?
        let context: IsolationContext
    }

    private let lock = NSLock()
    private var byPath: [String: [Entry]] = [:]

    /// Records that `database` (live) belongs to `context`.
    func register(_ database: Database, context: IsolationContext) {
        lock.withLock {
            var entries = byPath[database.path, default: []].filter { $0.database != nil }
            entries.append(Entry(database: database, context: context))
            byPath[database.path] = entries
        }
    }

    /// A live instance on `path` that belongs to `context`, if one is open.
    func instance(path: String, context: IsolationContext) -> Database? {
        lock.withLock {
            let entries = byPath[path, default: []].filter { $0.database != nil }
            byPath[path] = entries.isEmpty ? nil : entries
            // The newest first: an instance opened later in the same context is the one in use.
            return entries.last { $0.context.matches(context) }?.database
        }
    }
}
