import Foundation

/// Announces new versions of one file to the observing `Database` instances of this process:
/// at once when an instance here commits, and when another process commits, through a
/// file-system notification on the database file (``FileWatcher``). Nothing polls while the file
/// can be watched: an idle notifier's thread sleeps in the kernel.
///
/// One notifier per file, shared by every observing instance on it, alive while one of them is
/// subscribed.
final class ChangeNotifier: @unchecked Sendable {
    /// A subscription; ``cancel()`` ends it (and the last one stops the watcher).
    final class Subscription: @unchecked Sendable {
        private let notifier: ChangeNotifier
        private let id: Int
        private let lock = NSLock()
        private var cancelled = false

        fileprivate init(notifier: ChangeNotifier, id: Int) {
            self.notifier = notifier
            self.id = id
        }

        /// Ends the subscription. Calling it again does nothing.
        func cancel() {
            let first = lock.withLock {
                defer { cancelled = true }
                return !cancelled
            }
            if first { notifier.unsubscribe(id) }
        }

        deinit { cancel() }
    }

    private static let registryLock = NSLock()
    nonisolated(unsafe) private static var notifiers: [String: WeakNotifier] = [:]
    /// Whether any notifier exists, so that commits with nobody observing skip the lookup.
    nonisolated(unsafe) private static var anyExists = false

    /// The notifier of the file of `lease`.
    static func shared(for lease: EnvironmentLease) -> ChangeNotifier {
        registryLock.withLock {
            let path = lease.environment.path
            if let existing = notifiers[path]?.notifier { return existing }
            let notifier = ChangeNotifier(lease: lease)
            notifiers[path] = WeakNotifier(notifier)
            anyExists = true
            return notifier
        }
    }

    /// Tells the observers of the file at `path` in this process that version `version` was
    /// committed (by an instance of this process).
    static func committed(path: String, version: UInt64) {
        let notifier: ChangeNotifier? = registryLock.withLock {
            guard anyExists else { return nil }
            return notifiers[path]?.notifier
        }
        notifier?.announce(version)
    }

    private let lease: EnvironmentLease
    private let lock = NSLock()
    private var subscribers: [Int: @Sendable () -> Void] = [:]
    private var nextID = 0
    private var announced: UInt64
    private var watcher: FileWatcher?

    private init(lease: EnvironmentLease) {
        self.lease = lease
        announced = UInt64(truncatingIfNeeded: lease.environment.lastCommittedTransactionID())
    }

    deinit {
        watcher?.stop()
        let path = lease.environment.path
        Self.registryLock.withLock {
            if Self.notifiers[path]?.notifier == nil { Self.notifiers[path] = nil }
            Self.anyExists = !Self.notifiers.isEmpty
        }
    }

    /// Why other processes' commits are seen by polling rather than as the file is written
    /// (``FileWatcher/fallbackReason``), the first time it is asked: the file's first observer
    /// reports it, later ones do not; `nil` while the file is watched or nobody subscribes.
    func takeWatchProblem() -> String? {
        lock.withLock {
            guard !watchProblemTaken, let reason = watcher?.fallbackReason else { return nil }
            watchProblemTaken = true
            return reason
        }
    }
    private var watchProblemTaken = false

    /// Calls `signal` (on the notifier's thread, or the committing one) whenever a newer version
    /// is announced.
    func subscribe(_ signal: @escaping @Sendable () -> Void) -> Subscription {
        let (id, startWatcher) = lock.withLock {
            nextID += 1
            subscribers[nextID] = signal
            return (nextID, watcher == nil)
        }
        if startWatcher {
            let environment = lease.environment
            let created = FileWatcher(path: environment.path) { [weak self] in
                guard let self else { return }
                let written = environment.lastCommittedTransactionID()
                guard UInt64(truncatingIfNeeded: written) > lock.withLock({ announced }) else { return }
                // Announce the commit once readers can see it (another process publishes it
                // for readers just after writing the meta page that woke the watcher).
                let readable = environment.waitUntilReadersSee(written, timeout: 0.5)
                // No reader could begin (every slot taken, the map grew): the next commit
                // announces again.
                guard readable > 0 else { return }
                announce(UInt64(truncatingIfNeeded: readable))
            }
            lock.withLock {
                if watcher == nil { watcher = created } else { created?.stop() }
            }
        }
        return Subscription(notifier: self, id: id)
    }

    private func unsubscribe(_ id: Int) {
        let stopping: FileWatcher? = lock.withLock {
            subscribers[id] = nil
            guard subscribers.isEmpty else { return nil }
            defer { watcher = nil }
            return watcher
        }
        stopping?.stop()
    }

    /// Signals every subscriber if `version` is newer than the last one announced.
    func announce(_ version: UInt64) {
        let signals: [@Sendable () -> Void] = lock.withLock {
            guard version > announced else { return [] }
            announced = version
            return Array(subscribers.values)
        }
        for signal in signals { signal() }
    }
}

/// A weak reference to a notifier, for the registry.
private struct WeakNotifier {
    weak var notifier: ChangeNotifier?
    init(_ notifier: ChangeNotifier) { self.notifier = notifier }
}
