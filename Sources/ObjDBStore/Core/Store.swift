/// A ReSwift-style store: one state, changed only by dispatching actions through middleware
/// to a pure reducer, and subscribers told of every new state — optionally persisted into an
/// ObjDB database (see ``init(reducer:state:middleware:automaticallySkipsRepeats:persistence:)``).
///
/// ```swift
/// let store = Store(reducer: appReducer, state: AppState())
/// store.subscribe(counterLabel) { $0.select(\.count) }
/// store.dispatch(CounterAction.increase)
/// store.state.count   // 1
/// ```
///
/// **Main actor.** A store belongs to the main actor: its state drives the user interface, its
/// subscribers are views, and one isolation domain makes dispatching a plain, ordered,
/// synchronous call the compiler checks. From other code, hop there (`await MainActor.run {
/// store.dispatch(action) }`, or `Task { @MainActor in … }`), or dispatch an asynchronous
/// ``Thunk`` that does its work off the main actor and dispatches its results.
///
/// **Order.** Actions dispatched while an action is processed — by a subscriber, a middleware
/// or a thunk — are queued and processed in order before the outermost ``dispatch(_:)``
/// returns; every subscriber sees every state, in dispatch order, with the right old state.
/// A reducer that dispatches is a precondition failure.
@MainActor
public final class Store<State> {
    /// The current state.
    public private(set) var state: State

    /// Whether subscriptions that select an `Equatable` state skip states equal to the
    /// previous one by themselves (as if they ended with `skipRepeats()`).
    public let automaticallySkipsRepeats: Bool

    /// The reducer.
    private let reducer: Reducer<State>
    /// The middleware, outermost first. It can be changed at any time; the next dispatch uses
    /// the new chain.
    public var middleware: [Middleware<State>] {
        didSet { dispatchFunction = nil }
    }
    /// The middleware chain ending in ``reduce(_:)``; built on first use.
    private var dispatchFunction: DispatchFunction?
    /// The subscriptions, in the order they were made.
    var subscriptions: [SubscriptionBox<State>] = []
    /// Actions dispatched while another was processed, waiting their turn.
    private var pending: [any Action] = []
    private var pendingStart = 0
    /// Whether ``dispatch(_:)`` is processing actions (further ones are queued).
    private var isDispatching = false
    /// The action whose reducer is running, if one is.
    private var reducing: (any Action)?
    /// Persistence, when the store was made with it: told of each new state, and flushed.
    var persistence: (stateDidChange: (State) -> Void, flush: () throws -> Void)?

    /// Creates a store with `state` as its state.
    ///
    /// - Parameters:
    ///   - reducer: Computes each next state.
    ///   - state: The initial state.
    ///   - middleware: Wrappers of dispatching, the first outermost.
    ///   - automaticallySkipsRepeats: Whether subscriptions selecting an `Equatable` state skip
    ///     repeated states by themselves.
    public init(
        reducer: @escaping Reducer<State>, state: State, middleware: [Middleware<State>] = [],
        automaticallySkipsRepeats: Bool = true
    ) {
        self.reducer = reducer
        self.state = state
        self.middleware = middleware
        self.automaticallySkipsRepeats = automaticallySkipsRepeats
    }

    /// Dispatches `action`: through the middleware (outermost first) to the reducer, then to
    /// the subscribers. Actions dispatched meanwhile are processed after it, in order, before
    /// this call returns.
    ///
    /// Calling this from inside a reducer is a precondition failure: reducers are pure.
    public func dispatch(_ action: any Action) {
        if let reducing {
            storeFatal(
                "dispatch(\(action)) was called from inside the reducer while it reduced \(reducing). Reducers must be pure: dispatch from a middleware, a subscriber or a Thunk instead"
            )
        }
        pending.append(action)
        guard !isDispatching else { return }
        isDispatching = true
        defer {
            isDispatching = false
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
        }
        let chain = dispatchFunction ?? makeDispatchFunction()
        while pendingStart < pending.count {
            let next = pending[pendingStart]
            pendingStart += 1
            chain(next)
        }
    }

    /// Builds the middleware chain around ``reduce(_:)``.
    private func makeDispatchFunction() -> DispatchFunction {
        let core: DispatchFunction = { [unowned self] action in self.reduce(action) }
        let chain = middleware.reversed().reduce(core) { next, middleware in
            let dispatch: DispatchFunction = { [weak self] action in self?.dispatch(action) }
            let getState: @MainActor () -> State? = { [weak self] in self?.state }
            return middleware(dispatch, getState)(next)
        }
        dispatchFunction = chain
        return chain
    }

    /// The end of the middleware chain: runs a thunk, applies a rehydration, or reduces.
    private func reduce(_ action: any Action) {
        if let thunk = action as? Thunk<State> {
            run(thunk)
            return
        }
        let newState: State
        if let rehydration = action as? StoreRehydrated<State> {
            newState = rehydration.state
        } else {
            reducing = action
            newState = reducer(action, state)
            reducing = nil
        }
        let oldState = state
        state = newState
        persistence?.stateDidChange(newState)
        notify(oldState: oldState, newState: newState)
    }

    /// Runs a thunk with this store's dispatch and state.
    private func run(_ thunk: Thunk<State>) {
        switch thunk.body {
        case .synchronous(let body):
            body({ [weak self] action in self?.dispatch(action) }, { [weak self] in self?.state })
        case .asynchronous(let body):
            let dispatch: @MainActor (any Action) -> Void = { [weak self] action in self?.dispatch(action) }
            let getState: @MainActor () -> State? = { [weak self] in self?.state }
            Task { @MainActor in await body(dispatch, getState) }
        }
    }

    /// Tells every live subscription of the new state.
    private func notify(oldState: State, newState: State) {
        subscriptions.removeAll { !$0.isAlive }
        for box in subscriptions where box.isAlive {
            box.original.newValues(oldState: oldState, newState: newState)
        }
    }
}
