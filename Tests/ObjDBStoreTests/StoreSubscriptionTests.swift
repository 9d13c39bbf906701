import Testing
@testable import ObjDBStore

/// Subscribing, unsubscribing, weak subscribers, replacing subscriptions and dispatching from
/// subscribers (ReSwift's `StoreSubscriptionTests`).
@MainActor
struct StoreSubscriptionTests {
    let store = Store(reducer: testReducer, state: TestAppState())

    var liveSubscriberCount: Int { store.subscriptions.filter { $0.isAlive }.count }

    // ReSwift: testDoesNotCaptureStrongly.
    @Test func subscribersAreHeldWeakly() throws {
        var subscriber: TestStoreSubscriber<TestAppState>? = TestStoreSubscriber()
        store.subscribe(try #require(subscriber))
        #expect(liveSubscriberCount == 1)
        subscriber = nil
        #expect(liveSubscriberCount == 0)
    }

    // ReSwift: testRemoveSubscribers — subscribers that went away are dropped at the next state.
    @Test func subscribersThatGoAwayAreRemoved() throws {
        var subscriber1: TestStoreSubscriber<TestAppState>? = TestStoreSubscriber()
        var subscriber2: TestStoreSubscriber<TestAppState>? = TestStoreSubscriber()
        store.subscribe(try #require(subscriber1))
        store.subscribe(try #require(subscriber2))
        store.dispatch(SetValueAction(value: 3))
        #expect(store.boxes.count == 2)
        #expect(subscriber1?.receivedStates.last?.testValue == 3)
        #expect(subscriber2?.receivedStates.last?.testValue == 3)
        subscriber1 = nil
        #expect(store.boxes.count == 2)  // noticed at the next state
        store.dispatch(SetValueAction(value: 5))
        #expect(store.boxes.count == 1)
        #expect(subscriber2?.receivedStates.last?.testValue == 5)
        subscriber2 = nil
        store.dispatch(SetValueAction(value: 8))
        #expect(store.boxes.isEmpty)
    }

    // ReSwift: testDuplicateSubscription — subscribing again replaces the subscription.
    @Test func subscribingAgainReplacesTheSubscription() {
        let subscriber = TestStoreSubscriber<TestAppState>()
        store.subscribe(subscriber)
        store.subscribe(subscriber) { $0.skipRepeats { $0.testValue == $1.testValue } }
        #expect(subscriber.receivedStates.count == 2)
        for _ in 0..<4 { store.dispatch(SetValueAction(value: 3)) }
        #expect(subscriber.receivedStates.count == 3)
    }

    // ReSwift: testDispatchInitialValue.
    @Test func subscribersReceiveNewStates() {
        let subscriber = TestStoreSubscriber<TestAppState>()
        store.subscribe(subscriber)
        store.dispatch(SetValueAction(value: 3))
        #expect(subscriber.receivedStates.last?.testValue == 3)
    }

    // ReSwift: testAllowDispatchWithinObserver.
    @Test func subscribersMayDispatch() {
        let subscriber = DispatchingSubscriber(store: store)
        store.subscribe(subscriber)
        #expect(store.state.testValue == 5)
        store.dispatch(SetValueAction(value: 2))
        #expect(store.state.testValue == 5)
    }

    // ReSwift: testDontDispatchToUnsubscribers.
    @Test func unsubscribedSubscribersMissStates() {
        let subscriber = TestStoreSubscriber<TestAppState>()
        store.dispatch(SetValueAction(value: 5))
        store.subscribe(subscriber)
        store.dispatch(SetValueAction(value: 10))
        store.unsubscribe(subscriber)
        store.dispatch(SetValueAction(value: 15))
        store.dispatch(SetValueAction(value: 25))
        store.subscribe(subscriber)
        store.dispatch(SetValueAction(value: 20))
        #expect(subscriber.receivedStates.map(\.testValue) == [5, 10, 25, 20])
    }

    // ReSwift: testIgnoreIdenticalSubscribers, testIgnoreIdenticalSubstateSubscribers.
    @Test func oneSubscriptionPerSubscriber() {
        let subscriber = TestStoreSubscriber<TestAppState>()
        store.subscribe(subscriber)
        store.subscribe(subscriber)
        #expect(store.subscriptions.count == 1)
        store.subscribe(subscriber) { $0 }
        store.subscribe(subscriber) { $0 }
        #expect(store.subscriptions.count == 1)
    }

    // ReSwift: testNewStateModifyingSubscriptionsDoesNotDiscardNewSubscription (#325).
    @Test func subscribingFromASubscriberKeepsBothSubscriptions() {
        let store = self.store
        let subscriber2 = BlockSubscriber<TestAppState> { _ in store.dispatch(SetValueAction(value: 2)) }
        let subscriber1 = BlockSubscriber<TestAppState> { state in
            if state.testValue == 1 { store.subscribe(subscriber2) { $0.skip { _, _ in true } } }
        }
        store.subscribe(subscriber1) { $0.only { _, new in new.testValue == 1 } }
        store.dispatch(SetValueAction(value: 1))
        #expect(store.subscriptions.contains { $0.subscriber === subscriber1 })
        #expect(store.subscriptions.contains { $0.subscriber === subscriber2 })
        #expect(store.state.testValue == 2)
    }

    // ReSwift: testRetainCycle_OriginalSubscription and _TransformedSubscription — neither the
    // store nor a subscription keeps the other, or the subscriber, alive.
    @Test(arguments: [false, true])
    func storesAndSubscriptionsHaveNoRetainCycles(transformed: Bool) throws {
        weak var weakStore: Store<TestAppState>?
        weak var weakSubscription: Subscription<TestAppState>?
        var store: Store<TestAppState>? = Store(reducer: testReducer, state: TestAppState(), automaticallySkipsRepeats: false)
        weakStore = store
        let whole = TestStoreSubscriber<TestAppState>()
        let selected = TestStoreSubscriber<Int?>()
        if transformed {
            store?.subscribe(selected) { $0.select(\.testValue) }
        } else {
            store?.subscribe(whole)
        }
        weakSubscription = store?.subscriptions.first?.original
        store?.dispatch(NoOpAction())
        #expect(whole.receivedStates.count + selected.receivedStates.count == 2)
        if transformed { store?.unsubscribe(selected) } else { store?.unsubscribe(whole) }
        #expect(store?.subscriptions.isEmpty == true)
        store?.dispatch(NoOpAction())
        #expect(whole.receivedStates.count + selected.receivedStates.count == 2)
        store = nil
        #expect(weakStore == nil)
        #expect(weakSubscription == nil)
    }

    // A closure subscription lasts until its token is cancelled.
    @Test func closureSubscriptionsLastUntilCancelled() {
        var values: [Int?] = []
        let token = store.subscribe { (state: TestAppState) in values.append(state.testValue) }
        store.dispatch(SetValueAction(value: 1))
        token.cancel()
        store.dispatch(SetValueAction(value: 2))
        token.cancel()
        #expect(values == [nil, 1])
        #expect(store.subscriptions.isEmpty)
    }

    // An Equatable state's closure subscription skips repeated states, unless turned off.
    @Test(arguments: [true, false])
    func closureSubscriptionsSkipRepeatsOfEquatableStates(skips: Bool) {
        let store = Store(reducer: testValueStringReducer, state: TestStringAppState(), automaticallySkipsRepeats: skips)
        var values: [String] = []
        store.subscribe { (state: TestStringAppState) in values.append(state.testValue) }
        store.dispatch(SetValueStringAction(value: "Initial"))
        store.dispatch(SetValueStringAction(value: "x"))
        #expect(values == (skips ? ["Initial", "x"] : ["Initial", "Initial", "x"]))
    }

    // Subscribers that come and go without a dispatch do not pile up.
    @Test func subscriptionsOfDeallocatedSubscribersDoNotAccumulate() {
        for _ in 0..<1_000 { store.subscribe(TestStoreSubscriber<TestAppState>()) }
        #expect(store.boxes.count <= 130)
        #expect(store.subscriptions.isEmpty)
    }

    // A subscriber that changes the middleware and dispatches: the queued action goes through
    // the new middleware.
    @Test func middlewareChangedDuringADispatchAppliesToQueuedActions() {
        let store = self.store
        var seen = 0
        let counting: Middleware<TestAppState> = { _, _ in { next in { action in
            seen += 1
            next(action)
        } } }
        let token = store.subscribe { (state: TestAppState) in
            if state.testValue == 1 {
                store.middleware = [counting]
                store.dispatch(SetValueAction(value: 2))
            }
        }
        store.dispatch(SetValueAction(value: 1))
        #expect(seen == 1)
        #expect(store.state.testValue == 2)
        token.cancel()
    }
}
