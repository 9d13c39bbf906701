/// A list on the left of a comparison: `ANY {5.5, 4.0} IN ALL items.price`,
/// `ALL {6.0, 6.1} <= ALL items.price`, `{'a', 'b'} IN NONE tags`.
extension PredicateParser.Reader {
    /// The rest of a comparison whose left side is `list` (already read, with the quantifier
    /// written before it, if any, and the operator): `[quantifier] expression`. A quantifier is
    /// needed on one side at least; the one not written is ANY, as in Realm.
    ///
    /// The comparison is written with the key path on the left and the operator mirrored, and
    /// marked ``QueryComparison/listFirst``: the list's quantifier applies outside the key
    /// path's.
    mutating func parseLeftList(
        _ list: Operand, quantifier: QueryQuantifier?, op: QueryOperator, written: String, options: QueryStringOptions, at start: Int
    ) throws -> QueryComparison {
        var pathQuantifier: QueryQuantifier?
        var quantifierToken: PredicateToken?
        if let inner = Self.quantifier(current), index + 1 < tokens.count, Self.startsKeyPath(tokens[index + 1]) {
            pathQuantifier = inner
            quantifierToken = advance()
        }
        guard quantifier != nil || pathQuantifier != nil else { throw misplacedList(list) }
        guard let mirrored = Self.mirroredForLeftList(op) else {
            throw PredicateSyntaxError(
                position: start,
                message: "'\(written)' can't have a list on its left; a list on the left takes ==, !=, <, <=, >, >= or IN")
        }
        let right = try parseOperand()
        if let quantifierToken, !right.isKeyPath {
            throw PredicateSyntaxError(
                position: right.position,
                message: "\(quantifierToken.text.uppercased()) must be followed by a key path, found \(describe(right))")
        }
        guard !right.expression.isConstant else {
            throw PredicateSyntaxError(
                position: right.position,
                message: "a list on the left of '\(written)' needs a key path on its right, found \(describe(right))")
        }
        return QueryComparison(
            left: right.expression, op: mirrored, right: list.expression, options: options, quantifier: pathQuantifier ?? .any,
            listQuantifier: quantifier ?? .any, listFirst: true, position: start, listLiteralTexts: list.listLiteralTexts)
    }

    /// The operator for the key path on the left when the list was written there (`IN` stays
    /// `IN`: the binder checks that the key path reaches several values); `nil` for the string
    /// operators and BETWEEN, which have no mirror.
    static func mirroredForLeftList(_ op: QueryOperator) -> QueryOperator? {
        op == .in ? .in : op.mirrored
    }
}
