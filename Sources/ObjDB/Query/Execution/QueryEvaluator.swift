import Foundation

/// Evaluates bound predicates on rows of one transaction, straight from the memory map: values
/// are decoded from row bytes one column at a time and no objects are created.
struct QueryEvaluator {
    /// The transaction the rows belong to.
    let txn: Txn
    /// Where a read that fails while fetching a row or following a link or linking objects leaves
    /// its error (the evaluation cannot throw); the evaluation's owner takes it and reports it.
    /// Not retained: the note belongs to the database (``Database/queryReadFailures``), which
    /// the evaluation's owner holds for as long as the evaluator is used.
    unowned(unsafe) let failure: FailureNote

    init(txn: Txn, failure: FailureNote) {
        self.txn = txn
        self.failure = failure
    }

    /// A predicate compiled into one closure tree, evaluated per row without walking the enum
    /// (and retaining its payloads) again for every row.
    typealias Compiled = (QueryEvaluator, UInt64, RowView) -> Bool

    /// A test of a row alone.
    typealias RowTest = (RowView) -> Bool

    /// Compiles `predicate` in both forms, in one pass: the test of a row alone when every
    /// comparison in it has one (``BoundComparison/columnTest``), and the general form (which wraps
    /// the row test when there is one). Two operands are combined by one closure each; longer
    /// `AND`/`OR` lists loop over their parts, so a predicate with thousands of operands needs
    /// no deep recursion, neither to compile nor to test a row.
    ///
    /// - Complexity: O(n) for n nodes.
    static func compileForms(_ predicate: BoundPredicate) -> (rowTest: RowTest?, compiled: Compiled) {
        switch predicate {
        case .constant(let value):
            return ({ _ in value }, { _, _, _ in value })
        case .and(let operands):
            return combine(operands, and: true)
        case .or(let operands):
            return combine(operands, and: false)
        case .not(let operand):
            let part = compileForms(operand)
            if let test = part.rowTest { return wrap { !test($0) } }
            let compiled = part.compiled
            return (nil, { e, k, r in !compiled(e, k, r) })
        case .comparison(let comparison):
            // The closure keeps the comparison, whose memory the test's constant bytes are.
            if let test = comparison.columnTest { return wrap { row in withExtendedLifetime(comparison) { test.holds(row) } } }
            return (nil, { e, k, r in e.evaluate(comparison, key: k, row: r) })
        }
    }

    /// A row test in both forms.
    private static func wrap(_ test: @escaping RowTest) -> (rowTest: RowTest?, compiled: Compiled) {
        (test, { _, _, r in test(r) })
    }

    /// The conjunction (or disjunction) of `operands`; an empty one is `true` (or `false`).
    ///
    /// One or two operands are combined without an array: a closure taken out of an array is
    /// called through conversion thunks, which costs more than the test itself.
    private static func combine(_ operands: [BoundPredicate], and: Bool) -> (rowTest: RowTest?, compiled: Compiled) {
        switch operands.count {
        case 0:
            return wrap { _ in and }
        case 1:
            return compileForms(operands[0])
        case 2:
            let (first, second) = (compileForms(operands[0]), compileForms(operands[1]))
            if let a = first.rowTest, let b = second.rowTest {
                return wrap(and ? { a($0) && b($0) } : { a($0) || b($0) })
            }
            let (a, b) = (first.compiled, second.compiled)
            return (nil, and ? { e, k, r in a(e, k, r) && b(e, k, r) } : { e, k, r in a(e, k, r) || b(e, k, r) })
        default:
            let parts = operands.map(compileForms)
            let tests = parts.compactMap(\.rowTest)
            if tests.count == parts.count {
                return wrap(and
                    ? { row in
                        for test in tests where !test(row) { return false }
                        return true
                    }
                    : { row in
                        for test in tests where test(row) { return true }
                        return false
                    })
            }
            let compiled = parts.map(\.compiled)
            return (nil, and
                ? { e, k, r in
                    for part in compiled where !part(e, k, r) { return false }
                    return true
                }
                : { e, k, r in
                    for part in compiled where part(e, k, r) { return true }
                    return false
                })
        }
    }

    /// Whether the object `key` with row `row` matches: the reference interpreter, which walks the
    /// predicate for every row and compares every value through ``QueryScalar``, never through a
    /// ``ColumnTest`` or a compiled closure. Queries do not run it; the differential tests and the
    /// internal checks compare the compiled forms and the row kernels with it.
    func matches(_ predicate: BoundPredicate, key: UInt64, row: RowView) -> Bool {
        switch predicate {
        case .constant(let value):
            return value
        case .and(let operands):
            for operand in operands where !matches(operand, key: key, row: row) { return false }
            return true
        case .or(let operands):
            for operand in operands where matches(operand, key: key, row: row) { return true }
            return false
        case .not(let operand):
            return !matches(operand, key: key, row: row)
        case .comparison(let comparison):
            return evaluate(comparison, key: key, row: row, reference: true)
        }
    }

    // MARK: Comparisons

    /// Whether comparison `c` holds for the object `key` with row `row`. The compiled forms call
    /// it for comparisons that are not column tests; the reference interpreter (`reference`)
    /// for every comparison, and then evaluates subqueries with itself too.
    func evaluate(_ c: BoundComparison, key: UInt64, row: RowView, reference: Bool = false) -> Bool {
        if let column = c.simpleColumn { return test(c, QueryScalar(row.column(column), c.type), key: key, row: row) }
        switch c.left {
        case .path(let path):
            guard path.isToMany else {
                var result = false
                _ = walk(path, 0, key, row) { read in
                    result = test(c, QueryScalar(read, path.leafType), key: key, row: row)
                    return false
                }
                return result
            }
            var anyMatch = false
            var allMatch = true
            _ = walk(path, 0, key, row) { read in
                let matched = test(c, QueryScalar(read, path.leafType), key: key, row: row)
                if matched { anyMatch = true } else { allMatch = false }
                // Stop as soon as the answer is known.
                return c.quantifier == .all ? matched : !matched
            }
            switch c.quantifier {
            case .any: return anyMatch
            case .all: return allMatch
            case .none: return !anyMatch
            }
        case .aggregate(let path, let aggregate):
            return aggregateValue(path, aggregate, key: key, row: row) { test(c, $0, key: key, row: row) }
        case .subqueryCount(let path, let inner):
            var count: Int64 = 0
            if let element = path.leafInfo {
                let compiled: Compiled
                if reference {
                    compiled = { evaluator, key, row in evaluator.matches(inner, key: key, row: row) }
                } else if let existing = c.compiledSubquery {
                    compiled = existing
                } else {
                    compiled = Self.compileForms(inner).compiled
                    c.compiledSubquery = compiled
                }
                _ = walk(path, 0, key, row) { read in
                    if case .value(let bytes) = read, bytes.count == 8 {
                        let elementKey = bytes.loadUnaligned(as: UInt64.self)
                        if let elementRow = fetch(element, elementKey), compiled(self, elementKey, elementRow) { count += 1 }
                    }
                    return true
                }
            }
            return test(c, .int(count), key: key, row: row)
        case .constant, .list:
            return false
        }
    }

    /// Tests one left value against the right side of `c`.
    private func test(_ c: BoundComparison, _ value: QueryScalar, key: UInt64, row: RowView) -> Bool {
        if let set = c.inSet { return set.contains(value) }
        switch c.right {
        case .constant(let constant):
            return constant.withScalar { apply(c.op, value, $0, c.options, c.type) }
        case .list(let constants):
            if c.op == .between || c.op == .betweenHalfOpen, constants.count == 2 {
                let upper: QueryOperator = c.op == .between ? .lessOrEqual : .less
                return constants[0].withScalar { low in constants[1].withScalar { high in
                    apply(.greaterOrEqual, value, low, c.options, c.type) && apply(upper, value, high, c.options, c.type)
                } }
            }
            return constants.contains { $0.withScalar { apply(.equal, value, $0, c.options, c.type) } }
        case .path(let path):
            var result = false
            _ = walk(path, 0, key, row) { read in
                result = apply(c.op, value, QueryScalar(read, path.leafType), c.options.union(.rightUnfolded), c.type)
                return false
            }
            return result
        case .aggregate, .subqueryCount:
            return false
        }
    }

    /// `value op other`. String constants arrive folded for the options; `.rightUnfolded` says
    /// the right side is a column value that still needs folding.
    private func apply(
        _ op: QueryOperator, _ value: QueryScalar, _ other: QueryScalar, _ options: QueryStringOptions, _ type: PropertyType
    ) -> Bool {
        let folding = options.subtracting(.rightUnfolded)
        if type == .string, !folding.isEmpty, case .bytes(let left) = value, case .bytes(let right) = other {
            let foldedLeft = Array(QueryText.fold(String(decoding: left, as: UTF8.self), folding).utf8)
            let foldedRight = options.contains(.rightUnfolded)
                ? Array(QueryText.fold(String(decoding: right, as: UTF8.self), folding).utf8) : Array(right)
            return foldedLeft.withUnsafeBytes { l in foldedRight.withUnsafeBytes { r in applyPlain(op, .bytes(l), .bytes(r), type) } }
        }
        return applyPlain(op, value, other, type)
    }

    private func applyPlain(_ op: QueryOperator, _ value: QueryScalar, _ other: QueryScalar, _ type: PropertyType) -> Bool {
        switch op {
        case .equal, .in:
            return equal(value, other)
        case .notEqual:
            return !equal(value, other)
        case .less, .lessOrEqual, .greater, .greaterOrEqual, .between, .betweenHalfOpen:
            guard !value.isNull, !other.isNull, let order = QueryOrder.compare(value, other) else { return false }
            switch op {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        case .contains, .beginsWith, .endsWith, .like:
            guard case .bytes(let text) = value, case .bytes(let pattern) = other else { return false }
            switch op {
            case .contains: return QueryText.contains(text, pattern)
            case .beginsWith: return QueryText.hasPrefix(text, pattern)
            case .endsWith: return QueryText.hasSuffix(text, pattern)
            default:
                return QueryText.like(
                    Array(String(decoding: text, as: UTF8.self).unicodeScalars),
                    Array(String(decoding: pattern, as: UTF8.self).unicodeScalars))
            }
        }
    }

    private func equal(_ a: QueryScalar, _ b: QueryScalar) -> Bool {
        switch (a.isNull, b.isNull) {
        case (true, true): return true
        case (true, false), (false, true): return false
        default: return QueryOrder.compare(a, b) == 0
        }
    }

    // MARK: Aggregates

    /// Computes an aggregate over the values of `path` and passes it to `body`.
    private func aggregateValue(
        _ path: BoundPath, _ aggregate: QueryAggregate, key: UInt64, row: RowView, _ body: (QueryScalar) -> Bool
    ) -> Bool {
        var count: Int64 = 0
        var intSum: Int64 = 0
        var doubleSum = 0.0
        var decimalSum = Decimal(0)
        var numbers = 0
        // Min and max are numeric or dates (the binder checks), so `best` never points into a row.
        var best: QueryScalar = .null
        _ = walk(path, 0, key, row) { read in
            count += 1
            let value = QueryScalar(read, path.leafType)
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
        switch aggregate {
        case .count: return body(.int(count))
        case .sum:
            switch path.leafType {
            case .int: return body(.int(intSum))
            case .decimal: return body(.decimal(decimalSum))
            default: return body(.double(doubleSum))
            }
        case .average:
            guard numbers > 0 else { return body(.null) }
            if path.leafType == .decimal { return body(.decimal(decimalSum / Decimal(numbers))) }
            return body(.double(doubleSum / Double(numbers)))
        case .min, .max:
            return body(best)
        }
    }

    // MARK: Key paths

    /// Calls `body` with every value `path` reaches from object `key` (row `row`), from step
    /// `index` on; `body` returns `false` to stop. Returns `false` if it was stopped.
    ///
    /// A to-one link that is `nil` before the end of the path yields one null value.
    /// The first value `path` reaches from the object `key` with row `row`, or null.
    func firstValue(_ path: BoundPath, _ key: UInt64, _ row: RowView) -> QueryScalar {
        if let column = path.directColumn, case .column(.value) = path.steps[0].kind {
            return QueryScalar(row.column(column), path.leafType)
        }
        var value = QueryScalar.null
        _ = walk(path, 0, key, row) { read in
            value = QueryScalar(read, path.leafType)
            return false
        }
        return value
    }

    func walk(_ path: BoundPath, _ index: Int, _ key: UInt64, _ row: RowView, _ body: (ColumnRead) -> Bool) -> Bool {
        let step = path.steps[index]
        let last = index == path.steps.count - 1
        switch step.kind {
        case .column(let kind):
            let read = row.column(step.column)
            switch kind {
            case .value:
                return body(read)
            case .link:
                if last { return body(read) }
                guard case .value(let bytes) = read, bytes.count == 8, let target = step.next else { return body(.null) }
                let targetKey = bytes.loadUnaligned(as: UInt64.self)
                guard let next = fetch(target, targetKey) else { return body(.null) }
                return walk(path, index + 1, targetKey, next, body)
            case .list, .set:
                let view = SequenceView(read)
                for i in 0..<view.count where !element(view.element(i), path, index, step, last, body) { return false }
                return true
            case .map:
                let values = MapView(read).values
                for i in 0..<values.count where !element(values.element(i), path, index, step, last, body) { return false }
                return true
            }
        case .backlinks(_, let originColumn):
            guard let origin = step.next else { return true }
            let origins: [UInt64]
            do {
                // Once per link, as Realm counts linking objects.
                origins = try origin.linkingKeys(to: key, through: originColumn, txn: txn)
            } catch {
                failure.note(error, path: txn.environment.path)
                return true
            }
            for originKey in origins {
                if last {
                    var target = originKey
                    if !withUnsafeBytes(of: &target, { body(.value($0)) }) { return false }
                    continue
                }
                guard let next = fetch(origin, originKey) else { continue }
                if !walk(path, index + 1, originKey, next, body) { return false }
            }
            return true
        }
    }

    /// One element of a collection step: the value itself at the end of the path, else the
    /// object it names, followed further.
    private func element(
        _ read: ColumnRead, _ path: BoundPath, _ index: Int, _ step: BoundPath.Step, _ last: Bool, _ body: (ColumnRead) -> Bool
    ) -> Bool {
        if last { return body(read) }
        guard case .value(let bytes) = read, bytes.count == 8, let target = step.next else { return body(.null) }
        let targetKey = bytes.loadUnaligned(as: UInt64.self)
        guard let next = fetch(target, targetKey) else { return true }
        return walk(path, index + 1, targetKey, next, body)
    }

    /// The row of object `key` of `info`.
    func fetch(_ info: ClassInfo, _ key: UInt64) -> RowView? {
        let found: UnsafeRawBufferPointer?
        do {
            found = try txn.get(info.objectsTable, key: key)
        } catch {
            failure.note(error, path: txn.environment.path)
            return nil
        }
        guard let bytes = found else { return nil }
        if let row = RowView(bytes) { return row }
        failure.note(
            ObjDBError(
                .corruptFile, "The row of object key \(key) of '\(info.name)' is damaged: its \(bytes.count) bytes are not a row; run verify() for a full report",
                path: txn.environment.path),
            path: txn.environment.path)
        return .damaged
    }
}

extension QueryStringOptions {
    /// Internal: the right side is a column value, not a pre-folded constant.
    static let rightUnfolded = QueryStringOptions(rawValue: 0x80)
}
