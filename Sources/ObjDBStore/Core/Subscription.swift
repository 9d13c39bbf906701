/// A stream of `(old, new)` state pairs that a subscriber receives, shaped with `select`,
/// `skipRepeats`, `skip(when:)` and `only(when:)` when subscribing.
///
/// ```swift
/// store.subscribe(counterView) { subscription in
///     subscription.select(\.count).skipRepeats()
/// }
/// ```
///
/// The first value a subscription delivers — the current state, at subscribing — has no old
/// state, and `skip(when:)`, `only(when:)` and `skipRepeats` always let it through.
///
/// The operators are `@inlinable`: the closures they chain are compiled, specialized, into the
/// code that subscribes, where the selected types are known.
@MainActor
public final class Subscription<State> {
    /// Where this subscription passes the pairs it lets through.
    @usableFromInline var observer: ((State?, State) -> Void)?

    /// A subscription that passes on every pair it is given (the store's own, for each subscriber).
    @usableFromInline init() {}

    /// Gives a pair to this subscription.
    @inlinable func newValues(oldState: State?, newState: State) {
        observer?(oldState, newState)
    }

    /// Sets where this subscription passes the pairs it lets through.
    @inlinable func observe(_ observer: @escaping (State?, State) -> Void) {
        self.observer = observer
    }

    /// A subscription of the part of the state `selector` picks.
    ///
    /// - Complexity: one call of `selector` per state (two with an old state).
    @inlinable
    public func select<Substate>(_ selector: @escaping (State) -> Substate) -> Subscription<Substate> {
        let derived = Subscription<Substate>()
        observe { [derived] old, new in
            if let old {
                derived.newValues(oldState: selector(old), newState: selector(new))
            } else {
                derived.newValues(oldState: nil, newState: selector(new))
            }
        }
        return derived
    }

    /// A subscription of the part of the state at `keyPath`.
    @inlinable
    public func select<Substate>(_ keyPath: KeyPath<State, Substate>) -> Subscription<Substate> {
        select { $0[keyPath: keyPath] }
    }

    /// A subscription that passes a pair on only when `isRepeat(old, new)` is false.
    @inlinable
    public func skipRepeats(_ isRepeat: @escaping (_ old: State, _ new: State) -> Bool) -> Subscription<State> {
        only { old, new in !isRepeat(old, new) }
    }

    /// A subscription that drops the pairs for which `skip(old, new)` is true.
    @inlinable
    public func skip(when skip: @escaping (_ old: State, _ new: State) -> Bool) -> Subscription<State> {
        only { old, new in !skip(old, new) }
    }

    /// A subscription that passes on only the pairs for which `when(old, new)` is true (and the
    /// first value, which has no old state).
    @inlinable
    public func only(when: @escaping (_ old: State, _ new: State) -> Bool) -> Subscription<State> {
        let derived = Subscription<State>()
        observe { [derived] old, new in
            if let old, !when(old, new) { return }
            derived.newValues(oldState: old, newState: new)
        }
        return derived
    }
}

extension Subscription where State: Equatable {
    /// A subscription that passes a pair on only when the new state differs from the old (`!=`).
    @inlinable
    public func skipRepeats() -> Subscription<State> {
        skipRepeats { $0 == $1 }
    }
}
