import Foundation

/// The sides of comparisons: key paths, aggregates, subqueries, literals, arguments and lists.
extension PredicateParser.Reader {
    /// An expression and where it is.
    mutating func parseOperand() throws -> Operand {
        let start = current
        let startIndex = index
        let expression = try parseSum()
        var operand = Operand(expression: expression, position: start.position, end: previous?.end ?? start.end)
        if case .list = expression {
            operand.listLiteralTexts = lastListLiteralTexts
            lastListLiteralTexts = nil
        }
        if index == startIndex + 1, case .literal(let value) = start.kind {
            switch value {
            case .string(let text): operand.literalText = text
            case .int, .double: operand.literalText = start.text
            default: break
            }
        }
        return operand
    }

    /// `term (("+" | "-") term)*`.
    mutating func parseSum() throws -> QueryExpression {
        var left = try parseProduct()
        while let op = arithmeticOperator(["+", "-"]) {
            advance()
            left = try Self.arithmetic(op, left, try parseProduct(), at: current)
        }
        return left
    }

    /// `factor (("*" | "/") factor)*`.
    mutating func parseProduct() throws -> QueryExpression {
        var left = try parseFactor()
        while let op = arithmeticOperator(["*", "/"]) {
            advance()
            left = try Self.arithmetic(op, left, try parseFactor(), at: current)
        }
        return left
    }

    /// An expression, or `(` a sum `)` (a group inside arithmetic).
    mutating func parseFactor() throws -> QueryExpression {
        guard isSymbol("(") else { return try parseExpression() }
        let open = advance()
        try enterNesting(at: open)
        defer { depth -= 1 }
        let inner = try parseSum()
        guard isSymbol(")") else {
            throw PredicateSyntaxError(position: current.position, message: "missing ')' to close the '(' at position \(open.position)")
        }
        advance()
        return inner
    }

    /// The arithmetic operator of the current token, if it is one of `symbols`.
    func arithmeticOperator(_ symbols: [String]) -> QueryArithmetic? {
        guard case .symbol(let symbol) = current.kind, symbols.contains(symbol) else { return nil }
        return QueryArithmetic(rawValue: symbol)
    }

    /// `left op right`, computed now when both are number constants.
    static func arithmetic(_ op: QueryArithmetic, _ left: QueryExpression, _ right: QueryExpression, at token: PredicateToken) throws -> QueryExpression {
        for side in [left, right] {
            switch side {
            case .keyPath, .aggregate, .subqueryCount, .arithmetic, .value(.int), .value(.double), .value(.decimal): continue
            default:
                throw PredicateSyntaxError(position: token.position, message: "\(op.rawValue) applies to numbers and numeric key paths")
            }
        }
        if case .value(let a) = left, case .value(let b) = right, let folded = QueryArithmetic.apply(op, a, b) { return .value(folded) }
        return .arithmetic(op, left, right)
    }

    /// A key path, aggregate, subquery, literal, argument or `{…}` list.
    mutating func parseExpression() throws -> QueryExpression {
        let token = current
        switch token.kind {
        case .literal(let value):
            advance()
            return .value(value)
        case .word(let word):
            switch word.uppercased() {
            case "TRUE", "YES":
                advance()
                return .value(.bool(true))
            case "FALSE", "NO":
                advance()
                return .value(.bool(false))
            case "NIL", "NULL":
                advance()
                return .value(.null)
            case "INF", "INFINITY":
                advance()
                return .value(.double(.infinity))
            case "NAN":
                advance()
                return .value(.double(.nan))
            case "SUBQUERY":
                return try parseSubquery()
            case let upper where PredicateParser.operatorWords.contains(upper) && index + 1 < tokens.count
                && Self.comparisonOperator(tokens[index + 1]) != nil:
                // An operator's name used as a property name, as Realm allows: `between == 0`,
                // `contains CONTAINS 'x'` (an operator follows, so it is not one itself).
                advance()
                return try parseKeyPathTail(QueryKeyPath(components: [word], position: token.position))
            case let upper where PredicateParser.reservedWords.contains(upper):
                let error = expected("a key path or value")
                throw PredicateSyntaxError(
                    position: error.position,
                    message: error.message + " (a property named like a keyword must be given with %K)")
            default:
                advance()
                return try parseKeyPathTail(QueryKeyPath(components: [word], position: token.position))
            }
        case .variable(let name):
            advance()
            guard variables.contains(name) else {
                // Not a SUBQUERY variable: a property whose name starts with `$`, as Realm reads it.
                return try parseKeyPathTail(QueryKeyPath(components: ["$" + name], position: token.position))
            }
            return try parseKeyPathTail(QueryKeyPath(components: [], variable: name, position: token.position))
        case .keyPathArgument:
            advance()
            let (argument, number) = try takeSequentialArgument(for: token)
            let components = try keyPathComponents(argument, index: number, at: token)
            return try parseKeyPathTail(QueryKeyPath(components: components, position: token.position))
        case .nextArgument:
            advance()
            let (argument, number) = try takeSequentialArgument(for: token)
            return try PredicateArgument.expression(for: argument, index: number, position: token.position)
        case .indexedArgument(let number):
            advance()
            return try PredicateArgument.expression(for: try argument(number, for: token), index: number, position: token.position)
        case .symbol("{"):
            return try parseList()
        case .aggregate(let name) where name.lowercased() == "links":
            return try parseLinks(QueryKeyPath(components: [], position: token.position))
        default:
            throw expected("a key path or value")
        }
    }

    /// `@links.Class.property` (the objects of `Class` linking here through `property`, as a
    /// key path step) or `@links.@count` (every link to the object, from any class), after
    /// `path`. The step is kept as the components `@links`, `Class`, `property` (``PredicateBinder``
    /// resolves it); `@links` alone ends a path that `@count` or `@size` follows.
    mutating func parseLinks(_ start: QueryKeyPath) throws -> QueryExpression {
        advance()
        var path = start
        path.components.append("@links")
        guard isSymbol(".") else { throw expected("'.' and a class name after @links") }
        advance()
        if case .aggregate(let name) = current.kind {
            guard Self.aggregate(named: name) == .count else {
                throw PredicateSyntaxError(
                    position: current.position, message: "@links can be followed by @count or @size, or by .Class.property, not by @\(name)")
            }
            return try parseAggregate(of: path, named: name)
        }
        guard case .word(let className) = current.kind else { throw expected("a class name after @links.") }
        advance()
        guard isSymbol(".") else { throw expected("'.' and the linking property after @links.\(className)") }
        advance()
        guard case .word(let property) = current.kind else { throw expected("the linking property after @links.\(className).") }
        advance()
        path.components.append(contentsOf: [className, property])
        return try parseKeyPathTail(path)
    }

    /// The property names of a `%K` argument: a `String` such as `"owner.name"`.
    func keyPathComponents(_ argument: Any?, index: Int, at token: PredicateToken) throws -> [String] {
        let path: String
        switch PredicateArgument.unwrapped(argument) {
        case let text as String: path = text
        case let text as Substring: path = String(text)
        case let other:
            let type = other.map(PredicateArgument.typeName) ?? "nil"
            throw PredicateSyntaxError(
                position: token.position,
                message: "%K needs a String key path, but the argument at index \(index) is \(type)")
        }
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard components.allSatisfy({ !$0.isEmpty && !$0.hasPrefix("@") && !$0.hasPrefix("$") }) else {
            throw PredicateSyntaxError(
                position: token.position,
                message: "the key path \(PredicateSyntaxError.quote(path)) given for %K (argument at index \(index)) "
                    + "must be property names joined by dots; write aggregates after it, as in %K.@count")
        }
        return components
    }

    /// The rest of a key path: `.name` components, then possibly an aggregate.
    mutating func parseKeyPathTail(_ start: QueryKeyPath) throws -> QueryExpression {
        var path = start
        while true {
            // `map['key']`, `map[$0]`: one value of a map (the lexer reads `[…]` as options);
            // after a mixed value also `[0]`, `[FIRST]`, `[LAST]` and `[*]` (the binder checks).
            if case .options(let inner) = current.kind, let previous, previous.end == current.position, !path.components.isEmpty {
                let token = advance()
                if let component = try QueryKeyPath.listSubscript(inner, at: token.position) {
                    path.components.append(component)
                } else {
                    path.components.append(QueryKeyPath.mapKeyPrefix + (try mapKey(inner, at: token)))
                }
                continue
            }
            guard isSymbol(".") else { break }
            advance()
            switch current.kind {
            case .aggregate(let name) where ["keys", "allkeys", "values", "allvalues"].contains(name.lowercased()):
                // `map.@keys`, `map.@values` (Realm Swift's `@allKeys`, `@allValues`).
                advance()
                path.components.append(name.lowercased().hasSuffix("keys") ? QueryKeyPath.mapKeys : QueryKeyPath.mapValues)
            case .word(let name) where !PredicateParser.isReserved(name):
                path.components.append(name)
                advance()
            case .word(let name):
                throw PredicateSyntaxError(
                    position: current.position,
                    message: "'\(name)' is a reserved word; a property with that name must be given with %K")
            case .aggregate(let name) where name.lowercased() == "links":
                return try parseLinks(path)
            case .aggregate(let name) where name.lowercased() == "type":
                // `value.@type`: the type of a mixed value (the binder checks the property).
                advance()
                path.components.append(QueryKeyPath.typeOf)
                return .keyPath(path)
            case .aggregate(let name):
                return try parseAggregate(of: path, named: name)
            default:
                throw expected("a property name or an aggregate such as @count")
            }
        }
        return .keyPath(path)
    }

    /// The key inside `[…]` after a map: a quoted string, or a `String` argument (`$0`, `%@`).
    private mutating func mapKey(_ inner: String, at token: PredicateToken) throws -> String {
        let text = inner.trimmingCharacters(in: .whitespaces)
        if let quote = text.first, quote == "'" || quote == "\"", text.count >= 2, text.last == quote {
            return String(text.dropFirst().dropLast())
        }
        let argument: Any?
        if text == "%@" {
            argument = try takeSequentialArgument(for: token).value
        } else if text.hasPrefix("$"), let number = Int(text.dropFirst()) {
            argument = try self.argument(number, for: token)
        } else {
            throw PredicateSyntaxError(
                position: token.position, message: "a subscript […] must be a quoted key, an argument, a list index of 0 or more, FIRST, LAST or *, found \(PredicateSyntaxError.quote(token.text))")
        }
        guard let key = PredicateArgument.unwrapped(argument) as? String else {
            throw PredicateSyntaxError(position: token.position, message: "the map key \(PredicateSyntaxError.quote(token.text)) must be a String argument")
        }
        return key
    }

    /// `@count`, `@size`, or `@min`, `@max`, `@sum`, `@avg` with an optional property name.
    mutating func parseAggregate(of path: QueryKeyPath, named name: String) throws -> QueryExpression {
        let token = advance()
        guard let aggregate = Self.aggregate(named: name) else {
            throw PredicateSyntaxError(
                position: token.position,
                message: "unknown aggregate \(PredicateSyntaxError.quote(token.text)); expected @count, @size, @min, @max, @sum or @avg")
        }
        guard isSymbol(".") else { return .aggregate(path, aggregate, property: nil) }
        if aggregate == .count {
            throw PredicateSyntaxError(
                position: current.position, message: "\(PredicateSyntaxError.quote(token.text)) can't be followed by a property name")
        }
        advance()
        guard case .word(let property) = current.kind, !PredicateParser.isReserved(property) else {
            throw expected("a property name")
        }
        advance()
        if isSymbol(".") {
            throw PredicateSyntaxError(
                position: current.position,
                message: "only one property name can follow \(PredicateSyntaxError.quote(token.text))")
        }
        return .aggregate(path, aggregate, property: property)
    }

    /// The aggregate an `@name` stands for, in any case; `@size` is `@count`.
    static func aggregate(named name: String) -> QueryAggregate? {
        switch name.lowercased() {
        case "count", "size": .count
        case "min": .min
        case "max": .max
        case "sum": .sum
        case "avg": .average
        default: nil
        }
    }

    /// `{value, value, …}`: literals and arguments that are single values.
    mutating func parseList() throws -> QueryExpression {
        let open = advance()
        var values: [QueryValue] = []
        var texts: [String?] = []
        lastListLiteralTexts = nil
        if isSymbol("}") {
            advance()
            return .list(values)
        }
        while true {
            let element = try parseOperand()
            switch element.expression {
            case .value(let value):
                values.append(value)
                texts.append(element.literalText)
            case .list:
                throw PredicateSyntaxError(position: element.position, message: "lists can't be nested")
            default:
                throw PredicateSyntaxError(
                    position: element.position, message: "a list can only hold values, found \(describe(element))")
            }
            if isSymbol(",") {
                advance()
            } else if isSymbol("}") {
                advance()
                lastListLiteralTexts = texts.contains { $0 != nil } ? texts : nil
                return .list(values)
            } else {
                throw PredicateSyntaxError(
                    position: current.position,
                    message: "expected ',' or '}' in the list that starts at position \(open.position), found \(describe(current))")
            }
        }
    }

    /// `SUBQUERY(collection, $variable, predicate).@count`.
    mutating func parseSubquery() throws -> QueryExpression {
        let keyword = advance()
        try enterNesting(at: keyword)
        defer { depth -= 1 }
        guard isSymbol("(") else { throw expected("'('") }
        advance()
        let collection = try parseOperand()
        guard case .keyPath(let path) = collection.expression else {
            throw PredicateSyntaxError(
                position: collection.position,
                message: "SUBQUERY needs a collection key path as its first argument, found \(describe(collection))")
        }
        guard isSymbol(",") else { throw expected("',' and a variable such as $x") }
        advance()
        guard case .variable(let variable) = current.kind else {
            throw expected("a variable such as $x as the second argument of SUBQUERY")
        }
        if variables.contains(variable) {
            throw PredicateSyntaxError(
                position: current.position, message: "the variable '$\(variable)' is already used by an enclosing SUBQUERY; choose another name")
        }
        advance()
        guard isSymbol(",") else { throw expected("',' and the predicate of the SUBQUERY") }
        advance()
        variables.append(variable)
        let predicate = try parseOr()
        variables.removeLast()
        guard isSymbol(")") else {
            throw PredicateSyntaxError(
                position: current.position,
                message: "missing ')' to close the SUBQUERY at position \(keyword.position); found \(describe(current))")
        }
        advance()
        let countRequired = PredicateSyntaxError(
            position: current.position, message: "SUBQUERY(…) must be followed by .@count, found \(describe(current))")
        guard isSymbol(".") else { throw countRequired }
        advance()
        guard case .aggregate(let name) = current.kind, Self.aggregate(named: name) == .count else {
            throw PredicateSyntaxError(
                position: current.position, message: "SUBQUERY(…) must be followed by .@count, found \(describe(current))")
        }
        advance()
        if isSymbol(".") {
            throw PredicateSyntaxError(
                position: current.position, message: "SUBQUERY(…).@count can't be followed by a property name")
        }
        return .subqueryCount(collection: path, variable: variable, predicate: predicate)
    }
}
