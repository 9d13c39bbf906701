/// The reference interpreter: evaluates a bound predicate on one object the plainest way, to
/// check the query engine against (Docs/Architecture.md, "Queries").
///
/// It shares nothing with the compiled path (``QueryEvaluator``, ``RowFilter``, the row kernels)
/// but its input, the ``BoundPredicate``, and the decoding of stored bytes: it reads rows with
/// `get`, decodes each value it meets into a ``ReferenceValue``, gathers the values of key paths
/// into arrays, and compares them with its own rules. Written for obviousness, not speed. Queries
/// never run it; the internal checks (``QueryExecutor``'s `checkAgainstReference`) and tests
/// compare every answer of the engine with it.
struct ReferenceInterpreter {
    /// An object as the interpreter reads it: its key and its row (a row without columns for
    /// bytes that are not a row, so that every value reads as nil, as queries read it).
    struct StoredObject {
        /// The object key.
        let key: UInt64
        /// The row.
        let row: RowView
    }

    /// The transaction the objects are read in.
    let txn: Txn
    /// Where a read that fails leaves its error; the read then finds nothing.
    let failure: FailureNote

    /// Whether the object `key` of `info` matches `predicate`; `false` when it does not exist.
    func matches(_ predicate: BoundPredicate, _ info: ClassInfo, key: UInt64) -> Bool {
        guard let object = fetch(info, key) else { return false }
        return holds(predicate, object)
    }

    /// Whether `predicate` holds for `object`.
    func holds(_ predicate: BoundPredicate, _ object: StoredObject) -> Bool {
        switch predicate {
        case .constant(let value): return value
        case .and(let operands): return operands.allSatisfy { holds($0, object) }
        case .or(let operands): return operands.contains { holds($0, object) }
        case .not(let operand): return !holds(operand, object)
        case .comparison(let comparison): return holds(comparison, object)
        }
    }

    /// Whether comparison `c` holds for `object`: the left side's values (each group's, for a
    /// to-many key path or an aggregate) against the right side.
    func holds(_ c: BoundComparison, _ object: StoredObject) -> Bool {
        switch c.left {
        case .path(let path):
            guard reachesMany(path) else {
                guard let value = values(path, from: object).first else { return false }
                return holds(c, left: value, object)
            }
            // The quantifier applies to the values of one group; some group must match.
            return groups(path, object).contains { group in
                if c.listFirst, case .list(let constants) = c.right {
                    // The list's quantifier outside, the key path's inside (`ALL {1, 2} IN ANY list`).
                    let op: QueryOperator = c.op == .in ? .equal : c.op
                    return Self.holds(c.listQuantifier, over: constants) { constant in
                        Self.holds(c.quantifier, over: groupValues(path, group)) {
                            Self.holds(op, $0, ReferenceValue(constant), c.options, c.type)
                        }
                    }
                }
                return Self.holds(c.quantifier, over: groupValues(path, group)) { holds(c, left: $0, object) }
            }
        case .aggregate(let path, let aggregate):
            return groups(path, object).contains { holds(c, left: aggregateValue(path, aggregate, $0), object) }
        case .subqueryCount(let path, let inner):
            return holds(c, left: .integer(subqueryCount(path, inner, object)), object)
        case .arithmetic:
            return holds(c, left: number(c.left, object), object)
        case .constant, .list:
            return false  // the binder puts constants on the right
        }
    }

    /// Whether one value of the left side of `c` matches its right side, for `object`.
    func holds(_ c: BoundComparison, left value: ReferenceValue, _ object: StoredObject) -> Bool {
        func test(_ op: QueryOperator, _ other: ReferenceValue) -> Bool { Self.holds(op, value, other, c.options, c.type) }
        switch c.right {
        case .constant(let constant):
            return test(c.op, ReferenceValue(constant))
        case .list(let constants):
            if c.op == .between || c.op == .betweenHalfOpen, constants.count == 2 {
                let (low, high) = (ReferenceValue(constants[0]), ReferenceValue(constants[1]))
                return test(.greaterOrEqual, low) && test(c.op == .between ? .lessOrEqual : .less, high)
            }
            // `IN` is `==` with some value of the list; other operators take the list's quantifier.
            let op: QueryOperator = c.op == .in ? .equal : c.op
            return Self.holds(c.listQuantifier, over: constants) { test(op, ReferenceValue($0)) }
        case .path(let path):
            // Some value of the right side (its only one, unless it is to-many).
            return values(path, from: object).contains { test(c.op, $0) }
        case .aggregate(let path, let aggregate):
            return groups(path, object).contains { test(c.op, aggregateValue(path, aggregate, $0)) }
        case .subqueryCount(let path, let inner):
            return test(c.op, .integer(subqueryCount(path, inner, object)))
        case .arithmetic:
            return test(c.op, number(c.right, object))
        }
    }
}
