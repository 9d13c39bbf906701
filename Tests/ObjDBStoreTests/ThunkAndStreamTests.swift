import Testing
@testable import ObjDBStore

/// Thunks (synchronous and asynchronous) and `states(_:)` as an `AsyncSequence`.
@MainActor
struct ThunkAndStreamTests {
    // A synchronous thunk runs at once with the store's dispatch and state; the reducer never sees it.
    @Test func synchronousThunksRunInPlaceOfTheReducer() {
        var reduced: [String] = []
        let store = Store(reducer: { (action: any Action, state: TestAppState) in
            reduced.append("\(type(of: action))")
            return testReducer(action: action, state: state)
        }, state: TestAppState(testValue: 2))
        store.dispatch(Thunk<TestAppState> { dispatch, getState in
            dispatch(SetValueAction(value: (getState()?.testValue ?? 0) * 10))
        })
        #expect(store.state.testValue == 20)
        #expect(reduced == ["SetValueAction"])
    }

    // Middleware sees a thunk like any action, and may swallow it.
    @Test func middlewareSeesThunks() {
        var seen = 0
        let counting: Middleware<TestAppState> = { _, _ in { _ in { action in
            if action is Thunk<TestAppState> { seen += 1 }
        } } }
        let store = Store(reducer: testReducer, state: TestAppState(), middleware: [counting])
        store.dispatch(Thunk<TestAppState> { dispatch, _ in dispatch(SetValueAction(value: 1)) })
        #expect(seen == 1)
        #expect(store.state.testValue == nil)
    }

    // An asynchronous thunk runs in a task; its dispatches reach the store on the main actor.
    @Test func asynchronousThunksDispatchTheirResults() async {
        let store = Store(reducer: testReducer, state: TestAppState(testValue: 4))
        let values = store.states(\.testValue)
        store.dispatch(Thunk<TestAppState> { dispatch, getState in
            let value = await getState()?.testValue ?? 0
            await Task.yield()
            await dispatch(SetValueAction(value: value + 1))
        })
        #expect(store.state.testValue == 4)
        var seen: [Int?] = []
        for await value in values {
            seen.append(value)
            if value == 5 { break }
        }
        #expect(seen == [4, 5])
    }

    // states(_:) starts with the current value and skips repeats; ending the loop ends the
    // subscription.
    @Test func statesSkipRepeatsAndEndWithTheLoop() async {
        let store = Store(reducer: testReducer, state: TestAppState(testValue: 1))
        do {
            let stream = store.states(\.testValue)
            for value in [1, 1, 2, 2, 3] { store.dispatch(SetValueAction(value: value)) }
            var seen: [Int?] = []
            for await value in stream {
                seen.append(value)
                if value == 3 { break }
            }
            #expect(seen == [1, 2, 3])
        }
        // The stream is gone: its termination cancels its subscription on the main actor.
        #expect(await eventually { store.subscriptions.isEmpty })
    }

    // A stream finishes when its store goes away.
    @Test func statesFinishWithTheStore() async {
        var store: Store<TestAppState>? = Store(reducer: testReducer, state: TestAppState(testValue: 1))
        let stream = store?.states(\.testValue)
        store = nil
        var seen: [Int?] = []
        if let stream {
            for await value in stream { seen.append(value) }
        }
        #expect(seen == [1])
    }
}
