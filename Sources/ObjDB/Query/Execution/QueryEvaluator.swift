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

    // MARK: Comparisons

    /// Whether comparison `c` holds for the object `key` with row `row`. The compiled forms call
    /// it for comparisons that are not column tests.
    func evaluate(_ c: BoundComparison, key: UInt64, row: RowView) -> Bool {
        if let column = c.simpleColumn { return test(c, QueryScalar(row.column(column), c.type), key: key, row: row) }
        switch c.left {
        case .path(let path):
            guard path.isToMany else {
                var result = false
                _ = walk(path, 0, key, row) { read in
                    result = test(c, path.scalar(read), key: key, row: row)
                    return false
                }
                return result
            }
            // The quantifier applies to the last collection of the path; any object holding it
            // may match (Realm's rule for paths through several collections).
            if c.listFirst, case .list(let constants) = c.right {
                return anyGroup(path, key, row) { groupKey, groupRow in listFirstHolds(c, constants, path, groupKey, groupRow) }
            }
            return anyGroup(path, key, row) { groupKey, groupRow in
                quantified(c.quantifier, path, groupKey, groupRow) { test(c, $0, key: key, row: row) }
            }
        case .aggregate(let path, let aggregate):
            return anyGroup(path, key, row) { groupKey, groupRow in
                test(c, aggregateValue(path, aggregate, groupKey, groupRow), key: key, row: row)
            }
        case .subqueryCount(let path, let inner):
            return test(c, .int(subqueryCount(path, inner, key, row, c, right: false)), key: key, row: row)
        case .arithmetic:
            return test(c, number(c.left, c, right: false, key, row), key: key, row: row)
        case .constant, .list:
            return false
        }
    }

    /// Whether `test` holds for some, every or no value (by `quantifier`) of the group of the
    /// to-many `path` held by the object `groupKey` (row `groupRow`; `nil`: an empty group).
    private func quantified(
        _ quantifier: QueryQuantifier, _ path: BoundPath, _ groupKey: UInt64, _ groupRow: RowView?, _ test: (QueryScalar) -> Bool
    ) -> Bool {
        var anyMatch = false
        var allMatch = true
        if let groupRow, let step = path.groupStep {
            _ = walk(path, step, groupKey, groupRow) { read in
                let matched = test(path.scalar(read))
                if matched { anyMatch = true } else { allMatch = false }
                // Stop as soon as the answer is known.
                return quantifier == .all ? matched : !matched
            }
        }
        switch quantifier {
        case .any: return anyMatch
        case .all: return allMatch
        case .none: return !anyMatch
        }
    }

    /// `c` with its list written on the left (``BoundComparison/listFirst``), for one group of
    /// `path`: the list's quantifier over `constants` outside, the key path's over the group's
    /// values inside (`ALL {5.5, 4.0} IN ANY items.price`: each value is some price).
    private func listFirstHolds(_ c: BoundComparison, _ constants: [Comparand], _ path: BoundPath, _ groupKey: UInt64, _ groupRow: RowView?) -> Bool {
        let op: QueryOperator = c.op == .in ? .equal : c.op
        func holds(_ constant: Comparand) -> Bool {
            constant.withScalar { other in quantified(c.quantifier, path, groupKey, groupRow) { apply(op, $0, other, c.options, c.type) } }
        }
        return c.listQuantifier.holds(over: constants, holds)
    }

    /// Tests one left value against the right side of `c`.
    private func test(_ c: BoundComparison, _ value: QueryScalar, key: UInt64, row: RowView) -> Bool {
        if let set = c.inSet { return set.contains(value) }
        if let fullText = c.fullText {
            // nil holds no word, as the empty text.
            guard case .bytes(let text) = value else { return fullText.matches(UnsafeRawBufferPointer(start: nil, count: 0)) }
            return fullText.matches(text)
        }
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
            // `IN` and a list after another operator: ANY by default, or the list's quantifier.
            let op: QueryOperator = c.op == .in ? .equal : c.op
            return c.listQuantifier.holds(over: constants) { $0.withScalar { apply(op, value, $0, c.options, c.type) } }
        case .path(let path):
            // Some value of the right side (its only one unless it is to-many).
            var result = false
            _ = walk(path, 0, key, row) { read in
                result = apply(c.op, value, path.scalar(read), c.options.union(.rightUnfolded), c.type)
                return !result
            }
            return result
        case .aggregate(let path, let aggregate):
            return anyGroup(path, key, row) { groupKey, groupRow in
                apply(c.op, value, aggregateValue(path, aggregate, groupKey, groupRow), c.options, c.type)
            }
        case .subqueryCount(let path, let inner):
            return apply(c.op, value, .int(subqueryCount(path, inner, key, row, c, right: true)), c.options, c.type)
        case .arithmetic:
            return apply(c.op, value, number(c.right, c, right: true, key, row), c.options, c.type)
        }
    }

    /// The value of an arithmetic operand on the left (or `right`) side of `c` for the object
    /// `key`, as a `Double`; null when a side is nil.
    private func number(_ operand: BoundOperand, _ c: BoundComparison, right side: Bool, _ key: UInt64, _ row: RowView) -> QueryScalar {
        func double(_ scalar: QueryScalar) -> Double? {
            switch scalar {
            case .int(let v): Double(v)
            case .double(let v): v
            case .decimal(let v): NSDecimalNumber(decimal: v).doubleValue
            default: nil
            }
        }
        switch operand {
        case .arithmetic(let op, let left, let right):
            guard let x = double(number(left, c, right: side, key, row)), let y = double(number(right, c, right: side, key, row)) else {
                return .null
            }
            return .double(QueryArithmetic.apply(op, x, y))
        case .constant(let constant):
            return constant.withScalar { double($0).map(QueryScalar.double) ?? .null }
        case .path(let path):
            return double(firstValue(path, key, row)).map(QueryScalar.double) ?? .null
        case .aggregate(let path, let aggregate):
            var value = QueryScalar.null
            _ = anyGroup(path, key, row) { groupKey, groupRow in
                value = aggregateValue(path, aggregate, groupKey, groupRow)
                return true
            }
            return double(value).map(QueryScalar.double) ?? .null
        case .subqueryCount(let path, let inner):
            return .double(Double(subqueryCount(path, inner, key, row, c, right: side, inArithmetic: true)))
        case .list:
            return .null
        }
    }

    /// The number of objects of the collection `path` reaches from the object `key` that match
    /// `inner`, the predicate of a subquery on the left (or `right`) side of `c`, alone or
    /// `inArithmetic`.
    private func subqueryCount(
        _ path: BoundPath, _ inner: BoundPredicate, _ key: UInt64, _ row: RowView, _ c: BoundComparison, right: Bool, inArithmetic: Bool = false
    ) -> Int64 {
        guard let element = path.leafInfo else { return 0 }
        let compiled = compiledSubquery(path, inner, c, right: right, inArithmetic: inArithmetic)
        var count: Int64 = 0
        _ = walk(path, 0, key, row) { read in
            if case .value(let bytes) = read, bytes.count == 8 {
                let elementKey = bytes.loadUnaligned(as: UInt64.self)
                if let elementRow = fetch(element, elementKey), compiled(self, elementKey, elementRow) { count += 1 }
            }
            return true
        }
        return count
    }

    /// The predicate `inner` of the subquery counting `path` on the left (or `right`) side of `c`,
    /// compiled when the first row is tested and kept in the side's slot: alone, or by path among
    /// the subqueries in the side's arithmetic.
    private func compiledSubquery(_ path: BoundPath, _ inner: BoundPredicate, _ c: BoundComparison, right: Bool, inArithmetic: Bool) -> Compiled {
        let slot = right ? c.compiledRightSubquery : c.compiledSubquery
        if case .one(let compiled)? = slot { return compiled }
        if case .byPath(let compiled)? = slot, let found = compiled[ObjectIdentifier(path)] { return found }
        let compiled = Self.compileForms(inner).compiled
        let filled: BoundComparison.CompiledSubqueries
        if inArithmetic {
            var byPath: [ObjectIdentifier: Compiled] = [:]
            if case .byPath(let existing)? = slot { byPath = existing }
            byPath[ObjectIdentifier(path)] = compiled
            filled = .byPath(byPath)
        } else {
            filled = .one(compiled)
        }
        if right { c.compiledRightSubquery = filled } else { c.compiledSubquery = filled }
        return compiled
    }

    /// `value op other`. String constants arrive folded for the options; `.rightUnfolded` says
    /// the right side is a column value that still needs folding.
    private func apply(
        _ op: QueryOperator, _ value: QueryScalar, _ other: QueryScalar, _ options: QueryStringOptions, _ type: PropertyType
    ) -> Bool {
        #if OBJDB_INTERNAL_CHECKS
        if op == .contains, options.contains(.caseInsensitive), InjectedFaults.active.contains(.foldedContains) {
            return apply(op, value, other, options.subtracting(.caseInsensitive), type)  // for the check's own test
        }
        #endif
        let folding = options.subtracting(.rightUnfolded)
        if op == .contains, type == .data, folding.contains(.caseInsensitive), other.isNull {
            // Realm's rule, kept for ported queries: data CONTAINS[c] nil holds for every value but
            // nil (without [c], nil too; strings make no such exception).
            return !value.isNull
        }
        if type == .string || type == .data || type == .mixed, !folding.isEmpty, let (leftIsData, left) = value.textual,
            let (rightIsData, right) = other.textual
        {
            // A string never equals or matches data (a mixed value's), folded or not.
            guard leftIsData == rightIsData else { return op == .notEqual }
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
            // As in Realm, nil is equal to nil and unordered with anything else: `x >= nil` and
            // `x <= nil` hold for nil alone.
            if value.isNull || other.isNull { return value.isNull && other.isNull && (op == .lessOrEqual || op == .greaterOrEqual) }
            guard let order = QueryOrder.compare(value, other) else { return false }
            switch op {
            case .less:
                #if OBJDB_INTERNAL_CHECKS
                if InjectedFaults.active.contains(.lessIsLessOrEqual) { return order <= 0 }  // for the check's own test
                #endif
                return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        case .contains, .beginsWith, .endsWith, .like:
            // Realm's rules for nil: every string (nil included) contains, begins and ends with
            // nil, as with the empty string; only nil is LIKE nil. A nil string matches no pattern.
            if other.isNull { return op == .like ? value.isNull : true }
            guard let (textIsData, text) = value.textual, let (patternIsData, pattern) = other.textual, textIsData == patternIsData else {
                return false
            }
            switch op {
            case .contains: return QueryText.contains(text, pattern)
            case .beginsWith: return QueryText.hasPrefix(text, pattern)
            case .endsWith: return QueryText.hasSuffix(text, pattern)
            default:
                return QueryText.like(
                    Array(String(decoding: text, as: UTF8.self).unicodeScalars),
                    Array(String(decoding: pattern, as: UTF8.self).unicodeScalars))
            }
        case .text:
            // Never reached: binding gives TEXT a constant search text, which
            // `test(_:_:key:row:)` answers from the comparison's query.
            return false
        }
    }

    private func equal(_ a: QueryScalar, _ b: QueryScalar) -> Bool {
        switch (a.isNull, b.isNull) {
        case (true, true): return true
        case (true, false), (false, true): return false
        default: return QueryOrder.compare(a, b) == 0
        }
    }
}

extension QueryStringOptions {
    /// Internal: the right side is a column value, not a pre-folded constant.
    static let rightUnfolded = QueryStringOptions(rawValue: 0x80)
}
