import Foundation

/// What a ``SyncClient`` shows outside its actor: its state and subscriptions, readable without
/// `await`, and the streams that publish them. Guarded by a lock; touched only briefly.
final class SyncStatusBoard: @unchecked Sendable {
    private let lock = NSLock()
    private var state: SyncState = .stopped
    private var subscriptions = SyncSubscriptionSet([])
    private var stateListeners: [UUID: AsyncStream<SyncState>.Continuation] = [:]
    private var eventListeners: [UUID: AsyncStream<SyncEvent>.Continuation] = [:]

    /// The most events a slow reader of ``SyncClient/events`` has waiting; older ones are dropped.
    static let eventBuffer = 256

    var currentState: SyncState { lock.withLock { state } }
    var currentSubscriptions: SyncSubscriptionSet { lock.withLock { subscriptions } }

    func setSubscriptions(_ set: SyncSubscriptionSet) { lock.withLock { subscriptions = set } }

    /// Publishes a new state to every ``states`` stream (unchanged states are not repeated).
    func setState(_ new: SyncState) {
        let listeners = lock.withLock { () -> [AsyncStream<SyncState>.Continuation] in
            guard state != new else { return [] }
            state = new
            return Array(stateListeners.values)
        }
        for listener in listeners { listener.yield(new) }
    }

    /// Publishes an event.
    func report(_ event: SyncEvent) {
        for listener in lock.withLock({ Array(eventListeners.values) }) { listener.yield(event) }
    }

    /// A stream of states, starting with the current one, keeping only the newest for a slow reader.
    func states() -> AsyncStream<SyncState> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<SyncState>.makeStream(bufferingPolicy: .bufferingNewest(1))
        lock.withLock {
            stateListeners[id] = continuation
            continuation.yield(state)
        }
        continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.stateListeners.removeValue(forKey: id) } }
        return stream
    }

    /// A stream of events from now on, bounded (``eventBuffer``).
    func events() -> AsyncStream<SyncEvent> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<SyncEvent>.makeStream(bufferingPolicy: .bufferingNewest(Self.eventBuffer))
        lock.withLock { eventListeners[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.eventListeners.removeValue(forKey: id) } }
        return stream
    }

    /// Ends every stream.
    func finish() {
        let (states, events) = lock.withLock { (Array(stateListeners.values), Array(eventListeners.values)) }
        for listener in states { listener.finish() }
        for listener in events { listener.finish() }
    }
}
