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
    /// The subscriptions in the order they were made, ended ones included until the next
    /// compaction (see ``compactSubscriptions()``).
    var boxes: [SubscriptionBox<State>] = []
    /// The subscription of each subscribed object, by the object's identity.
    var boxesBySubscriber: [ObjectIdentifier: SubscriptionBox<State>] = [:]
    /// Subscriptions ended (unsubscribed, replaced, cancelled) since the last compaction.
    var endedBoxes = 0
    /// Subscriptions made since the last compaction.
    var appendsSinceCompaction = 0
    /// Actions dispatched while another was processed, waiting their turn.
    private var pending: [any Action] = []
    /// Whether ``dispatch(_:)`` is processing actions (further ones are queued).
    private var isDispatching = false
    /// Whether the reducer is running, and on which action (for the message of a dispatch from it).
    private var isReducing = false
    private var reducingAction: (any Action)?
    /// The types of the actions the store handles itself, looked up once: the metadata of a
    /// generic type instantiated at run time costs a hash-table search each time it is named.
    private let thunkType = ObjectIdentifier(Thunk<State>.self)
    private let rehydratedType = ObjectIdentifier(StoreRehydrated<State>.self)
    /// Marked when the store goes away (its persistence then stops retrying failed writes).
    let lifetime = StoreLifetime()
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
        if isReducing {
            storeFatal(
                "dispatch(\(action)) was called from inside the reducer while it reduced \(reducingAction.map { "\($0)" } ?? "an action"). Reducers must be pure: dispatch from a middleware, a subscriber or a Thunk instead"
            )
        }
        guard !isDispatching else {
            pending.append(action)
            return
        }
        isDispatching = true
        defer { isDispatching = false }
        (dispatchFunction ?? makeDispatchFunction())(action)
        // Actions dispatched meanwhile, in order (each may queue more), each through the
        // middleware as it is then (a subscriber may have changed it).
        guard !pending.isEmpty else { return }
        var next = 0
        while next < pending.count {
            let queued = pending[next]
            next += 1
            (dispatchFunction ?? makeDispatchFunction())(queued)
        }
        pending.removeAll(keepingCapacity: true)
    }

    deinit {
        lifetime.markReleased()
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
    ///
    /// Thunks and rehydrations are recognized by their exact type (a comparison with metadata
    /// looked up at init), not by `as?`, whose dynamic cast of an existential costs more than
    /// the rest of a small dispatch.
    private func reduce(_ action: any Action) {
        let type = ObjectIdentifier(Swift.type(of: action))
        if type == thunkType, let thunk = action as? Thunk<State> {
            run(thunk)
            return
        }
        let newState: State
        if type == rehydratedType, let rehydration = action as? StoreRehydrated<State> {
            // Read from the database: nothing to write back.
            newState = rehydration.state
        } else {
            isReducing = true
            reducingAction = action
            newState = reducer(action, state)
            isReducing = false
            reducingAction = nil
            persistence?.stateDidChange(newState)
        }
        let oldState = state
        state = newState
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

    /// Tells every live subscription of the new state, and drops those that ended.
    ///
    /// Subscriptions made meanwhile (by a subscriber) are not told: they received the current
    /// state when made.
    private func notify(oldState: State, newState: State) {
        let boxes = self.boxes
        var ended = false
        for box in boxes {
            if box.isAlive {
                box.original.newValues(oldState: oldState, newState: newState)
            } else {
                ended = true
            }
        }
        if ended { compactSubscriptions() }
    }

    /// Drops the subscriptions that ended.
    func compactSubscriptions() {
        boxes.removeAll { !$0.isAlive }
        boxesBySubscriber = boxesBySubscriber.filter { $0.value.isAlive }
        endedBoxes = 0
        appendsSinceCompaction = 0
    }
}
