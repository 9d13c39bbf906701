import Foundation
import ObjDBStore

// The states, actions, reducers and subscribers of ReSwift's `TestFakes.swift`, rebuilt with
// non-optional reducer states (this Store never starts without a state).

struct TestAppState { var testValue: Int? = nil }

struct TestStringAppState: Equatable { var testValue = "Initial" }

struct NonEquatable { var testValue = "Initial" }

struct TestNonEquatable { var testValue = NonEquatable() }

struct TestCustomSubstate { var value: Int }

struct TestCustomAppState {
    var substate: TestCustomSubstate
    init(substateValue: Int = 0) { substate = TestCustomSubstate(value: substateValue) }
}

struct NoOpAction: Action {}
struct SetValueAction: Action { var value: Int? }
struct SetValueStringAction: Action { var value: String }
struct SetCustomSubstateAction: Action { var value: Int }
struct SetNonEquatableAction: Action { var value: NonEquatable }

func testReducer(action: any Action, state: TestAppState) -> TestAppState {
    guard let action = action as? SetValueAction else { return state }
    var state = state
    state.testValue = action.value
    return state
}

func testValueStringReducer(action: any Action, state: TestStringAppState) -> TestStringAppState {
    guard let action = action as? SetValueStringAction else { return state }
    var state = state
    state.testValue = action.value
    return state
}

func testCustomAppStateReducer(action: any Action, state: TestCustomAppState) -> TestCustomAppState {
    guard let action = action as? SetCustomSubstateAction else { return state }
    var state = state
    state.substate.value = action.value
    return state
}

func testNonEquatableReducer(action: any Action, state: TestNonEquatable) -> TestNonEquatable {
    guard let action = action as? SetNonEquatableAction else { return state }
    var state = state
    state.testValue = action.value
    return state
}

/// Records every state it receives.
@MainActor
final class TestStoreSubscriber<T>: StoreSubscriber {
    var receivedStates: [T] = []
    func newState(state: T) { receivedStates.append(state) }
}

/// Keeps the last state it received and counts the calls.
@MainActor
final class TestFilteredSubscriber<T>: StoreSubscriber {
    var receivedValue: T?
    var newStateCallCount = 0
    func newState(state: T) {
        receivedValue = state
        newStateCallCount += 1
    }
}

/// Calls a closure with each state.
@MainActor
final class BlockSubscriber<S>: StoreSubscriber {
    let block: (S) -> Void
    init(block: @escaping (S) -> Void) { self.block = block }
    func newState(state: S) { block(state) }
}

/// Dispatches `SetValueAction(5)` whenever the value is not 5.
@MainActor
final class DispatchingSubscriber: StoreSubscriber {
    let store: Store<TestAppState>
    init(store: Store<TestAppState>) { self.store = store }
    func newState(state: TestAppState) {
        if state.testValue != 5 { store.dispatch(SetValueAction(value: 5)) }
    }
}

// The middleware of ReSwift's `StoreMiddlewareTests.swift`.

/// Appends " First Middleware" to the value of string actions.
func firstMiddleware<S>() -> Middleware<S> {
    { _, _ in { next in { action in
        if var action = action as? SetValueStringAction {
            action.value += " First Middleware"
            next(action)
        } else {
            next(action)
        }
    } } }
}

/// Appends " Second Middleware" to the value of string actions.
func secondMiddleware<S>() -> Middleware<S> {
    { _, _ in { next in { action in
        if var action = action as? SetValueStringAction {
            action.value += " Second Middleware"
            next(action)
        } else {
            next(action)
        }
    } } }
}

/// For a `SetValueAction`, dispatches a string action with its value, then passes it on.
func dispatchingMiddleware<S>() -> Middleware<S> {
    { dispatch, _ in { next in { action in
        if let action = action as? SetValueAction {
            dispatch(SetValueStringAction(value: "\(action.value ?? 0)"))
        }
        next(action)
    } } }
}

/// While the state is "OK", turns any action but "Not OK" into a dispatch of "Not OK" and
/// passes a no-op on instead.
let stateAccessingMiddleware: Middleware<TestStringAppState> = { dispatch, getState in { next in { action in
    if getState()?.testValue == "OK", (action as? SetValueStringAction)?.value != "Not OK" {
        dispatch(SetValueStringAction(value: "Not OK"))
        next(NoOpAction())
    } else {
        next(action)
    }
} } }

/// Calls `block` for every action and swallows it.
@MainActor func middleware<S>(executing block: @escaping () -> Void) -> Middleware<S> {
    { _, _ in { _ in { _ in block() } } }
}
