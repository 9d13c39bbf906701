/// Comparisons: `[quantifier] expression operator [options] expression`.
extension PredicateParser.Reader {
    /// `[quantifier] expression operator [options] [quantifier] expression`, marked as written in
    /// a predicate string (``QueryComparison/stringSyntax``).
    mutating func parseComparison() throws -> QueryComparison {
        var comparison = try parseQuantifiedComparison()
        comparison.stringSyntax = true
        return comparison
    }

    /// `[quantifier] expression operator [options] [quantifier] expression`.
    private mutating func parseQuantifiedComparison() throws -> QueryComparison {
        let start = current.position
        let quantifierToken = current
        let quantifier = Self.quantifier(current)
        if quantifier != nil { advance() }
        let left = try parseOperand()
        if quantifier != nil, !left.isKeyPath, !left.isList {
            throw PredicateSyntaxError(
                position: left.position,
                message: "\(quantifierToken.text.uppercased()) must be followed by a key path or a list, found \(describe(left))")
        }
        guard let op = Self.comparisonOperator(current) else {
            if case .word(let word) = current.kind, !PredicateParser.isReserved(word) {
                throw PredicateSyntaxError(
                    position: current.position,
                    message: "unknown operator \(describe(current)) after \(describe(left)); expected ==, !=, <, <=, >, >=, "
                        + "BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE or TEXT")
            }
            throw PredicateSyntaxError(
                position: current.position, message: "expected an operator after \(describe(left)), found \(describe(current))")
        }
        let opToken = advance()
        var options: QueryStringOptions = []
        if case .options(let letters) = current.kind {
            options = try Self.stringOptions(letters, at: current, for: op, written: opToken.text)
            advance()
        }
        if left.isList {
            return try parseLeftList(left, quantifier: quantifier, op: op, written: opToken.text, options: options, at: start)
        }
        if op == .in, quantifier == nil, let inner = Self.quantifier(current), index + 1 < tokens.count, Self.startsKeyPath(tokens[index + 1]) {
            // `value IN ANY keyPath` (Realm's form): `ANY keyPath == value`, ALL and NONE alike.
            let quantifierToken = advance()
            let right = try parseOperand()
            guard right.isKeyPath else {
                throw PredicateSyntaxError(
                    position: right.position,
                    message: "\(quantifierToken.text.uppercased()) must be followed by a key path, found \(describe(right))")
            }
            // Kept as IN: the binder checks that the key path reaches several values.
            return QueryComparison(
                left: right.expression, op: .in, right: left.expression, options: options, quantifier: inner, position: start,
                literalText: left.literalText, listLiteralTexts: left.listLiteralTexts)
        }
        // `age == ANY {1, 2}`, `name CONTAINS ALL $0`: a quantifier for a list on the right.
        var listQuantifier: QueryQuantifier?
        if let inner = Self.quantifier(current), index + 1 < tokens.count, Self.startsList(tokens[index + 1]) {
            listQuantifier = inner
            advance()
        }
        let right = try parseOperand()
        if listQuantifier != nil, !right.isList {
            throw PredicateSyntaxError(
                position: right.position, message: "ANY, ALL and NONE before a value need a list like {1, 2} or an array argument, found \(describe(right))")
        }
        var comparison = try comparison(left, op, right, options: options, quantifier: quantifier, at: start)
        comparison.listQuantifier = listQuantifier ?? .any
        return comparison
    }

    /// Whether `token` can start a list: `{`, or an argument (which may be an array).
    static func startsList(_ token: PredicateToken) -> Bool {
        switch token.kind {
        case .symbol("{"), .indexedArgument, .nextArgument: true
        default: false
        }
    }

    /// Whether `token` can start a key path (a property name, `@links`, `%K` or a `$name`).
    static func startsKeyPath(_ token: PredicateToken) -> Bool {
        switch token.kind {
        case .word(let word): !PredicateParser.isReserved(word)
        case .aggregate(let name): name.lowercased() == "links"
        case .keyPathArgument, .variable: true
        default: false
        }
    }

    /// The comparison of two operands, after checking where lists are, and with
    /// `x IN keyPath` turned into `keyPath IN x` (the binder checks that the key path reaches
    /// several values and compares with ANY ==).
    func comparison(
        _ left: Operand, _ op: QueryOperator, _ right: Operand, options: QueryStringOptions,
        quantifier: QueryQuantifier?, at position: Int
    ) throws -> QueryComparison {
        if case .list = left.expression { throw misplacedList(left) }
        switch op {
        case .in:
            switch right.expression {
            case .list:
                break
            case .keyPath:
                if quantifier != nil {
                    throw PredicateSyntaxError(
                        position: position,
                        message: "ANY, ALL and NONE can't be used with 'value IN keyPath'; write ANY keyPath == value")
                }
                // Kept as IN: the binder checks the key path reaches several values, then compares
                // with ANY ==.
                return QueryComparison(
                    left: right.expression, op: .in, right: left.expression, options: options, quantifier: .any,
                    position: position, literalText: left.literalText, listLiteralTexts: left.listLiteralTexts)
            default:
                throw PredicateSyntaxError(
                    position: right.position,
                    message: "IN needs a list like {1, 2}, an array argument or a key path on its right, found \(describe(right))")
            }
        case .between:
            guard case .list(let values) = right.expression, values.count == 2 else {
                var found = describe(right)
                if case .list(let values) = right.expression {
                    found = values.count == 1 ? "a list of 1 value" : "a list of \(values.count) values"
                }
                throw PredicateSyntaxError(
                    position: right.position, message: "BETWEEN needs a list of two values like {1, 5}, found \(found)")
            }
        default:
            // A list after any other operator compares with each of its values (ANY by default).
            break
        }
        return QueryComparison(
            left: left.expression, op: op, right: right.expression, options: options, quantifier: quantifier ?? .any,
            position: position, literalText: right.literalText ?? left.literalText,
            listLiteralTexts: right.listLiteralTexts ?? left.listLiteralTexts)
    }

    /// The error for a list where a single value is needed.
    func misplacedList(_ operand: Operand) -> PredicateSyntaxError {
        PredicateSyntaxError(
            position: operand.position,
            message: "\(describe(operand)) is a list, but a single value is needed here; a list goes on the right of a comparison, "
                + "or on the left with ANY, ALL or NONE before it or before the key path (ANY {1, 2} IN items.price)")
    }

    /// `ANY`/`SOME`, `ALL` or `NONE`, if `token` is one of them.
    static func quantifier(_ token: PredicateToken) -> QueryQuantifier? {
        guard case .word(let word) = token.kind else { return nil }
        switch word.uppercased() {
        case "ANY", "SOME": return .any
        case "ALL": return .all
        case "NONE": return QueryQuantifier.none
        default: return nil
        }
    }

    /// The comparison operator `token` stands for, if any.
    static func comparisonOperator(_ token: PredicateToken) -> QueryOperator? {
        switch token.kind {
        case .symbol(let symbol):
            switch symbol {
            case "==", "=": return .equal
            case "!=", "<>": return .notEqual
            case "<": return .less
            case "<=", "=<": return .lessOrEqual
            case ">": return .greater
            case ">=", "=>": return .greaterOrEqual
            default: return nil
            }
        case .word(let word):
            switch word.uppercased() {
            case "BETWEEN": return .between
            case "IN": return .in
            case "CONTAINS": return .contains
            case "BEGINSWITH": return .beginsWith
            case "ENDSWITH": return .endsWith
            case "LIKE": return .like
            // Not a reserved word: a property may be called `text`.
            case "TEXT": return .text
            default: return nil
            }
        default:
            return nil
        }
    }

    /// The options `[c]`, `[d]`, `[cd]` (or `[dc]`, in any case), checked against the operator.
    static func stringOptions(
        _ letters: String, at token: PredicateToken, for op: QueryOperator, written: String
    ) throws -> QueryStringOptions {
        let options: QueryStringOptions
        switch letters.lowercased() {
        case "c": options = .caseInsensitive
        case "d": options = .diacriticInsensitive
        case "cd", "dc": options = [.caseInsensitive, .diacriticInsensitive]
        default:
            throw PredicateSyntaxError(
                position: token.position,
                message: "unknown option \(PredicateSyntaxError.quote(token.text)); expected [c], [d] or [cd]")
        }
        guard PredicateParser.operatorsWithOptions.contains(op) else {
            throw PredicateSyntaxError(
                position: token.position,
                message: "the option \(PredicateSyntaxError.quote(token.text)) can't be used with '\(written)'; "
                    + "it applies to ==, !=, IN, CONTAINS, BEGINSWITH, ENDSWITH and LIKE")
        }
        return options
    }
}
