/// An action that runs code instead of reaching the reducer: side effects and asynchronous
/// work that dispatch other actions, handled by the ``Store`` itself.
///
/// ```swift
/// store.dispatch(Thunk<AppState> { dispatch, getState in
///     if getState()?.todos.isEmpty == true { dispatch(TodoAction.add("milk")) }
/// })
/// store.dispatch(Thunk<AppState> { dispatch, getState in
///     let todos = await api.fetchTodos()
///     await dispatch(TodoAction.loaded(todos))
/// })
/// ```
///
/// A thunk travels through the middleware like any action (a middleware can log or swallow
/// it) and runs where the reducer would be called. A synchronous thunk runs at once; actions
/// it dispatches are queued behind the current one. An asynchronous thunk runs in a task of
/// its own, started on the main actor; each of its dispatches is processed when it is made.
public struct Thunk<State>: Action {
    /// What running the thunk does, given the store's dispatch and getState.
    enum Body {
        case synchronous((@escaping DispatchFunction, @escaping () -> State?) -> Void)
        case asynchronous(
            @Sendable (@escaping @MainActor (any Action) -> Void, @escaping @MainActor () -> State?) async -> Void)
    }

    /// What running the thunk does.
    let body: Body

    /// A thunk that runs `body` with the store's dispatch function and state getter.
    public init(_ body: @escaping (_ dispatch: @escaping DispatchFunction, _ getState: @escaping () -> State?) -> Void) {
        self.body = .synchronous(body)
    }

    /// A thunk that runs `body`, asynchronously, with the store's dispatch function and state
    /// getter (both on the main actor).
    public init(
        _ body: @escaping @Sendable (
            _ dispatch: @escaping @MainActor (any Action) -> Void, _ getState: @escaping @MainActor () -> State?
        ) async -> Void
    ) {
        self.body = .asynchronous(body)
    }
}
