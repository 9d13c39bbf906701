/// Any object subscribed to a ``Store``, whatever the type of the state it selects: what
/// ``Store/unsubscribe(_:)`` takes.
@MainActor
public protocol AnyStoreSubscriber: AnyObject {
    /// Receives a state of the subscriber's type, passed as `Any` (the store calls this).
    func _newState(state: Any)
}

/// An object told of every new state of a ``Store`` — or of the part its subscription selects.
///
/// ```swift
/// final class CounterLabel: StoreSubscriber {
///     var text = ""
///     func newState(state: Int) { text = "\(state)" }
/// }
/// store.subscribe(label) { $0.select(\.count) }
/// ```
///
/// The store holds subscribers weakly: a subscriber that goes away is unsubscribed.
@MainActor
public protocol StoreSubscriber: AnyStoreSubscriber {
    /// The type of the state this subscriber receives: the store's state, or what its
    /// subscription selects.
    associatedtype StoreSubscriberStateType

    /// Called with the current state when subscribing, then with each new state the
    /// subscription lets through.
    func newState(state: StoreSubscriberStateType)
}

extension StoreSubscriber {
    /// Passes `state` to ``newState(state:)`` when it has the subscriber's type.
    public func _newState(state: Any) {
        if let typed = state as? StoreSubscriberStateType {
            newState(state: typed)
        }
    }
}

/// Ends a closure subscription made with ``Store/subscribe(_:)-(@MainActor(State)->Void)``.
///
/// ```swift
/// let token = store.subscribe { (state: AppState) in render(state) }
/// token.cancel()   // no more calls
/// ```
///
/// The subscription lasts until ``cancel()``, even when the token is not kept.
@MainActor
public final class StoreSubscriptionToken {
    /// Removes the subscription from its store.
    private var onCancel: (() -> Void)?

    init(onCancel: @escaping () -> Void) {
        self.onCancel = onCancel
    }

    /// Ends the subscription: its closure is not called again. Calling it again does nothing.
    public func cancel() {
        let action = onCancel
        onCancel = nil
        action?()
    }
}
