/// Parses predicate strings in Realm's `NSPredicate`-style syntax into ``QueryPredicate``s.
///
/// ```swift
/// try PredicateParser.parse("age >= %@ AND name BEGINSWITH[c] %@", arguments: [18, "a"])
/// try PredicateParser.parse("ANY dogs.name == 'Rex' OR dogs.@count > 2", arguments: [])
/// try PredicateParser.parse("SUBQUERY(dogs, $d, $d.age > 3).@count >= 1", arguments: [])
/// ```
///
/// The grammar, keywords being case-insensitive:
///
/// ```
/// predicate  := or
/// or         := and (("OR" | "||") and)*
/// and        := not (("AND" | "&&") not)*
/// not        := ("NOT" | "!") not | primary
/// primary    := "(" predicate ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
/// comparison := ["ANY" | "SOME" | "ALL" | "NONE"] expression operator ["[c]" | "[d]" | "[cd]"] expression
/// expression := keyPath | aggregate | subquery | literal | argument | "{" [value ("," value)*] "}"
/// ```
///
/// `x IN keyPath` (the collection contains `x`) becomes `ANY keyPath == x`. Reserved words
/// (`AND OR NOT ANY ALL NONE SOME IN BETWEEN CONTAINS BEGINSWITH ENDSWITH LIKE TRUEPREDICATE
/// FALSEPREDICATE SUBQUERY true false yes no nil null`) are not property names; a property
/// named like one must be given with `%K`.
///
/// Errors are ``ObjDBError``s with code ``ObjDBError/Code/invalidQuery`` that give the position
/// (0-based, in characters), the problem and the predicate:
/// `Invalid predicate at position 4: unknown operator '>>' in "age >> 3"`.
enum PredicateParser {
    /// The predicate that `text` describes, with `%@`, `%K` and `$0` replaced by `arguments`.
    /// - Throws: ``ObjDBError`` with code ``ObjDBError/Code/invalidQuery``.
    static func parse(_ text: String, arguments: [Any?]) throws -> QueryPredicate {
        let (predicate, clauses) = try parseQuery(text, arguments: arguments)
        if let clause = clauses.first {
            throw ObjDBError(.invalidQuery, "Invalid predicate: \(clause.keyword)(…) orders results; use it in Results.filter, not here, in \"\(text)\"")
        }
        return predicate
    }

    /// ``parse(_:arguments:)`` for a whole query string: the predicate, then the `SORT(…)`,
    /// `DISTINCT(…)` and `LIMIT(…)` clauses that follow it, in the order written (Realm's
    /// `age > 20 SORT(name ASC) LIMIT(5)`).
    static func parseQuery(_ text: String, arguments: [Any?]) throws -> (QueryPredicate, [QueryClause]) {
        let characters = PredicateParser.characters(of: text)
        do {
            let tokens = try PredicateLexer.tokens(of: characters)
            var reader = Reader(source: characters, tokens: tokens, arguments: arguments)
            return try reader.parseWhole()
        } catch let error as PredicateSyntaxError {
            throw error.objdbError(in: text)
        }
    }

    /// The characters the lexer reads. A character that starts with an ASCII scalar followed by
    /// combining marks (a quote before `\u{301}`, say) is split into the ASCII scalar and the
    /// rest, so that the syntax characters of the predicate are never hidden inside a grapheme.
    static func characters(of text: String) -> [Character] {
        var characters: [Character] = []
        characters.reserveCapacity(text.count)
        for character in text {
            let scalars = character.unicodeScalars
            guard scalars.count > 1, let first = scalars.first, first.isASCII else {
                characters.append(character)
                continue
            }
            characters.append(Character(first))
            characters.append(Character(String(String.UnicodeScalarView(scalars.dropFirst()))))
        }
        return characters
    }

    /// The words that are never property names.
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "ANY", "ALL", "NONE", "SOME", "IN", "BETWEEN", "CONTAINS", "BEGINSWITH", "ENDSWITH",
        "LIKE", "TRUEPREDICATE", "FALSEPREDICATE", "SUBQUERY", "TRUE", "FALSE", "YES", "NO", "NIL", "NULL",
    ]

    /// The reserved words that name operators: usable as property names where an operator
    /// follows them.
    static let operatorWords: Set<String> = ["IN", "BETWEEN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE"]

    /// Whether `word` is reserved, in any case.
    static func isReserved(_ word: String) -> Bool { reservedWords.contains(word.uppercased()) }

    /// The operators that accept `[c]` and `[d]`.
    static let operatorsWithOptions: Set<QueryOperator> = [.equal, .notEqual, .in, .contains, .beginsWith, .endsWith, .like]

    /// Reads tokens into a ``QueryPredicate``: one method per grammar rule (recursive descent).
    struct Reader {
        /// The predicate's characters, to quote operands in messages.
        let source: [Character]
        /// The tokens, ending with an ``PredicateToken/Kind/end`` token.
        let tokens: [PredicateToken]
        /// The values of `%@`, `%K` and `$0`.
        let arguments: [Any?]
        /// The next token to read.
        var index = 0
        /// How many arguments `%@` and `%K` have taken.
        var sequentialArguments = 0
        /// The variables of the enclosing subqueries, innermost last.
        var variables: [String] = []
        /// How many parentheses, `NOT`s and subqueries enclose the current token.
        var depth = 0
        /// The literals' texts of the `{…}` list parsed last, for its operand.
        var lastListLiteralTexts: [String?]?

        /// How deeply parentheses, `NOT`s and subqueries may nest, so that a hostile predicate
        /// can't overflow the stack.
        static let maximumDepth = 100

        /// One side of a comparison and where it is in the predicate.
        struct Operand {
            /// The expression.
            var expression: QueryExpression
            /// Offset of its first character.
            var position: Int
            /// Offset just past its last character.
            var end: Int
            /// The literal's text when the operand is one string or number literal
            /// (``QueryComparison/literalText``).
            var literalText: String? = nil
            /// The literals' texts when the operand is a `{…}` list holding some
            /// (``QueryComparison/listLiteralTexts``).
            var listLiteralTexts: [String?]? = nil

            /// Whether the expression is a plain key path.
            var isKeyPath: Bool {
                if case .keyPath = expression { return true }
                return false
            }
            /// Whether it is a list of values (`{…}` or an array argument).
            var isList: Bool {
                if case .list = expression { return true }
                return false
            }
        }

        // MARK: Tokens

        /// The next token (``PredicateToken/Kind/end`` at the end).
        var current: PredicateToken { tokens[index] }

        /// The token read last, if any.
        var previous: PredicateToken? { index > 0 ? tokens[index - 1] : nil }

        /// Moves past the current token (never past the end) and returns it.
        @discardableResult
        mutating func advance() -> PredicateToken {
            let token = tokens[index]
            if index + 1 < tokens.count { index += 1 }
            return token
        }

        /// Whether the current token is the operator or punctuation `symbol`.
        func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

        /// Whether the current token is the keyword `keyword` (given in upper case), in any case.
        func isKeyword(_ keyword: String) -> Bool {
            guard case .word(let word) = current.kind else { return false }
            return word.uppercased() == keyword
        }

        /// A token for messages: `'age'`, or "the end of the predicate".
        func describe(_ token: PredicateToken) -> String {
            token.kind == .end ? "the end of the predicate" : PredicateSyntaxError.quote(token.text)
        }

        /// An operand's source text for messages: `'dogs.@count'`.
        func describe(_ operand: Operand) -> String {
            let end = min(max(operand.end, operand.position), source.count)
            return PredicateSyntaxError.quote(String(source[min(operand.position, end)..<end]))
        }

        /// `expected <what> after '<previous token>', found '<current token>'`, at the current token.
        func expected(_ what: String) -> PredicateSyntaxError {
            let after = previous.map { " after \(describe($0))" } ?? ""
            return PredicateSyntaxError(position: current.position, message: "expected \(what)\(after), found \(describe(current))")
        }

        // MARK: Arguments

        /// How many arguments the predicate uses: `%@` and `%K` take them in order, `$n` uses
        /// the one at index `n`.
        var argumentsUsed: Int {
            var sequential = 0
            var needed = 0
            for token in tokens {
                switch token.kind {
                case .nextArgument, .keyPathArgument:
                    sequential += 1
                    needed = max(needed, sequential)
                case .indexedArgument(let number):
                    needed = max(needed, number + 1)
                default:
                    break
                }
            }
            return needed
        }

        /// The error for a predicate that uses more or fewer arguments than were given, at the
        /// first use of a missing argument.
        func argumentCountMismatch(at position: Int?) -> PredicateSyntaxError {
            let needed = argumentsUsed
            let uses = needed == 1 ? "1 argument" : "\(needed) arguments"
            let given = arguments.count == 1 ? "1 was given" : "\(arguments.count) were given"
            return PredicateSyntaxError(position: position, message: "the predicate uses \(uses) but \(given)")
        }

        /// The argument for `%@` or `%K`, and its index.
        mutating func takeSequentialArgument(for token: PredicateToken) throws -> (value: Any?, index: Int) {
            let number = sequentialArguments
            sequentialArguments += 1
            return (try argument(number, for: token), number)
        }

        /// The argument at `number`.
        /// - Throws: the argument count mismatch, at `token`, if there are not that many.
        func argument(_ number: Int, for token: PredicateToken) throws -> Any? {
            guard number < arguments.count else { throw argumentCountMismatch(at: token.position) }
            return arguments[number]
        }

        /// Enters one more level of nesting at `token`.
        /// - Throws: when that is more than ``maximumDepth`` levels.
        mutating func enterNesting(at token: PredicateToken) throws {
            depth += 1
            guard depth <= Self.maximumDepth else {
                throw PredicateSyntaxError(
                    position: token.position,
                    message: "parentheses, NOT and SUBQUERY nest more than \(Self.maximumDepth) levels deep")
            }
        }

        // MARK: Predicates

        /// The whole predicate, which must use every token, and no argument beyond those given.
        mutating func parseWhole() throws -> (QueryPredicate, [QueryClause]) {
            guard current.kind != .end else {
                throw PredicateSyntaxError(position: 0, message: "the predicate is empty")
            }
            let predicate = try parseOr()
            if isSymbol(")") {
                throw PredicateSyntaxError(position: current.position, message: "unexpected ')' without a matching '('")
            }
            var clauses: [QueryClause] = []
            while let clause = try parseClause() { clauses.append(clause) }
            guard current.kind == .end else {
                throw expected(clauses.isEmpty ? "AND, OR or the end of the predicate" : "SORT, DISTINCT, LIMIT or the end of the query")
            }
            // Missing arguments were reported where they are used. Extra ones are allowed, as
            // Realm allows them: an app may share one argument list among many queries.
            return (predicate, clauses)
        }

        /// `and (OR and)*`.
        mutating func parseOr() throws -> QueryPredicate {
            var operands = [try parseAnd()]
            while isKeyword("OR") || isSymbol("||") {
                advance()
                operands.append(try parseAnd())
            }
            return operands.count == 1 ? operands[0] : .or(operands)
        }

        /// `not (AND not)*`.
        mutating func parseAnd() throws -> QueryPredicate {
            var operands = [try parseNot()]
            while isKeyword("AND") || isSymbol("&&") {
                advance()
                operands.append(try parseNot())
            }
            return operands.count == 1 ? operands[0] : .and(operands)
        }

        /// `NOT not`, `! not` or a primary.
        mutating func parseNot() throws -> QueryPredicate {
            guard isKeyword("NOT") || isSymbol("!") else { return try parsePrimary() }
            try enterNesting(at: advance())
            defer { depth -= 1 }
            return .not(try parseNot())
        }

        /// `( predicate )`, `TRUEPREDICATE`, `FALSEPREDICATE` or a comparison.
        mutating func parsePrimary() throws -> QueryPredicate {
            if isSymbol("(") {
                let open = advance()
                try enterNesting(at: open)
                defer { depth -= 1 }
                let inner = try parseOr()
                guard isSymbol(")") else {
                    throw PredicateSyntaxError(
                        position: current.position,
                        message: "missing ')' to close the '(' at position \(open.position); found \(describe(current))")
                }
                advance()
                return inner
            }
            if isKeyword("TRUEPREDICATE") || isKeyword("FALSEPREDICATE") {
                return .constant(advance().text.uppercased() == "TRUEPREDICATE")
            }
            return .comparison(try parseComparison())
        }
    }
}
