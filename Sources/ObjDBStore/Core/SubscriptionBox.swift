/// One subscription of a store: the subscription the store feeds, and who receives what it
/// lets through — an object held weakly, or a closure held until its token is cancelled.
@MainActor
final class SubscriptionBox<State> {
    /// The subscription the store gives each `(old, new)` pair.
    let original: Subscription<State>
    /// The subscribed object, for object subscriptions.
    private(set) weak var subscriber: AnyStoreSubscriber?
    /// Whether this is an object subscription (which ends when its object goes away).
    private let hasSubscriber: Bool
    /// Set when unsubscribed or replaced.
    private var isCancelled = false

    init(original: Subscription<State>, subscriber: AnyStoreSubscriber?) {
        self.original = original
        self.subscriber = subscriber
        self.hasSubscriber = subscriber != nil
    }

    /// Whether the subscription still delivers.
    var isAlive: Bool { !isCancelled && (!hasSubscriber || subscriber != nil) }

    /// Ends the subscription.
    func cancel() {
        isCancelled = true
        original.observe { _, _ in }
    }
}
