import Foundation
import Testing
@testable import ObjDBStore

/// Dispatch order and re-entrancy: reducers may not dispatch; subscribers, middleware and
/// thunks may, and their actions are queued (ReSwift's `StoreDispatchTests` and `StoreTests`,
/// and the ordering ReSwift issue #519 gets wrong).
@MainActor
struct StoreDispatchTests {
    // ReSwift: testThrowsExceptionWhenReducersDispatch — here a precondition failure whose
    // message says what happened, in every build configuration.
    @Test func aReducerThatDispatchesStopsTheProgramWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                final class Holder { var store: Store<TestAppState>? }
                let holder = Holder()
                let store = Store(reducer: { (action: any Action, state: TestAppState) in
                    if action is SetValueAction { holder.store?.dispatch(SetValueAction(value: 20)) }
                    return state
                }, state: TestAppState())
                holder.store = store
                store.dispatch(SetValueAction(value: 10))
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("ObjDBStore: dispatch(SetValueAction(value: Optional(20))) was called from inside the reducer"))
        #expect(message.contains("Reducers must be pure"))
    }

    // ReSwift: testInit — a store given a state calls no reducer and dispatches nothing at launch.
    @Test func creatingAStoreDispatchesNothing() {
        var actions: [String] = []
        let store = Store(reducer: { (action: any Action, state: TestAppState) in
            actions.append("\(type(of: action))")
            return state
        }, state: TestAppState(testValue: 1))
        #expect(actions.isEmpty)
        #expect(store.state.testValue == 1)
    }

    // ReSwift: testDeinit — nothing keeps a store alive but its owners.
    @Test func aStoreGoesAwayWithItsLastReference() {
        weak var weakStore: Store<TestAppState>?
        do {
            let store = Store(reducer: testReducer, state: TestAppState(), middleware: [dispatchingMiddleware()])
            store.subscribe(TestStoreSubscriber<TestAppState>())
            store.dispatch(SetValueAction(value: 1))
            weakStore = store
        }
        #expect(weakStore == nil)
    }

    // ReSwift #519: a subscriber that dispatches from newState. Every subscriber sees every
    // state in dispatch order, old/new pairs chained, whichever subscriber comes first.
    @Test(arguments: [false, true])
    func subscribersSeeStatesInDispatchOrder(limiterFirst: Bool) {
        struct Account: Equatable { var balance = 0 }
        enum AccountAction: Action { case deposit(Int), set(Int) }
        let store = Store(reducer: { (action: any Action, state: Account) in
            switch action as? AccountAction {
            case .deposit(let amount): return Account(balance: state.balance + amount)
            case .set(let balance): return Account(balance: balance)
            case nil: return state
            }
        }, state: Account())
        var printed: [Int] = []
        var pairs: [String] = []
        let limiter = BlockSubscriber<Int> { balance in
            if balance > 42 { store.dispatch(AccountAction.set(42)) }
        }
        let printer = BlockSubscriber<Int> { printed.append($0) }
        let pairRecorder = BlockSubscriber<Int> { _ in }
        if limiterFirst { store.subscribe(limiter) { $0.select(\.balance) } }
        store.subscribe(printer) { $0.select(\.balance) }
        if !limiterFirst { store.subscribe(limiter) { $0.select(\.balance) } }
        store.subscribe(pairRecorder) {
            $0.only { old, new in
                pairs.append("\(old.balance)→\(new.balance)")
                return true
            }.select(\.balance)
        }
        store.dispatch(AccountAction.deposit(50))
        #expect(printed == [0, 50, 42])
        #expect(pairs == ["0→50", "50→42"])
        #expect(store.state.balance == 42)
    }

    // Actions dispatched while one is processed run after it, in the order dispatched, all
    // before the outermost dispatch returns.
    @Test func nestedDispatchesAreProcessedInOrderBeforeDispatchReturns() {
        let store = Store(reducer: { (action: any Action, state: [String]) in
            guard let action = action as? SetValueStringAction else { return state }
            return state + [action.value]
        }, state: [String]())
        let token = store.subscribe { (log: [String]) in
            if log.last == "a" {
                store.dispatch(SetValueStringAction(value: "a1"))
                store.dispatch(SetValueStringAction(value: "a2"))
            }
            if log.last == "a1" { store.dispatch(SetValueStringAction(value: "a1x")) }
        }
        store.dispatch(SetValueStringAction(value: "a"))
        #expect(store.state == ["a", "a1", "a2", "a1x"])
        token.cancel()
    }
}
