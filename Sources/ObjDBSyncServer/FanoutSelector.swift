import Foundation
import ObjDB

/// Which of many views of one ``FanoutTemplate`` select a row, found by looking the row's values
/// up rather than by testing the row against each view.
///
/// The selector is built once per fan-out round from the views' slot values. Its plan follows
/// the template:
/// - `property == slot` and `property IN {slots}` (without `[c]`) are a hash lookup of the
///   row's value among the views' values (see ``LookupKey``: a view whose value has no key,
///   such as a decimal or NaN, is tested);
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
    /// Each view's slot values.
    let slots: [[String: SyncValue]]
    /// How the template's views are found (``outline`` says it in words).
    private let plan: Plan

    /// A selector for views of `template` with these slot values.
    /// - Complexity: O(*v* × *s*) for *v* views and *s* slots.
    init(template: FanoutTemplate, slots: [[String: SyncValue]]) {
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

        /// The plan in words (``FanoutSelector/outline``).
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

        /// Whether the plan finds fewer views than all without testing each.
        var narrows: Bool {
            switch self {
            case .lookup, .filtered, .union, .none: true
            case .every, .scan: false
            }
        }
    }

    /// The plan of a template's node over the views' slot values.
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
            // The candidates of a lookup that tests no view, else of any operand that narrows.
            let pure = plans.first { plan in
                if case .lookup(_, _, let others, _) = plan { return others.isEmpty }
                return false
            }
            guard let narrowing = pure ?? plans.first(where: \.narrows) else { return .scan(node) }
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

    /// The views a plan finds for a row.
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
/// finds the values equal without `[c]` (``PortablePredicate/matches(_:variables:)``).
///
/// - Strings are keyed by their UTF-8 bytes (the comparison is byte-wise; Swift's `==` would
///   equate canonically equivalent strings).
/// - Numbers compare across types (`3 == 3.0`, `-0.0 == 0`), so an integral number is keyed as
///   its integer. A comparison's double is keyed only below 2⁵³ in magnitude, and a decimal
///   operand never: the evaluation compares a decimal with a double through the double's
///   shortest text, which is exact for those doubles only. A row's value is keyed wherever its
///   integer is exact. NaN and fractions have no key: no keyed value can equal them.
/// - Dates are keyed by their seconds (`-0` as `0`), not NaN.
///
/// A comparison whose operand has no key is tested for each view instead.
enum LookupKey: Hashable {
    /// `nil`.
    case null
    /// A Boolean.
    case bool(Bool)
    /// A string's UTF-8 bytes.
    case string([UInt8])
    /// Bytes.
    case data(Data)
    /// A UUID.
    case uuid(UUID)
    /// An ObjectId.
    case objectId(ObjectId)
    /// An integral number.
    case integer(Int64)
    /// A date's seconds since 2001, as bits.
    case date(UInt64)

    /// The key of a comparison's operand (a link operand has none: it equals no row value).
    init?(operand: SyncValue) {
        switch operand {
        case .int, .double, .float, .decimal: self.init(number: operand, doublesBelow: 0x1p53, decimals: false)
        default: self.init(plain: operand)
        }
    }

    /// The key of a row's value (a link compares as its primary key).
    init?(row: SyncValue) {
        switch row {
        case .link(let key): self.init(row: key)
        case .int, .double, .float, .decimal: self.init(number: row, doublesBelow: 0x1p63, decimals: true)
        default: self.init(plain: row)
        }
    }

    /// The key of a number: its integer, for a double or float below `limit` in magnitude, and
    /// for a decimal if `decimals`.
    private init?(number: SyncValue, doublesBelow limit: Double, decimals: Bool) {
        let integer: Int64?
        switch number {
        case .int(let i): integer = i
        case .double(let d): integer = Self.integer(d, below: limit)
        case .float(let f): integer = Self.integer(Double(f), below: limit)
        case .decimal(let x): integer = decimals ? Self.integer(x) : nil
        default: integer = nil
        }
        guard let integer else { return nil }
        self = .integer(integer)
    }

    /// The key of a value that is not a number.
    private init?(plain value: SyncValue) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .string(let s): self = .string(Array(s.utf8))
        case .data(let d): self = .data(d)
        case .uuid(let u): self = .uuid(u)
        case .objectId(let o): self = .objectId(o)
        case .date(let d):
            let seconds = d.timeIntervalSinceReferenceDate
            guard !seconds.isNaN else { return nil }
            self = .date((seconds == 0 ? 0 : seconds).bitPattern)
        default: return nil
        }
    }

    /// The integer a double equals, if it is integral and below `limit` in magnitude.
    private static func integer(_ d: Double, below limit: Double) -> Int64? {
        guard d.isFinite, d == d.rounded(.towardZero), d >= -limit, d < limit else { return nil }
        return Int64(d)
    }

    /// The integer a decimal equals, if it is integral and fits.
    private static func integer(_ x: Decimal) -> Int64? {
        guard x.isFinite else { return nil }
        var value = x
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, 0, .plain)
        guard rounded == x else { return nil }
        return Int64(rounded.description)
    }
}
