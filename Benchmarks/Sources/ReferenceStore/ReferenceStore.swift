import ObjDBStore

/// The reference of the `--store` benchmark: ReSwift's design in the fewest lines — a middleware
/// chain, a reducer behind an is-dispatching flag, a `Set` of subscription boxes holding their
/// subscribers weakly, subscriptions chained through observer closures (`select`,
/// `skipRepeats`), and delivery through `_newState(state: Any)` — without its thread
/// synchronization (`Synchronized<Bool>` on a dispatch queue), which the main actor makes moot.
/// A module of its own, as ReSwift is for an app: its generic code is not specialized into the
/// benchmark's, as ObjDBStore's is not.
@MainActor
public final class ReferenceStore<State> {
    public private(set) var state: State {
        didSet {
            for box in subscriptions {
                if box.subscriber == nil { subscriptions.remove(box) } else { box.original.newValues(oldValue, state) }
            }
        }
    }
    private let reducer: (any Action, State) -> State
    private var subscriptions: Set<ReferenceBox<State>> = []
    private var isDispatching = false
    private var dispatchFunction: DispatchFunction?

    public init(reducer: @escaping (any Action, State) -> State, state: State, middleware: [Middleware<State>]) {
        self.reducer = reducer
        self.state = state
        let core: DispatchFunction = { [unowned self] action in
            precondition(!self.isDispatching, "dispatched while dispatching")
            self.isDispatching = true
            let newState = self.reducer(action, self.state)
            self.isDispatching = false
            self.state = newState
        }
        var chain = core
        for wrapper in middleware.reversed() {
            let dispatch: DispatchFunction = { [weak self] action in self?.dispatch(action) }
            let getState: @MainActor () -> State? = { [weak self] in self?.state }
            chain = wrapper(dispatch, getState)(chain)
        }
        dispatchFunction = chain
    }

    public func dispatch(_ action: any Action) { dispatchFunction?(action) }

    public func subscribe<Selected>(
        _ subscriber: ReferenceSubscriber<Selected>, transform: (ReferenceSubscription<State>) -> ReferenceSubscription<Selected>
    ) {
        let original = ReferenceSubscription<State>()
        let box = ReferenceBox(original: original, transformed: transform(original), subscriber: subscriber)
        subscriptions.update(with: box)
        original.newValues(nil, state)
    }
}

/// ReSwift's `Subscription`: an observer closure, and derived subscriptions that feed on it.
@MainActor
public final class ReferenceSubscription<State> {
    var observer: ((State?, State) -> Void)?

    func newValues(_ old: State?, _ new: State) { observer?(old, new) }

    public func select<Selected>(_ selector: @escaping (State) -> Selected) -> ReferenceSubscription<Selected> {
        let derived = ReferenceSubscription<Selected>()
        observer = { old, new in derived.newValues(old.map(selector), selector(new)) }
        return derived
    }

    public func skipRepeats(_ isRepeat: @escaping (State, State) -> Bool) -> ReferenceSubscription<State> {
        let derived = ReferenceSubscription<State>()
        observer = { old, new in
            if let old, isRepeat(old, new) { return }
            derived.newValues(old, new)
        }
        return derived
    }
}

/// ReSwift's `SubscriptionBox`: the subscriber held weakly, hashed by its identity.
@MainActor
final class ReferenceBox<State>: Hashable {
    let original: ReferenceSubscription<State>
    weak var subscriber: AnyReferenceSubscriber?
    private let id: ObjectIdentifier

    init<Selected>(original: ReferenceSubscription<State>, transformed: ReferenceSubscription<Selected>, subscriber: AnyReferenceSubscriber) {
        self.original = original
        self.subscriber = subscriber
        self.id = ObjectIdentifier(subscriber)
        transformed.observer = { [weak subscriber] _, new in subscriber?._newState(state: new) }
    }

    nonisolated static func == (a: ReferenceBox, b: ReferenceBox) -> Bool { a.id == b.id }
    nonisolated func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// ReSwift's `AnyStoreSubscriber`: states arrive as `Any` and are cast back.
@MainActor
open class AnyReferenceSubscriber {
    public init() {}
    open func _newState(state: Any) {}
}

/// A subscriber that remembers the last value.
@MainActor
public final class ReferenceSubscriber<Value>: AnyReferenceSubscriber {
    public var last: Value?
    public override init() {}
    public override func _newState(state: Any) {
        if let value = state as? Value { last = value }
    }
}
