import Foundation

/// The observers of one ``Database`` instance, and the version they last saw.
///
/// Confined, like its database, to the isolation domain that uses the database. Notifications
/// are delivered at *delivery points*: a commit by this instance (synchronously, after it
/// lands), ``Database/refresh()``, and — for a database with a delivery queue (the main queue
/// for one opened by main-actor code, or the queue of `observe(on:)`) — when the
/// ``ChangeNotifier`` reports a commit by another instance or process.
///
/// At each point the center moves to the newest version and tells every observer what changed
/// since the version it pins (``seen``): from this instance's own change set, from the change
/// log, or, when the log lacks a version, by comparing the two versions.
final class ObservationCenter: InstanceObservers {
    /// Weak: the database owns the center, and a delivery scheduled on the queue may outlive it.
    private(set) weak var database: Database?
    /// The observers, in registration order.
    private var observers: [any Observer] = []
    /// The version the observers last saw, pinned: old values and missing log entries are read
    /// from it.
    private(set) var seen: ReadTransaction?
    /// Observers that skip the commit in progress (`write(withoutNotifying:)`).
    var skipping: Set<ObjectIdentifier> = []
    /// Where notifications run between calls by the owner; `nil` for a database that delivers
    /// only at its own commits and ``Database/refresh()``.
    let queue: DispatchQueue?
    /// The subscription to commits by other instances and processes.
    private var subscription: ChangeNotifier.Subscription?
    /// Whether observers are being called (a delivery point reached from a callback is put off
    /// until the current round ends).
    private(set) var isDelivering = false
    private var deliverAgain = false
    /// How the notifier and the queue reach this center.
    /// The actor deliveries run on when there is no queue (a database opened by an actor).
    private weak var actor: (any Actor)?
    private lazy var reference = WeakCenter(self, queue: queue, actor: actor)

    init(database: Database, queue: DispatchQueue?, actor: (any Actor)?) {
        self.database = database
        self.queue = queue
        self.actor = actor
    }

    deinit { subscription?.cancel() }

    /// Whether any observer is registered.
    var isEmpty: Bool { observers.isEmpty }

    /// Adds an observer; its first call (`.initial` for collections) comes at the next delivery
    /// point, which a database with a queue schedules at once.
    /// Whether `control` belongs to an observer registered here.
    func observes(_ control: ObserverControl) -> Bool {
        observers.contains { $0.control === control }
    }

    func add(_ observer: any Observer) {
        guard let database else { return }
        objdbPrecondition(
            !database.isInWriteTransaction,
            "observe: an observer cannot be registered inside a write transaction (it would start from a version the write has not committed yet); register it before write { } begins")
        observers.append(observer)
        if seen == nil { seen = try? database.pinnedSnapshot() }  // try?: nil re-reads at delivery
        if subscription == nil {
            let reference = self.reference
            let notifier = ChangeNotifier.shared(for: database.lease)
            subscription = notifier.subscribe { reference.schedule() }
            if let problem = notifier.takeWatchProblem() {
                database.reportReadFailure(ObjDBError(
                    .storage,
                    "The file cannot be watched for other processes' commits (\(problem)): they reach observers by polling, up to \(FileWatcher.fallbackInterval) ms late"))
            }
        }
        reference.schedule()
    }

    /// A commit by another instance or process was announced, or an observer was added: deliver
    /// if the database refreshes by itself, else say a refresh is needed.
    func deliverFromNotifier() {
        guard let database, !database.isInWriteTransaction else { return }  // its commit delivers
        if database.autorefresh {
            database.refresh()
            deliverPendingInitials()
        } else {
            deliverPendingInitials()
            if database.environment.lastCommittedTransactionID() != database.currentVersion {
                for case let observer as DatabaseObserver in observers where !observer.control.isCancelled {
                    observer.refreshRequired()
                }
            }
        }
    }

    /// Calls the observers that have not had their first call yet.
    func deliverPendingInitials() {
        removeCancelled()
        for observer in observers where observer.needsInitial && !observer.control.isCancelled {
            observer.deliverInitial()
        }
    }

    /// This instance committed version `version`, which made `changes`.
    ///
    /// Observers named in `write(withoutNotifying:)` skip this commit only when they saw the
    /// version it was made on. Otherwise other instances or processes committed in between
    /// (the write transaction began on their versions before this instance delivered them),
    /// and skipping would swallow their changes too: those observers are told of everything,
    /// this commit included — a notification too many rather than one lost.
    func didCommit(_ changes: ChangeSet, version: UInt64) {
        var skipped = skipping
        skipping = []
        if let seen, UInt64(truncatingIfNeeded: seen.id) + 1 != version {
            skipped = []
        }
        deliver(local: (changes, version), skipping: skipped)
    }

    /// ``Database/refresh()`` moved the database to a newer version.
    func didRefresh() {
        deliver(local: nil, skipping: [])
    }

    /// ``Database/refresh()`` found the database at the newest version: observers that saw an
    /// older one (the database moved without a delivery, for example by a write that changed
    /// nothing) are told now; those waiting for their first call get it.
    func catchUpIfBehind() {
        if let seen, let current = database?.currentVersion, current != seen.id {
            deliver(local: nil, skipping: [])
        } else {
            deliverPendingInitials()
        }
    }

    /// Moves the observers from the version they saw to the database's current one.
    private func deliver(local: (changes: ChangeSet, version: UInt64)?, skipping skipped: Set<ObjectIdentifier>) {
        if isDelivering {
            deliverAgain = true
            return
        }
        isDelivering = true
        defer { isDelivering = false }
        repeat {
            deliverAgain = false
            deliverOnce(local: local, skipping: skipped)
        } while deliverAgain
    }

    private func deliverOnce(local: (changes: ChangeSet, version: UInt64)?, skipping skipped: Set<ObjectIdentifier>) {
        removeCancelled()
        guard let database, !observers.isEmpty else {
            seen = nil
            return
        }
        let newSnapshot: ReadTransaction
        do {
            newSnapshot = try database.pinnedSnapshot()
        } catch {
            for observer in observers { observer.fail(error) }
            observers.removeAll()
            seen = nil
            removeCancelled()
            return
        }
        let old = seen
        let oldVersion = old.map { UInt64(truncatingIfNeeded: $0.id) }
        let newVersion = UInt64(truncatingIfNeeded: newSnapshot.id)
        if let oldVersion, oldVersion == newVersion {
            deliverPendingInitials()
            return
        }
        var changes: ChangeSet?
        if let local, let oldVersion, oldVersion + 1 == local.version, local.version == newVersion {
            changes = local.changes
        } else if let oldVersion {
            // try?: a damaged or missing entry means comparing the versions instead.
            changes = try? ChangeLog.changes(
                after: oldVersion, through: newVersion, table: database.changesTable(), txn: newSnapshot.txn)
        }
        let delivery = Delivery(
            changes: changes, old: old?.txn, newVersion: newSnapshot.id, isLocal: local != nil && changes != nil, database: database)
        for observer in observers where !observer.control.isCancelled {
            if observer.needsInitial {
                observer.deliverInitial()
            } else if skipped.contains(ObjectIdentifier(observer.control)) {
                observer.catchUp()
            } else {
                observer.deliver(delivery)
            }
        }
        seen = newSnapshot
        removeCancelled()
        if observers.isEmpty { seen = nil }
    }

    private func removeCancelled() {
        observers.removeAll { $0.control.isCancelled }
        if observers.isEmpty {
            subscription?.cancel()
            subscription = nil
        }
    }
}

/// What one delivery tells observers.
struct Delivery {
    /// What changed since the version the observers saw; `nil` when unknown (compare versions).
    let changes: ChangeSet?
    /// The version the observers saw, while it is pinned.
    let old: Txn?
    /// The version the changes lead to. A callback that writes moves the database past it
    /// while the round goes on; the next round tells the rest.
    let newVersion: Int
    /// Whether the changes are this instance's own commit (old values are not reported).
    let isLocal: Bool
    let database: Database
}

/// An observation registered with an ``ObservationCenter``.
protocol Observer: AnyObject {
    /// Cancellation, shared with the token.
    var control: ObserverControl { get }
    /// Whether the first call has not happened yet.
    var needsInitial: Bool { get }
    /// Makes the first call.
    func deliverInitial()
    /// Tells the observer what changed.
    func deliver(_ delivery: Delivery)
    /// Takes the current version as seen without a call (a skipped commit).
    func catchUp()
    /// Ends the observation with an error.
    func fail(_ error: any Error)
}

/// The cancellation state of one observer, shared with its token (which may be invalidated on
/// any thread). Cancelling lets go of what the observer holds (``LockedBox``), so that an
/// observation whose token is gone keeps no database alive.
final class ObserverControl: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    private var onCancel: [@Sendable () -> Void] = []

    var isCancelled: Bool { lock.withLock { cancelled } }

    /// Runs `action` when the observer is cancelled (at once if it is already).
    func whenCancelled(_ action: @escaping @Sendable () -> Void) {
        let now = lock.withLock {
            if cancelled { return true }
            onCancel.append(action)
            return false
        }
        if now { action() }
    }

    func cancel() {
        let actions = lock.withLock {
            defer {
                cancelled = true
                onCancel = []
            }
            return cancelled ? [] : onCancel
        }
        for action in actions { action() }
    }

    /// A token that cancels this observer.
    func token() -> NotificationToken {
        NotificationToken(control: self)
    }
}

/// A value an observer holds until it is cancelled, from any thread. The value belongs to the
/// observer's isolation domain and is only used there; another thread only lets go of it,
/// hence `@unchecked Sendable`.
final class LockedBox<Value>: ClearableBox, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    init(_ value: Value) { stored = value }

    var value: Value? { lock.withLock { stored } }

    func clear() {
        let released = lock.withLock {
            defer { stored = nil }
            return stored
        }
        _ = released  // released outside the lock
    }
}

/// A ``LockedBox`` of any type, for code that only lets go of what boxes hold.
protocol ClearableBox: Sendable {
    /// Lets go of the value.
    func clear()
}

/// A flag set and cleared from any thread: whether a delivery is already scheduled.
final class AtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    /// Sets the flag; `false` if it was set already.
    func set() -> Bool {
        lock.withLock {
            if value { return false }
            value = true
            return true
        }
    }

    func clear() { lock.withLock { value = false } }
}

/// A weak reference to an ``ObservationCenter`` that crosses to the center's queue or actor.
/// The center, like its database, is confined there: the reference is only followed there (in
/// the work ``schedule()`` sends), which the compiler cannot check, hence `@unchecked
/// Sendable`. Deliveries asked for while one is scheduled are one delivery.
final class WeakCenter: @unchecked Sendable {
    private weak var center: ObservationCenter?
    private let queue: DispatchQueue?
    private weak var actor: (any Actor)?
    private let scheduled = AtomicFlag()

    init(_ center: ObservationCenter, queue: DispatchQueue?, actor: (any Actor)?) {
        self.center = center
        self.queue = queue
        self.actor = actor
    }

    /// Asks the center's queue or actor to deliver; from any thread. Does nothing for a center
    /// with neither (its owner's refresh() and commits deliver).
    func schedule() {
        if let queue {
            guard scheduled.set() else { return }
            queue.async { [self] in deliver() }
        } else if let actor {
            guard scheduled.set() else { return }
            Task { await Self.deliver(self, on: actor) }
        }
    }

    /// Runs a delivery on `actor`'s executor.
    private static func deliver(_ reference: WeakCenter, on actor: isolated any Actor) {
        reference.deliver()
    }

    private func deliver() {
        scheduled.clear()
        center?.deliverFromNotifier()
    }
}
