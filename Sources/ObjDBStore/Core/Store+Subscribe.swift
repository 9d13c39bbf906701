extension Store {
    /// Subscribes `subscriber` to the store's state, or to what `transform` makes of the
    /// store's subscription (`select`, `skipRepeats`, `skip(when:)`, `only(when:)`).
    ///
    /// ```swift
    /// store.subscribe(view)                                     // the whole state
    /// store.subscribe(label) { $0.select(\.count).skipRepeats() }
    /// ```
    ///
    /// The subscriber receives the current state at once, then each new state the subscription
    /// lets through. It is held weakly; subscribing it again replaces its subscription.
    ///
    /// - Complexity: O(1) amortized, besides `transform`.
    /// Without a `transform`, the subscriber's state type must be the store's `State`.
    public func subscribe<S: StoreSubscriber>(
        _ subscriber: S, transform: ((Subscription<State>) -> Subscription<S.StoreSubscriberStateType>)? = nil
    ) {
        subscribe(subscriber, transform: transform, skippingRepeats: nil)
    }

    /// Subscribes `subscriber`, skipping repeated states when ``automaticallySkipsRepeats``
    /// is on (see ``subscribe(_:transform:)-(S,_)``).
    public func subscribe<S: StoreSubscriber>(
        _ subscriber: S, transform: ((Subscription<State>) -> Subscription<S.StoreSubscriberStateType>)? = nil
    ) where S.StoreSubscriberStateType: Equatable {
        subscribe(subscriber, transform: transform, skippingRepeats: automaticallySkipsRepeats ? { $0 == $1 } : nil)
    }

    /// Stops delivering states to `subscriber`.
    ///
    /// - Complexity: O(1) amortized.
    public func unsubscribe(_ subscriber: AnyStoreSubscriber) {
        end(boxesBySubscriber.removeValue(forKey: ObjectIdentifier(subscriber)))
    }

    /// The live subscriptions, in the order they were made.
    var subscriptions: [SubscriptionBox<State>] { boxes.filter(\.isAlive) }

    /// Adds `box`; now and then drops subscriptions whose subscribers went away (counted
    /// nowhere else until a dispatch notices them), so that subscribing without dispatching
    /// does not grow `boxes` for ever.
    ///
    /// - Complexity: amortized O(1).
    private func append(_ box: SubscriptionBox<State>) {
        boxes.append(box)
        appendsSinceCompaction += 1
        if appendsSinceCompaction > max(64, boxes.count / 2) { compactSubscriptions() }
    }

    /// Ends `box`; drops ended subscriptions once they are half of all.
    private func end(_ box: SubscriptionBox<State>?) {
        guard let box else { return }
        box.cancel()
        endedBoxes += 1
        if endedBoxes * 2 > boxes.count { compactSubscriptions() }
    }

    /// Calls `block` with the current state at once, then with each new state, until the
    /// returned token is cancelled.
    ///
    /// ```swift
    /// let token = store.subscribe { (state: AppState) in render(state) }
    /// ```
    ///
    /// With an `Equatable` state and ``automaticallySkipsRepeats`` on, a state equal to the
    /// previous one is skipped.
    @discardableResult
    public func subscribe(_ block: @escaping @MainActor (State) -> Void) -> StoreSubscriptionToken {
        subscribe(select: { $0 }, skippingRepeats: nil, block)
    }

    /// Calls `block` with the state at once, then with each new state that differs from the
    /// previous one (when ``automaticallySkipsRepeats`` is on), until the token is cancelled.
    @discardableResult
    public func subscribe(_ block: @escaping @MainActor (State) -> Void) -> StoreSubscriptionToken
    where State: Equatable {
        subscribe(select: { $0 }, skippingRepeats: automaticallySkipsRepeats ? { $0 == $1 } : nil, block)
    }

    /// The values at `keyPath`, the current one first, each different from the one before.
    ///
    /// ```swift
    /// for await count in store.states(\.count) { label.text = "\(count)" }
    /// ```
    ///
    /// The subscription ends when the stream ends: when its task is cancelled, or when the stream
    /// and its iterators are released (a loop over `store.states(…)` that ends, as above). The
    /// stream finishes when the store goes away.
    public func states<Value: Equatable & Sendable>(_ keyPath: KeyPath<State, Value>) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .unbounded)
        // Finishes the stream when the subscription goes, with the store or the token.
        let end = StreamEnd(continuation)
        let token = subscribe(select: { $0[keyPath: keyPath] }, skippingRepeats: { $0 == $1 }) { value in
            end.continuation.yield(value)
        }
        continuation.onTermination = { _ in
            Task { @MainActor in token.cancel() }
        }
        return stream
    }

    /// Subscribes an object, replacing its earlier subscription.
    private func subscribe<S: StoreSubscriber>(
        _ subscriber: S, transform: ((Subscription<State>) -> Subscription<S.StoreSubscriberStateType>)?,
        skippingRepeats isRepeat: ((S.StoreSubscriberStateType, S.StoreSubscriberStateType) -> Bool)?
    ) {
        let original = Subscription<State>()
        var selected: Subscription<S.StoreSubscriberStateType>
        if let transform {
            selected = transform(original)
        } else if let same = original as? Subscription<S.StoreSubscriberStateType> {
            selected = same
        } else {
            storeFatal(
                "subscribe(_:) was given a \(S.self), which receives \(S.StoreSubscriberStateType.self), without a transform: the store's state is \(State.self). Pass a transform that selects a \(S.StoreSubscriberStateType.self)"
            )
        }
        if let isRepeat { selected = selected.skipRepeats(isRepeat) }
        selected.observe { [weak subscriber] _, new in subscriber?.newState(state: new) }
        let box = SubscriptionBox(original: original, subscriber: subscriber)
        end(boxesBySubscriber.updateValue(box, forKey: ObjectIdentifier(subscriber)))
        append(box)
        original.newValues(oldState: nil, newState: state)
    }

    /// Subscribes a closure to what `select` picks of each state.
    private func subscribe<Value>(
        select: @escaping (State) -> Value, skippingRepeats isRepeat: ((Value, Value) -> Bool)?,
        _ block: @escaping @MainActor (Value) -> Void
    ) -> StoreSubscriptionToken {
        let original = Subscription<State>()
        var selected = original.select(select)
        if let isRepeat { selected = selected.skipRepeats(isRepeat) }
        selected.observe { _, new in block(new) }
        let box = SubscriptionBox(original: original, subscriber: nil)
        append(box)
        original.newValues(oldState: nil, newState: state)
        return StoreSubscriptionToken { [weak self, weak box] in
            guard let box, box.isAlive else { return }
            self?.end(box)
        }
    }
}

/// Finishes a `states(_:)` stream when the subscription that feeds it is released.
private final class StreamEnd<Value: Sendable>: Sendable {
    let continuation: AsyncStream<Value>.Continuation
    init(_ continuation: AsyncStream<Value>.Continuation) { self.continuation = continuation }
    deinit { continuation.finish() }
}
