import Foundation

/// `min`, `max`, `sum` and `average` of a property over the matching objects, computed from the
/// rows without creating objects. `nil` values are ignored; `min`, `max` and `average` of no
/// values are `nil`, `sum` of no values is zero.
extension Results {
    /// The smallest value of a property: `people.min(of: \.age)`.
    public func min<T: PersistableType & Comparable>(of keyPath: KeyPath<Element, T>) -> T? {
        extreme(KeyPathNames.require(keyPath, "min(of:)"), smallest: true)
    }

    /// The smallest value of an optional property, ignoring `nil`.
    public func min<T: NonOptionalPersistableType & Comparable>(of keyPath: KeyPath<Element, T?>) -> T? {
        extreme(KeyPathNames.require(keyPath, "min(of:)"), smallest: true)
    }

    /// The largest value of a property: `people.max(of: \.age)`.
    public func max<T: PersistableType & Comparable>(of keyPath: KeyPath<Element, T>) -> T? {
        extreme(KeyPathNames.require(keyPath, "max(of:)"), smallest: false)
    }

    /// The largest value of an optional property, ignoring `nil`.
    public func max<T: NonOptionalPersistableType & Comparable>(of keyPath: KeyPath<Element, T?>) -> T? {
        extreme(KeyPathNames.require(keyPath, "max(of:)"), smallest: false)
    }

    /// The smallest value of a property named by a string (or a key path through to-one links):
    /// `people.min(ofProperty: "age") as Int?`.
    public func min<T: NonOptionalPersistableType>(ofProperty name: String) -> T? { extreme(name, smallest: true) }

    /// The largest value of a property named by a string: `people.max(ofProperty: "age") as Int?`.
    public func max<T: NonOptionalPersistableType>(ofProperty name: String) -> T? { extreme(name, smallest: false) }

    /// The sum of a numeric property: `people.sum(of: \.age)`.
    public func sum<T: PersistableType & AddableType>(of keyPath: KeyPath<Element, T>) -> T {
        sum(ofProperty: KeyPathNames.require(keyPath, "sum(of:)"))
    }

    /// The sum of an optional numeric property, ignoring `nil`.
    public func sum<T: NonOptionalPersistableType & AddableType>(of keyPath: KeyPath<Element, T?>) -> T {
        sum(ofProperty: KeyPathNames.require(keyPath, "sum(of:)"))
    }

    /// The average of an optional numeric property, ignoring `nil`.
    public func average<T: NonOptionalPersistableType & AddableType>(of keyPath: KeyPath<Element, T?>) -> Double? {
        average(ofProperty: KeyPathNames.require(keyPath, "average(of:)"))
    }

    /// The sum of a numeric property named by a string. An integer sum that does not fit the
    /// property's type is clamped to its range (as `Int8(clamping:)` does) rather than trapping.
    public func sum<T: PersistableType & AddableType>(ofProperty name: String) -> T {
        let total = totals(name)
        switch total.type {
        case .int:
            var bytes: [UInt8] = []
            ColumnCodec.appendInteger(total.int, to: &bytes)
            return bytes.withUnsafeBytes { T._objdbDecode($0) } ?? T._objdbDefaultValue()
        case .decimal:
            return convert(total.decimal, to: T.self) ?? T._objdbDefaultValue()
        default:
            return convert(total.double, to: T.self) ?? convert(Float(total.double), to: T.self) ?? T._objdbDefaultValue()
        }
    }

    /// The average of a numeric property, `nil` without values: `people.average(of: \.age)`.
    public func average<T: PersistableType & AddableType>(of keyPath: KeyPath<Element, T>) -> Double? {
        average(ofProperty: KeyPathNames.require(keyPath, "average(of:)"))
    }

    /// The average of a numeric property named by a string, `nil` without values.
    public func average(ofProperty name: String) -> Double? {
        let total = totals(name)
        guard total.count > 0 else { return nil }
        if total.type == .decimal { return NSDecimalNumber(decimal: total.decimal / Decimal(total.count)).doubleValue }
        return total.double / Double(total.count)
    }

    // MARK: Computing

    /// The path of an aggregated property; an unknown or to-many one is a programmer error.
    private func aggregatePath(_ name: String, numeric: Bool) -> BoundPath? {
        let checked: BoundPath
        do {
            checked = try checkingBinder().bindPath(QueryKeyPath(components: name.split(separator: ".").map(String.init)))
        } catch {
            objdbFatal("Results aggregate: \(error)")
        }
        objdbPrecondition(!checked.isToMany, "Results aggregate: '\(name)' is to-many; aggregate over a property or a to-one link's property")
        objdbPrecondition(!numeric || checked.leafType.isNumeric, "Results aggregate: '\(name)' is \(checked.leafType), not a number")
        // A class (or a linked class) the file does not have yet has no values to aggregate.
        guard storedClassInfo != nil else { return nil }
        do {
            return try binder().bindPath(QueryKeyPath(components: name.split(separator: ".").map(String.init)))
        } catch {
            // Checked above with the models, so the file's schema changed since.
            database.reportReadFailure(error, while: "Binding the aggregated property '\(name)'")
            return nil
        }
    }

    /// Calls `body` with every non-nil value of `path` over the matching objects.
    private func forEachValue(_ path: BoundPath, _ body: (ColumnRead) -> Void) {
        guard let info = classInfo, let txn = database.readableTxn() else { return }
        let evaluator = QueryEvaluator(txn: txn, failure: database.queryReadFailures)
        for key in objectKeys() {
            guard let row = evaluator.fetch(info, key) else { continue }
            _ = evaluator.walk(path, 0, key, row) { read in
                if case .value = read { body(read) }
                return false
            }
        }
        if let failure = evaluator.failure.take() { database.reportReadFailure(failure) }
    }

    private func extreme<T: PersistableType>(_ name: String, smallest: Bool) -> T? {
        guard let path = aggregatePath(name, numeric: false) else { return nil }
        var best: [UInt8]?
        forEachValue(path) { read in
            let value = path.scalar(read)
            let better: Bool
            if let current = best {
                let order = current.withUnsafeBytes { QueryOrder.compare(value, QueryScalar(.value($0), path.leafType)) }
                better = order.map { smallest ? $0 < 0 : $0 > 0 } ?? false
            } else {
                better = !(value.doubleValue?.isNaN ?? false)
            }
            if better, case .value(let bytes) = read { best = Array(bytes) }
        }
        return best?.withUnsafeBytes { T._objdbDecode($0) }
    }

    /// Count, and sums as integer, double and decimal, of a numeric property.
    private func totals(_ name: String) -> (type: PropertyType, count: Int, int: Int64, double: Double, decimal: Decimal) {
        var result: (type: PropertyType, count: Int, int: Int64, double: Double, decimal: Decimal) = (.int, 0, 0, 0, 0)
        guard let path = aggregatePath(name, numeric: true) else { return result }
        result.type = path.leafType
        forEachValue(path) { read in
            result.count += 1
            switch path.scalar(read) {
            case .int(let v):
                // Saturate instead of wrapping: the result is clamped to the type's range anyway.
                let (sum, overflow) = result.int.addingReportingOverflow(v)
                result.int = overflow ? (v > 0 ? .max : .min) : sum
                result.double += Double(v)
                result.decimal += Decimal(v)
            case .double(let v):
                result.double += v
            case .decimal(let v):
                result.decimal += v
            default:
                break
            }
        }
        return result
    }
}
