/// Something that happened, dispatched to a ``Store`` to produce its next state.
///
/// ```swift
/// enum CounterAction: Action { case increase, decrease }
/// store.dispatch(CounterAction.increase)
/// ```
public protocol Action {}

/// Computes the next state from an action and the current state. It must be pure: no
/// dispatching (a precondition failure), no saving, no side effects — middleware and thunks
/// are where those go. The store persists the state it returns by itself.
///
/// ```swift
/// func counterReducer(action: Action, state: AppState) -> AppState {
///     var state = state
///     if case CounterAction.increase = action { state.count += 1 }
///     return state
/// }
/// ```
public typealias Reducer<State> = (_ action: any Action, _ state: State) -> State

/// Dispatches an action: the shape of ``Store/dispatch(_:)`` and of the `next` function a
/// middleware forwards to.
///
/// Main-actor isolated, as the store is (which also makes it `Sendable`).
public typealias DispatchFunction = @MainActor (any Action) -> Void

/// Wraps dispatching: given the store's `dispatch` (which starts a new action from the
/// outermost middleware) and `getState`, returns a function that takes the next dispatch
/// function in the chain and returns this middleware's. The first middleware of a store's
/// array is the outermost: it sees each action first.
///
/// A middleware may forward the action (`next(action)`), change it, swallow it (not call
/// `next`), read the state, or dispatch other actions (queued behind the current one).
///
/// ```swift
/// let logging: Middleware<AppState> = { dispatch, getState in
///     { next in
///         { action in
///             print("→ \(action)")
///             next(action)
///         }
///     }
/// }
/// ```
///
/// Main-actor isolated like the store: a middleware declared as a global constant is
/// `Sendable`, so Swift 6 accepts it without annotations.
public typealias Middleware<State> = @MainActor (
    _ dispatch: @escaping DispatchFunction, _ getState: @escaping @MainActor () -> State?
) -> (_ next: @escaping DispatchFunction) -> DispatchFunction
