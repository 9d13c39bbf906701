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
/// `.error` and ends it, as an object's `.deleted` does. It ends when the task is cancelled.
///
/// The elements hold live objects of the observed database, so iterate where the database
/// lives (its actor, the main actor, its queue): `next` runs in the caller's isolation. The
/// iterator's changes are delivered at the database's delivery points, as `observe` delivers
/// them.
public struct ChangeSequence<Change>: AsyncSequence {
    /// A change: `CollectionChange` of the collection, or `ObjectChange` of the object.
    public typealias Element = Change
    /// The sequence never throws: a failure is a change (`.error`) that ends it.
    public typealias Failure = Never

    /// Registers an observer calling the given block; returns its token.
    let register: (@escaping (Change) -> Void) -> NotificationToken
    /// Whether a change is the last one (`.error`, `.deleted`).
    let isLast: (Change) -> Bool

    /// Registers the observation; the iterator keeps it until it is released or its task is
    /// cancelled.
    public func makeAsyncIterator() -> Iterator {
        let buffer = ChangeBuffer<Change>(isLast: isLast)
        // Weak: the observer must not keep the buffer (and through it the token) alive, or the
        // observation would outlive the iterator.
        let token = register { [weak buffer] in buffer?.append($0) }
        buffer.watch(token)
        return Iterator(buffer: buffer, token: token)
    }

    /// Gives the changes in the order they were delivered.
    public struct Iterator: AsyncIteratorProtocol {
        let buffer: ChangeBuffer<Change>
        /// Held so that the observation lasts as long as the iterator, and ends with it.
        let token: NotificationToken

        /// The next change, in the caller's isolation; `nil` once the sequence ended or the task
        /// was cancelled.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Change? {
            await buffer.next(isolation: actor)
        }

        /// The next change; `nil` once the sequence ended or the task was cancelled.
        public mutating func next() async -> Change? {
            await buffer.next(isolation: nil)
        }
    }
}

/// The changes delivered and not yet asked for, and the task waiting for one. Appended to in
/// the database's isolation domain, read by the iterating task, cancelled from anywhere: hence
/// the lock. The changes themselves only pass from the delivery to the iteration, which run
/// in the same isolation domain (see ``ChangeSequence``), hence `@unchecked Sendable`.
final class ChangeBuffer<Change>: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [Change] = []
    private var waiting: CheckedContinuation<Unchecked<Change>?, Never>?
    private var ended = false
    /// The iterator's token, to end the observation on cancellation or after the last change.
    private weak var token: NotificationToken?
    private let isLast: (Change) -> Bool

    init(isLast: @escaping (Change) -> Bool) { self.isLast = isLast }

    func watch(_ token: NotificationToken) { lock.withLock { self.token = token } }

    /// A delivery: hands the change to the waiting task, or keeps it.
    func append(_ change: Change) {
        let last = isLast(change)
        let resume: CheckedContinuation<Unchecked<Change>?, Never>? = lock.withLock {
            guard !ended else { return nil }
            if last { ended = true }
            if let waiting {
                self.waiting = nil
                return waiting
            }
            pending.append(change)
            return nil
        }
        resume?.resume(returning: Unchecked(change))
        if last { endObservation() }
    }

    /// The next change, waiting for one if none is pending.
    func next(isolation actor: isolated (any Actor)?) async -> Change? {
        if let change = takePending() { return change.value }
        let change = await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: actor) { (continuation: CheckedContinuation<Unchecked<Change>?, Never>) in
                let immediate: Unchecked<Change>?? = lock.withLock {
                    if !pending.isEmpty { return .some(Unchecked(pending.removeFirst())) }
                    if ended || Task.isCancelled { return .some(nil) }
                    waiting = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            cancel()
        }
        return change?.value
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
        resume?.resume(returning: nil)
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
        ChangeSequence(register: { block in observe(keyPaths: keyPaths, block) }, isLast: { change in
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
        ChangeSequence(register: { [self] block in observe(keyPaths: keyPaths, block) }, isLast: { change in
            switch change {
            case .change: return false
            case .deleted, .error: return true
            }
        })
    }
}
