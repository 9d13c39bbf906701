import Foundation

/// The changes of an observed collection or object as an `AsyncSequence`: `results.changes`,
/// `object.changes`.
///
/// ```swift
/// for await change in people.changes {
///     if case .update(let people, let deletions, let insertions, _) = change { … }
/// }
/// ```
///
/// The observation is registered when the iterator is made (`for await` makes it at once), so a
/// commit between `makeAsyncIterator()` and the first `next()` is not lost: changes wait in the
/// iterator until they are asked for. The sequence never throws: a failure arrives as
/// `.error` and ends it, as an object's `.deleted` does. It ends when the task is cancelled
/// (at once for a task cancelled before it iterates).
///
/// The elements hold live objects of the observed database, so iterate where the database
/// lives (its actor, the main actor, the task that opened it): `next` runs in the caller's
/// isolation. The iterator's changes are delivered at the database's delivery points, as
/// `observe` delivers them; for a database opened outside any actor, the iterator's waits are
/// those delivery points (Docs/Concurrency.md).
public struct ChangeSequence<Change>: AsyncSequence {
    /// A change: `CollectionChange` of the collection, or `ObjectChange` of the object.
    public typealias Element = Change
    /// The sequence never throws: a failure is a change (`.error`) that ends it.
    public typealias Failure = Never

    /// Registers an observer calling the given block; returns its token.
    let register: (@escaping (Change) -> Void) -> NotificationToken
    /// Whether a change is the last one (`.error`, `.deleted`).
    let isLast: (Change) -> Bool
    /// The observed database, when it has no queue or actor of its own to deliver on: the
    /// iterator then makes the delivery points itself (see ``ChangePump``).
    let pump: ChangePump?

    init(database: Database?, register: @escaping (@escaping (Change) -> Void) -> NotificationToken, isLast: @escaping (Change) -> Bool) {
        self.register = register
        self.isLast = isLast
        pump = database.flatMap(ChangePump.init)
    }

    /// Registers the observation; the iterator keeps it until it is released or its task is
    /// cancelled.
    public func makeAsyncIterator() -> Iterator {
        let buffer = ChangeBuffer<Change>(isLast: isLast, pumped: pump != nil)
        // Before the observer: a commit from now on wakes the iterator.
        let wakes = pump?.subscribe { [weak buffer] in buffer?.wake() }
        // Weak: the observer must not keep the buffer (and through it the token) alive, or the
        // observation would outlive the iterator.
        let token = register { [weak buffer] in buffer?.append($0) }
        buffer.watch(token)
        return Iterator(buffer: buffer, token: token, pump: pump, wakes: wakes)
    }

    /// Gives the changes in the order they were delivered.
    public struct Iterator: AsyncIteratorProtocol {
        let buffer: ChangeBuffer<Change>
        /// Held so that the observation lasts as long as the iterator, and ends with it.
        let token: NotificationToken
        /// Makes the delivery points of a database that has no queue or actor.
        let pump: ChangePump?
        /// The pump's subscription to commits of the file, ended with the iterator.
        let wakes: ChangeNotifier.Subscription?

        /// The next change, in the caller's isolation; `nil` once the sequence ended or the task
        /// was cancelled.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Change? {
            await buffer.next(isolation: actor, pump: pump)
        }

        /// The next change; `nil` once the sequence ended or the task was cancelled.
        public mutating func next() async -> Change? {
            await buffer.next(isolation: nil, pump: pump)
        }
    }
}

/// The delivery points of a database opened outside any actor and off the main queue (a plain
/// or detached task, a nonisolated async function): such a database has nowhere to deliver
/// between its owner's calls, so a `changes` iterator, which waits in the owner's task, delivers
/// while it waits — the `.initial` change at once, and other instances' and processes' commits
/// when the ``ChangeNotifier`` announces them, as a queue would. Its `for await` loop is the
/// owner's run loop: the database moves to a newer version only while the loop waits.
final class ChangePump {
    private let database: Database

    /// `nil` for a database that delivers on a queue or an actor of its own, and for a frozen one.
    init?(_ database: Database) {
        guard database.frozenVersion == nil, database.notifications.queue == nil, database.notifications.actor == nil else { return nil }
        self.database = database
    }

    /// Calls `wake` (on any thread) whenever a newer version of the file is announced.
    func subscribe(_ wake: @escaping @Sendable () -> Void) -> ChangeNotifier.Subscription {
        ChangeNotifier.shared(for: database.lease).subscribe(wake)
    }

    /// A delivery point: makes the first calls of observers that have not had theirs, and when
    /// `woken` by a commit (or at the iterator's first wait, which a queue would begin with a
    /// delivery) moves the database to the newest version and tells them what changed (with
    /// ``Database/autorefresh``; without it, database observers hear a refresh is needed).
    func deliver(woken: Bool) {
        guard let center = database.observationCenter, !center.isDelivering else { return }
        if woken { center.deliverFromNotifier() } else { center.deliverPendingInitials() }
    }
}

/// The changes delivered and not yet asked for, and the task waiting for one. Appended to in
/// the database's isolation domain, read by the iterating task, cancelled and woken from
/// anywhere: hence the lock. The changes themselves only pass from the delivery to the
/// iteration, which run in the same isolation domain (see ``ChangeSequence``), hence
/// `@unchecked Sendable`.
final class ChangeBuffer<Change>: @unchecked Sendable {
    /// What ends a wait.
    private enum Outcome {
        case change(Unchecked<Change>)
        /// A commit was announced: the pump delivers.
        case woken
        case ended
    }

    private let lock = NSLock()
    private var pending: [Change] = []
    private var waiting: CheckedContinuation<Outcome, Never>?
    private var ended = false
    /// A commit was announced since the pump last delivered (set at first, with a pump: the
    /// first delivery catches up with commits made before the iterator subscribed).
    private var wakePending: Bool
    /// The iterator's token, to end the observation on cancellation or after the last change.
    private weak var token: NotificationToken?
    private let isLast: (Change) -> Bool

    /// `pumped`: the iterator delivers for its database (see ``ChangePump``).
    init(isLast: @escaping (Change) -> Bool, pumped: Bool) {
        self.isLast = isLast
        wakePending = pumped
    }

    func watch(_ token: NotificationToken) { lock.withLock { self.token = token } }

    /// A delivery: hands the change to the waiting task, or keeps it.
    func append(_ change: Change) {
        let last = isLast(change)
        let resume: CheckedContinuation<Outcome, Never>? = lock.withLock {
            guard !ended else { return nil }
            if last { ended = true }
            if let waiting {
                self.waiting = nil
                return waiting
            }
            pending.append(change)
            return nil
        }
        resume?.resume(returning: .change(Unchecked(change)))
        if last { endObservation() }
    }

    /// A commit was announced: wakes the waiting task so that its pump delivers.
    func wake() {
        let resume: CheckedContinuation<Outcome, Never>? = lock.withLock {
            guard !ended else { return nil }
            wakePending = true
            defer { waiting = nil }
            return waiting
        }
        resume?.resume(returning: .woken)
    }

    /// The next change, waiting for one if none is pending; with a pump, delivering while it
    /// waits.
    func next(isolation actor: isolated (any Actor)?, pump: ChangePump?) async -> Change? {
        if Task.isCancelled {
            cancel()
            return nil
        }
        while true {
            if let change = takePending() { return change.value }
            if let pump {
                pump.deliver(woken: takeWake())
                if let change = takePending() { return change.value }
            }
            switch await wait(isolation: actor) {
            case .change(let change): return change.value
            case .ended: return nil
            case .woken: continue
            }
        }
    }

    /// Whether a commit was announced since the last delivery; clears it.
    private func takeWake() -> Bool {
        lock.withLock {
            defer { wakePending = false }
            return wakePending
        }
    }

    /// Waits for a change, a wake or the end (cancellation included).
    private func wait(isolation actor: isolated (any Actor)?) async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: actor) { (continuation: CheckedContinuation<Outcome, Never>) in
                let immediate: Outcome? = lock.withLock {
                    if !pending.isEmpty { return .change(Unchecked(pending.removeFirst())) }
                    if ended || Task.isCancelled { return .ended }
                    if wakePending { return .woken }
                    waiting = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            cancel()
        }
    }

    private func takePending() -> Unchecked<Change>? {
        lock.withLock { pending.isEmpty ? nil : Unchecked(pending.removeFirst()) }
    }

    /// The task was cancelled: ends the sequence and the observation.
    func cancel() {
        let resume = lock.withLock {
            ended = true
            pending.removeAll()
            defer { waiting = nil }
            return waiting
        }
        resume?.resume(returning: .ended)
        endObservation()
    }

    private func endObservation() {
        let token = lock.withLock {
            defer { self.token = nil }
            return self.token
        }
        token?.invalidate()
    }
}

/// A value passed between two points of one isolation domain through a continuation.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension Results {
    /// The changes of these results as an `AsyncSequence`: `.initial`, then one `.update` per
    /// commit that changes them (see ``observe(keyPaths:_:)`` and ``ChangeSequence``).
    ///
    /// ```swift
    /// for await change in people.where({ $0.age > 50 }).changes { render(change) }
    /// ```
    public var changes: ChangeSequence<CollectionChange<Results<Element>>> {
        changes(keyPaths: nil)
    }

    /// ``changes`` counting only changes to `keyPaths` as modifications.
    public func changes(keyPaths: [String]?) -> ChangeSequence<CollectionChange<Results<Element>>> {
        ChangeSequence(database: database, register: { block in observe(keyPaths: keyPaths, block) }, isLast: { change in
            if case .error = change { return true }
            return false
        })
    }
}

extension ObservableObjectBase {
    /// The changes of this object as an `AsyncSequence`; it ends after `.deleted` (see
    /// ``observe(keyPaths:_:)`` and ``ChangeSequence``).
    ///
    /// ```swift
    /// for await change in ann.changes {
    ///     if case .change(_, let properties) = change { print(properties) }
    /// }
    /// ```
    public var changes: ChangeSequence<ObjectChange<Self>> {
        changes(keyPaths: nil)
    }

    /// ``changes`` for the properties `keyPaths` only.
    public func changes(keyPaths: [PartialKeyPath<Self>]?) -> ChangeSequence<ObjectChange<Self>> {
        ChangeSequence(database: _objdbDatabase, register: { [self] block in observe(keyPaths: keyPaths, block) }, isLast: { change in
            switch change {
            case .change: return false
            case .deleted, .error: return true
            }
        })
    }
}
