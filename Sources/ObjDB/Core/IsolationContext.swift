import Foundation

/// The isolation domain a live ``Database`` belongs to, when code can be sure to be in it again:
/// the main actor (or the main queue), or another actor. ``LiveInstances`` finds the instance
/// of the caller's domain by it, for `thaw()`.
///
/// Other code has no such identity: a `DispatchQueue` runs on whichever pool thread is free, a
/// nonisolated task moves between threads at each `await`, and thread and task identities are
/// reused once they end. An instance opened there is never handed to other code.
enum IsolationContext: Equatable {
    case main
    case actor(ObjectIdentifier)

    /// The domain of code isolated to `isolation` (`#isolation` at the call); `nil` for code
    /// outside any actor and off the main queue.
    init?(_ isolation: (any Actor)?) {
        if let isolation {
            self = isolation === MainActor.shared ? .main : .actor(ObjectIdentifier(isolation))
        } else if MainQueue.isCurrent {
            self = .main
        } else {
            return nil
        }
    }
}

/// Whether the caller runs on the main queue: the main actor's code, even where `#isolation`
/// does not say so — a nonisolated synchronous function (the initializer of a wrapper class,
/// say) called from main-actor code inherits nothing but runs there.
///
/// The main actor's executor is the main dispatch queue, and the queue is not always drained by
/// the main thread (a test runner may drain it on another thread), so the check asks the queue:
/// the main queue carries a marker that `DispatchQueue.getSpecific` finds only in work it runs.
enum MainQueue {
    /// The marker's key, set on the main queue once, before the first check. Boxed: Dispatch
    /// declares the key `Sendable` on some platforms only; it is immutable.
    private final class Marker: @unchecked Sendable {
        let key = DispatchSpecificKey<UInt8>()
        init() { DispatchQueue.main.setSpecific(key: key, value: 1) }
    }

    private static let marker = Marker()

    /// Whether the calling code runs on the main thread or on the main queue.
    static var isCurrent: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: marker.key) != nil
    }
}

/// The live instances of this process, by file and context, without retaining them.
///
/// A live instance is confined to the context that opened it; handing it to code of the same
/// context (a `thaw()` there) keeps it there.
///
/// The registry holds no weak references: a weak reference gives its object a side table, and
/// every retain and release of a `Database` (each result and object holds one) would take the
/// runtime's slow path. Instead an instance's `deinit` removes its entry, under the lock, before
/// its memory is freed; and ``instance(path:context:)`` retains an entry's instance with the
/// runtime's `swift_tryRetain` (``TryRetain``), which refuses an instance whose `deinit` has
/// begun (its last reference went away while the lock was held here). See Docs/Decisions/0040.
final class LiveInstances: @unchecked Sendable {
    /// The registry of the process.
    static let shared = LiveInstances()

    private struct Entry {
        /// Not retained; valid while the entry exists (see the type's comment).
        let database: Unmanaged<Database>
        let context: IsolationContext
    }

    private let lock = NSLock()
    private var byPath: [String: [Entry]] = [:]

    /// Records that `database` (live) belongs to `context`.
    func register(_ database: Database, context: IsolationContext) {
        lock.withLock {
            byPath[database.path, default: []].append(Entry(database: .passUnretained(database), context: context))
            database.isRegisteredLive = true
        }
    }

    /// Forgets `database`: an instance that serves one purpose (an observation on a queue).
    func unregister(_ database: Database) {
        guard database.isRegisteredLive else { return }
        remove(Unmanaged.passUnretained(database).toOpaque(), path: database.path)
        database.isRegisteredLive = false
    }

    /// Removes the entry of the instance at `address` on `path` (its `deinit` calls this).
    /// Compares addresses: nothing is retained here, and other listed instances may be in their
    /// `deinit`, waiting for the lock.
    func remove(_ address: UnsafeMutableRawPointer, path: String) {
        lock.withLock {
            guard var entries = byPath[path] else { return }
            entries.removeAll { $0.database.toOpaque() == address }
            byPath[path] = entries.isEmpty ? nil : entries
        }
    }

    /// A live instance on `path` that belongs to `context`, if one is open.
    func instance(path: String, context: IsolationContext) -> Database? {
        lock.withLock {
            // The newest first: an instance opened later in the same context is the one in use.
            for entry in (byPath[path] ?? []).reversed() where entry.context == context {
                // Retained unless its deinit has begun (the deinit then waits for the lock to
                // remove the entry, so the memory is still there).
                if let database = TryRetain.objectUnlessDeinitializing(entry.database) { return database }
            }
            return nil
        }
    }

    /// How many instances on `path` are listed (for tests).
    func count(path: String) -> Int { lock.withLock { byPath[path]?.count ?? 0 } }
}
