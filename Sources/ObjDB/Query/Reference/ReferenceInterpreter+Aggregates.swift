import Foundation

/// Aggregates, SUBQUERY counts and arithmetic, computed from the values gathered in arrays.
extension ReferenceInterpreter {
    /// The aggregate of one group of `path` (Docs/Queries.md, "Aggregates"): `@count` counts
    /// every value, nil too; `@sum` of nothing is 0; `@min`, `@max` and `@avg` leave nil out and
    /// are nil without values. On a to-one path, `@count` (`@size`) is the length of a string or
    /// data in UTF-8 bytes, 1 for a link to an object, 0 for nil; of a mixed value, the elements
    /// of a list or dictionary it holds, and nil for what has no size (nil too).
    func aggregateValue(_ path: BoundPath, _ aggregate: QueryAggregate, _ group: StoredObject?) -> ReferenceValue {
        guard groupStart(path) != nil else {
            // Of a mixed value, the length of a string or data, the elements of a list or
            // dictionary, or nil (realm-core's `@size` of a `Mixed`).
            let other: ReferenceValue = path.leafType == .mixed ? .null : .integer(0)
            guard let group, let value = values(path, from: group).first else { return other }
            switch value {
            case .bytes(let bytes), .tagged(.data, let bytes): return .integer(Int64(bytes.count))
            case .object: return .integer(1)
            case .tagged(let tag, let payload) where tag == .list || tag == .dictionary: return nestedSize(tag, payload)
            default: return other
            }
        }
        let all = groupValues(path, group)
        let present = all.filter { !$0.isNull }
        if path.leafType == .mixed, aggregate != .count { return mixedAggregateValue(present, aggregate) }
        switch aggregate {
        case .count:
            return .integer(Int64(all.count))
        case .sum:
            switch path.leafType {
            case .int: return .integer(present.reduce(0) { sum, value in sum &+ integer(value) })
            case .decimal: return .decimal(present.reduce(Decimal(0)) { $0 + decimal($1) })
            default: return .double(present.reduce(0.0) { $0 + ($1.number ?? 0) })
            }
        case .average:
            if present.isEmpty { return .null }
            if path.leafType == .decimal { return .decimal(present.reduce(Decimal(0)) { $0 + decimal($1) } / Decimal(present.count)) }
            return .double(present.reduce(0.0) { $0 + ($1.number ?? 0) } / Double(present.count))
        case .min, .max:
            // The first value that no later one beats (a NaN is beaten by nothing).
            var best: ReferenceValue?
            for value in present {
                guard let current = best else {
                    best = value
                    continue
                }
                if let order = ReferenceValue.order(value, current), aggregate == .min ? order < 0 : order > 0 { best = value }
            }
            return best ?? .null
        }
    }

    /// The number of elements of a list or dictionary a mixed value holds (`value.@size`), by
    /// `MixedValue`'s own decoding; nil for bytes it refuses.
    private func nestedSize(_ tag: MixedFormat.Tag, _ payload: [UInt8]) -> ReferenceValue {
        payload.withUnsafeBytes { raw -> ReferenceValue in
            switch tag {
            case .list: SequenceView.wellFormedCount(raw).map { .integer(Int64($0)) } ?? .null
            case .dictionary: if case .success(let map) = MapView.checked(raw) { .integer(Int64(map.count)) } else { .null }
            default: .null
            }
        }
    }

    /// `@sum`, `@avg`, `@min` or `@max` of the non-nil values of one group of mixed values
    /// (Docs/Queries.md, "Mixed values"): the numbers but NaN added as decimals, their sum divided
    /// by their count; the first value no later one beats in Realm's order of types, NaN left out.
    private func mixedAggregateValue(_ values: [ReferenceValue], _ aggregate: QueryAggregate) -> ReferenceValue {
        let kept = values.filter { !$0.isNaN }
        switch aggregate {
        case .min, .max:
            var best: ReferenceValue?
            for value in kept {
                guard let current = best else {
                    best = value
                    continue
                }
                let order = ReferenceValue.sortOrder(value, current)
                if aggregate == .min ? order < 0 : order > 0 { best = value }
            }
            return best ?? .null
        default:
            let terms: [Decimal] = kept.compactMap { value in
                switch value {
                case .integer(let v): Decimal(v)
                case .double(let v): MixedAggregate.decimal(v)
                case .decimal(let v): v
                default: nil
                }
            }
            let sum = terms.reduce(Decimal(0), +)
            if aggregate == .sum { return .decimal(sum) }
            return terms.isEmpty ? .null : .decimal(sum / Decimal(terms.count))
        }
    }

    /// An integer value (0 for anything else).
    private func integer(_ value: ReferenceValue) -> Int64 {
        if case .integer(let v) = value { return v }
        return 0
    }

    /// A decimal value (0 for anything else).
    private func decimal(_ value: ReferenceValue) -> Decimal {
        if case .decimal(let v) = value { return v }
        return 0
    }

    /// `SUBQUERY(path, $x, inner).@count` for `object`: how many of the objects `path` reaches
    /// match `inner`.
    func subqueryCount(_ path: BoundPath, _ inner: BoundPredicate, _ object: StoredObject) -> Int64 {
        guard let element = path.steps.last?.next else { return 0 }
        var count: Int64 = 0
        for case .object(let key) in values(path, from: object) {
            if let found = fetch(element, key), holds(inner, found) { count += 1 }
        }
        return count
    }

    /// The value of a side of a comparison in arithmetic (Docs/Queries.md, "Arithmetic"), as a
    /// `Double`; nil when any number in it is nil (or is no number). A key path gives its first
    /// value, an aggregate its first group's.
    func number(_ operand: BoundOperand, _ object: StoredObject) -> ReferenceValue {
        let result: Double?
        switch operand {
        case .arithmetic(let op, let left, let right):
            guard case .double(let x) = number(left, object), case .double(let y) = number(right, object) else { return .null }
            switch op {
            case .add: result = x + y
            case .subtract: result = x - y
            case .multiply: result = x * y
            case .divide: result = x / y
            }
        case .constant(let constant):
            result = ReferenceValue(constant).number
        case .path(let path):
            result = values(path, from: object).first?.number
        case .aggregate(let path, let aggregate):
            result = aggregateValue(path, aggregate, groups(path, object).first ?? nil).number
        case .subqueryCount(let path, let inner):
            result = Double(subqueryCount(path, inner, object))
        case .list:
            result = nil
        }
        return result.map { .double($0) } ?? .null
    }
}
