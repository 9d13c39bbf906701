import Foundation

/// The isolation domain a live ``Database`` belongs to, when code can be sure to be in it again:
/// the main actor (or the main thread), or another actor. ``LiveInstances`` finds the instance
/// of the caller's domain by it, for `thaw()`.
///
/// Other code has no such identity: a `DispatchQueue` runs on whichever pool thread is free, a
/// nonisolated task moves between threads at each `await`, and thread and task identities are
/// reused once they end. An instance opened there is never handed to other code.
enum IsolationContext: Equatable {
    case main
    case actor(ObjectIdentifier)

    /// The domain of code isolated to `isolation` (`#isolation` at the call); `nil` for code
    /// outside any actor and off the main thread.
    init?(_ isolation: (any Actor)?) {
        if let isolation {
            self = isolation === MainActor.shared ? .main : .actor(ObjectIdentifier(isolation))
        } else if Thread.isMainThread {
            self = .main
        } else {
            return nil
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

    /// Forgets `database`: an instance that serves one purpose (an observation on a queue).
    func unregister(_ database: Database) {
        lock.withLock {
            byPath[database.path] = byPath[database.path]?.filter { $0.database != nil && $0.database !== database }
        }
    }

    /// A live instance on `path` that belongs to `context`, if one is open.
    func instance(path: String, context: IsolationContext) -> Database? {
        lock.withLock {
            let entries = byPath[path, default: []].filter { $0.database != nil }
            byPath[path] = entries.isEmpty ? nil : entries
            // The newest first: an instance opened later in the same context is the one in use.
            return entries.last { $0.context == context }?.database
        }
    }
}
