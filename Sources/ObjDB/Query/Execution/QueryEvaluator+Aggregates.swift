import Foundation

extension QueryEvaluator {
    /// The aggregate of the values one group of `path` holds: those reached from the object
    /// `key` (row `row`) that holds the path's last collection (``BoundPath/groupStep``). A `nil`
    /// row is an empty group (a nil link before the collection): `@count` and `@sum` are 0,
    /// `@min`, `@max` and `@avg` are null, as in Realm.
    func aggregateValue(_ path: BoundPath, _ aggregate: QueryAggregate, _ key: UInt64, _ row: RowView?) -> QueryScalar {
        if path.groupStep == nil, let row { return size(firstValue(path, key, row), path.leafType) }
        if path.leafType == .mixed, aggregate != .count { return mixedAggregateValue(path, aggregate, key, row) }
        var count: Int64 = 0
        var intSum: Int64 = 0
        var doubleSum = 0.0
        var decimalSum = Decimal(0)
        var numbers = 0
        // Min and max are numeric or dates (the binder checks), so `best` never points into a row.
        var best: QueryScalar = .null
        if let row, let step = path.groupStep {
            _ = walk(path, step, key, row) { read in
                count += 1
                let value = path.scalar(read)
                guard !value.isNull else { return true }
                switch aggregate {
                case .count:
                    break
                case .sum, .average:
                    numbers += 1
                    switch value {
                    case .int(let v): intSum &+= v; doubleSum += Double(v); decimalSum += Decimal(v)
                    case .double(let v): doubleSum += v; decimalSum += v.isFinite ? Decimal(v) : 0
                    case .decimal(let v): decimalSum += v; doubleSum += NSDecimalNumber(decimal: v).doubleValue
                    default: break
                    }
                case .min, .max:
                    let better: Bool
                    if best.isNull {
                        better = true
                    } else if let order = QueryOrder.compare(value, best) {
                        better = aggregate == .min ? order < 0 : order > 0
                    } else {
                        better = false
                    }
                    if better { best = value }
                }
                return true
            }
        }
        switch aggregate {
        case .count: return .int(count)
        case .sum:
            switch path.leafType {
            case .int:
                #if OBJDB_INTERNAL_CHECKS
                if InjectedFaults.active.contains(.sumOffByOne) { return .int(intSum &+ 1) }  // for the check's own test
                #endif
                return .int(intSum)
            case .decimal: return .decimal(decimalSum)
            default: return .double(doubleSum)
            }
        case .average:
            guard numbers > 0 else { return .null }
            if path.leafType == .decimal { return .decimal(decimalSum / Decimal(numbers)) }
            return .double(doubleSum / Double(numbers))
        case .min, .max:
            return best
        }
    }

    /// `@sum`, `@avg`, `@min` or `@max` of one group of mixed values (``MixedAggregate``): the
    /// numbers added as decimals; the least or greatest value in Realm's order of types. nil and
    /// NaN are left out. A string or data that `@min`/`@max` return points into the row, read in
    /// this same transaction.
    private func mixedAggregateValue(_ path: BoundPath, _ aggregate: QueryAggregate, _ key: UInt64, _ row: RowView?) -> QueryScalar {
        var sum = Decimal(0)
        var numbers = 0
        var best: QueryScalar = .null
        if let row, let step = path.groupStep {
            _ = walk(path, step, key, row) { read in
                let value = path.scalar(read)
                let term: Decimal?
                switch value {
                case .null: return true
                case .int(let v): term = Decimal(v)
                case .double(let v): if v.isNaN { return true }; term = MixedAggregate.decimal(v)
                case .decimal(let v): if v.isNaN { return true }; term = v
                default: term = nil
                }
                switch aggregate {
                case .min, .max:
                    let order = best.isNull ? 0 : QueryOrder.sortCompare(value, best)
                    if best.isNull || (aggregate == .min ? order < 0 : order > 0) { best = value }
                default:
                    if let term {
                        sum += term
                        numbers += 1
                    }
                }
                return true
            }
        }
        switch aggregate {
        case .sum: return .decimal(sum)
        case .average: return numbers > 0 ? .decimal(sum / Decimal(numbers)) : .null
        default: return best
        }
    }

    /// `@count` (`@size`) of a single value: the UTF-8 length of a string or the length of
    /// data, as Realm counts them (0 for nil); 1 or 0 for a to-one link. Of a mixed value, also
    /// the elements of a list or dictionary it holds, and nil for its other values (nil too),
    /// as realm-core's `@size` of a `Mixed`.
    private func size(_ value: QueryScalar, _ type: PropertyType) -> QueryScalar {
        switch value {
        case .bytes(let bytes), .tagged(.data, let bytes): .int(Int64(bytes.count))
        case .object: .int(1)
        case .tagged(.list, let payload): .int(Int64(SequenceView(payload).count))
        case .tagged(.dictionary, let payload): .int(Int64(MapView(.value(payload)).count))
        default: type == .mixed ? .null : .int(0)
        }
    }
}
