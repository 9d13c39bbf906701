import Foundation
import Testing
import ObjDB
import ObjDBStore

// The Store section of the API contract, call for call: it must keep compiling and doing what
// it says.

private struct AppState: Codable, Equatable { var count = 0; var todos: [ContractTodo] = [] }
private struct ContractTodo: Codable, Equatable { var title: String }
private enum CounterAction: Action { case increase, decrease }

private func appReducer(action: Action, state: AppState) -> AppState {
    var state = state
    switch action as? CounterAction {
    case .increase: state.count += 1
    case .decrease: state.count -= 1
    case nil: break
    }
    return state
}

@MainActor private var logged: [String] = []
private let loggingMiddleware: Middleware<AppState> = { dispatch, getState in { next in { action in
    logged.append("\(action)")
    next(action)
} } }

/// A version 1 state stored `counter`; version 2 calls it `count`.
private func migrateV1toV2(_ state: inout StoredState) throws {
    state["count"] = state["counter"]
    state["counter"] = nil
}

@MainActor
private final class CountLabel: StoreSubscriber {
    var text = ""
    func newState(state: Int) { text = "\(state)" }
}

@MainActor
struct StoreAPIContractTests {
    let scratch = Scratch()

    @Test func theContractsCallSites() async throws {
        let db = try scratch.open()
        try db.write {
            let old = StoreStateObject()
            old.key = "app"
            old.version = 1
            old.json = #"{"counter": 41, "todos": []}"#
            try db.add(old)
        }
        let store = try Store(
            reducer: appReducer,
            state: AppState(),                          // used only when nothing is persisted yet
            middleware: [loggingMiddleware],
            persistence: .database(db, key: "app", version: 2, migrations: [2: migrateV1toV2])
        )
        store.dispatch(CounterAction.increase)
        #expect(store.state.count == 42)
        let subscriber = CountLabel()
        store.subscribe(subscriber) { $0.select(\.count).skipRepeats() }
        #expect(subscriber.text == "42")
        store.unsubscribe(subscriber)
        var seen: [Int] = []
        let cancel = store.subscribe { (state: AppState) in seen.append(state.count) }
        store.dispatch(CounterAction.decrease)
        cancel.cancel()
        #expect(seen == [42, 41])
        for await count in store.states(\.count) {
            #expect(count == 41)
            break
        }
        try store.flush()                                            // persist now
        #expect(try storedState(scratch.file(), key: "app")?.json == #"{"count":41,"todos":[]}"#)
        #expect(logged.count == 2)
    }
}
