import Foundation
import ObjDB

/// Which of many views of one ``FanoutTemplate`` select a row, found by looking the row's values
/// up rather than by testing the row against each view.
///
/// The selector is built once per fan-out round from the views' slot values. Its plan follows
/// the template:
/// - `property == slot` and `property IN {slots}` (without `[c]`) are a hash lookup of the
///   row's value among the views' values;
/// - `AND` takes its candidates from an operand that looks up, then tests the whole `AND` on
///   those views only;
/// - `OR` of operands that look up is the union of theirs;
/// - anything else (`<`, `BEGINSWITH`, `NOT`, `[c]`, …) tests each view, as the slow twin does.
///
/// So `owner == $user OR shared == true` costs two lookups per changed row whatever the number
/// of users, instead of one evaluation per connection. The result is exactly the views whose
/// predicate ``PortablePredicate/matches(_:variables:)`` holds for the row; under
/// `OBJDB_INTERNAL_CHECKS` each round checks it against that evaluation (``FeedFanout``).
struct FanoutSelector {
    /// The template's predicate.
    let template: PortablePredicate
    /// Each view's slot values.
    let slots: [[String: SyncValue]]
    private let plan: Plan

    /// A selector for views of `template` with these slot values.
    /// - Complexity: O(*v* × *s*) for *v* views and *s* slots.
    init(template: FanoutTemplate, slots: [[String: SyncValue]]) {
        self.template = template.predicate
        self.slots = slots
        self.plan = Self.plan(template.predicate, slots: slots)
    }

    /// The indexes (into `slots`) of the views that select a row, without repeats, in no
    /// particular order.
    /// - Parameter value: the row's value of a property, as for
    ///   ``PortablePredicate/matches(_:variables:)``.
    /// - Complexity: O(1) per lookup plus O(*k*) for the *k* views tested or found.
    func selecting(_ value: (String) -> SyncValue?) -> [Int] {
        select(plan, value)
    }

    /// The plan, in words: `union(lookup(owner), lookup(shared))` for `owner == $user OR
    /// shared == true` (for tests and logs).
    var outline: String { plan.outline }

    private indirect enum Plan {
        /// Every view.
        case every
        /// No view.
        case none
        /// The views whose values of the comparison's slots include the row's value (`keyed`),
        /// and those whose values cannot be looked up, tested.
        case lookup(property: String, keyed: [LookupKey: [Int]], others: [Int], node: PortablePredicate)
        /// The candidates of a plan, tested against the node.
        case filtered(Plan, node: PortablePredicate)
        /// The union of plans.
        case union([Plan])
        /// Every view, tested against the node.
        case scan(PortablePredicate)

        var outline: String {
            switch self {
            case .every: "every"
            case .none: "none"
            case .lookup(let property, _, let others, _): others.isEmpty ? "lookup(\(property))" : "lookup(\(property), testing \(others.count))"
            case .filtered(let plan, _): "filtered(\(plan.outline))"
            case .union(let plans): "union(" + plans.map(\.outline).joined(separator: ", ") + ")"
            case .scan: "scan"
            }
        }

        var narrows: Bool {
            switch self {
            case .lookup, .filtered, .union, .none: true
            case .every, .scan: false
            }
        }
    }

    private static func plan(_ node: PortablePredicate, slots: [[String: SyncValue]]) -> Plan {
        switch node {
        case .constant(let holds): return holds ? .every : .none
        case .comparison(let c) where (c.op == .equal || c.op == .in) && !c.caseInsensitive:
            var keyed: [LookupKey: [Int]] = [:]
            var others: [Int] = []
            for (view, values) in slots.enumerated() {
                let keys = c.operands.map { operand -> LookupKey? in
                    guard case .variable(let slot) = operand, let value = values[slot] else { return nil }
                    return LookupKey(operand: value)
                }
                guard keys.allSatisfy({ $0 != nil }) else {
                    others.append(view)
                    continue
                }
                for key in Set(keys.compactMap { $0 }) { keyed[key, default: []].append(view) }
            }
            return .lookup(property: c.property, keyed: keyed, others: others, node: node)
        case .and(let operands):
            let plans = operands.map { plan($0, slots: slots) }
            if plans.contains(where: { if case .none = $0 { true } else { false } }) { return .none }
            if plans.allSatisfy({ if case .every = $0 { true } else { false } }) { return .every }
            guard let narrowing = plans.first(where: \.narrows) else { return .scan(node) }
            return .filtered(narrowing, node: node)
        case .or(let operands):
            let plans = operands.map { plan($0, slots: slots) }
            if plans.contains(where: { if case .every = $0 { true } else { false } }) { return .every }
            guard plans.allSatisfy(\.narrows) else { return .scan(node) }
            return .union(plans)
        default:
            return .scan(node)
        }
    }

    private func select(_ plan: Plan, _ value: (String) -> SyncValue?) -> [Int] {
        switch plan {
        case .every: return Array(slots.indices)
        case .none: return []
        case .lookup(let property, let keyed, let others, let node):
            var found: [Int] = []
            if let v = value(property), let key = LookupKey(row: v) { found = keyed[key] ?? [] }
            for view in others where node.matchesBound(value, variables: slots[view]) { found.append(view) }
            return found
        case .filtered(let candidates, let node):
            return select(candidates, value).filter { node.matchesBound(value, variables: slots[$0]) }
        case .union(let plans):
            var seen = Set<Int>()
            var found: [Int] = []
            for p in plans {
                for view in select(p, value) where seen.insert(view).inserted { found.append(view) }
            }
            return found
        case .scan(let node):
            return slots.indices.filter { node.matchesBound(value, variables: slots[$0]) }
        }
    }
}

/// A value as the key of an equality lookup: equal keys exactly when the predicate evaluation
/// finds the values equal without `[c]`. Strings are keyed by their UTF-8 bytes (the
/// comparison is byte-wise; Swift's `==` would equate canonically equivalent strings). Numbers
/// and dates are not keyed (an integer equals a double of the same value, `-0.0` equals `0.0`):
/// views comparing with them are tested instead.
enum LookupKey: Hashable {
    case null
    case bool(Bool)
    case string([UInt8])
    case data(Data)
    case uuid(UUID)
    case objectId(ObjectId)

    /// The key of a comparison's operand (a link operand is none: it equals no row value).
    init?(operand: SyncValue) {
        switch operand {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .string(let s): self = .string(Array(s.utf8))
        case .data(let d): self = .data(d)
        case .uuid(let u): self = .uuid(u)
        case .objectId(let o): self = .objectId(o)
        default: return nil
        }
    }

    /// The key of a row's value (a link compares as its primary key).
    init?(row: SyncValue) {
        if case .link(let key) = row {
            self.init(operand: key)
        } else {
            self.init(operand: row)
        }
    }
}
