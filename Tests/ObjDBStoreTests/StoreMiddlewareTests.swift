import Testing
import ObjDBStore

/// Middleware order, dispatching from middleware, reading the state and swallowing actions
/// (ReSwift's `StoreMiddlewareTests`).
@MainActor
struct StoreMiddlewareTests {
    // ReSwift: testDecorateDispatch — the first middleware of the array runs first.
    @Test func middlewareDecoratesDispatchInArrayOrder() {
        let store = Store(
            reducer: testValueStringReducer, state: TestStringAppState(),
            middleware: [firstMiddleware(), secondMiddleware()])
        let subscriber = TestStoreSubscriber<TestStringAppState>()
        store.subscribe(subscriber)
        store.dispatch(SetValueStringAction(value: "OK"))
        #expect(store.state.testValue == "OK First Middleware Second Middleware")
        #expect(subscriber.receivedStates.map(\.testValue) == ["Initial", "OK First Middleware Second Middleware"])
    }

    // ReSwift: testCanDispatch — a middleware's dispatch starts at the outermost middleware.
    @Test func middlewareCanDispatch() {
        let store = Store(
            reducer: testValueStringReducer, state: TestStringAppState(),
            middleware: [firstMiddleware(), secondMiddleware(), dispatchingMiddleware()])
        store.dispatch(SetValueAction(value: 10))
        #expect(store.state.testValue == "10 First Middleware Second Middleware")
    }

    // ReSwift: testMiddlewareCanAccessState — reads the state, dispatches, swallows the action.
    @Test func middlewareCanAccessStateAndSwallowActions() {
        let store = Store(
            reducer: testValueStringReducer, state: TestStringAppState(testValue: "OK"),
            middleware: [stateAccessingMiddleware])
        store.dispatch(SetValueStringAction(value: "Action That Won't Go Through"))
        #expect(store.state.testValue == "Not OK")
    }

    // ReSwift: testCanMutateMiddlewareAfterInit.
    @Test func middlewareCanChangeAfterInit() {
        let store = Store(reducer: testValueStringReducer, state: TestStringAppState())
        var calls = 0
        store.middleware.append(middleware(executing: { calls += 1 }))
        store.dispatch(SetValueStringAction(value: "swallowed"))
        #expect(calls == 1)
        #expect(store.state.testValue == "Initial")
        store.middleware = []
        store.dispatch(SetValueStringAction(value: "through"))
        #expect(calls == 1)
        #expect(store.state.testValue == "through")
    }

    // A middleware's dispatch is processed after the action it saw, before dispatch returns.
    @Test func actionsDispatchedByMiddlewareAreQueuedBehindTheCurrentOne() {
        var seen: [String] = []
        let recording: Middleware<TestStringAppState> = { _, _ in { next in { action in
            seen.append((action as? SetValueStringAction)?.value ?? "\(type(of: action))")
            next(action)
        } } }
        let store = Store(
            reducer: testValueStringReducer, state: TestStringAppState(),
            middleware: [recording, dispatchingMiddleware()])
        store.dispatch(SetValueAction(value: 7))
        #expect(seen == ["SetValueAction", "7"])
        #expect(store.state.testValue == "7")
    }
}
