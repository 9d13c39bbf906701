/// One token of a predicate string and where it starts.
struct PredicateToken: Equatable, Sendable {
    /// What a token is.
    enum Kind: Equatable, Sendable {
        /// A word, as written: a property name or a keyword (`AND`, `any`, `true`, `SUBQUERY`, …).
        case word(String)
        /// `$name`: a subquery variable (the name without `$`).
        case variable(String)
        /// `$0`, `$1`, …: an argument by index.
        case indexedArgument(Int)
        /// `%@`: the next argument, as a value.
        case nextArgument
        /// `%K`: the next argument, as a key path.
        case keyPathArgument
        /// A literal read into its value: a number, string, date, `uuid(…)`, `oid(…)` or `B64"…"`.
        /// (`true`, `false`, `nil` and their synonyms are words.)
        case literal(QueryValue)
        /// An operator or punctuation: `==`, `<>`, `&&`, `!`, `(`, `)`, `{`, `}`, `,`, `.`.
        case symbol(String)
        /// `[c]`, `[d]`, `[cd]`: the letters between the brackets.
        case options(String)
        /// `@count`, `@sum`, …: the name after `@`.
        case aggregate(String)
        /// The end of the predicate.
        case end
    }

    /// What the token is.
    let kind: Kind
    /// Offset of its first character in the predicate (0-based, in characters).
    let position: Int
    /// The characters it was read from, as written (empty for ``Kind/end``).
    let text: String

    /// Offset just past its last character.
    var end: Int { position + text.count }
}

/// Splits a predicate string into ``PredicateToken``s, reading literals (numbers, strings,
/// dates, `uuid(…)`, `oid(…)`, `B64"…"`) into values as it goes. Positions count characters.
///
/// A `T` followed by a date (`T2024-01-02@10:00:00`, `T1712345678:0`) starts a date; a `T`
/// followed by digits alone (`T399`) is a name, as in Realm.
struct PredicateLexer {
    /// The predicate, one element per character.
    let characters: [Character]
    /// The next character to read.
    var index = 0

    /// The operators and punctuation made of `= < > ! & |`.
    static let operators: Set<String> = ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "&&", "||", "!"]

    /// The tokens of a predicate, ending with an ``PredicateToken/Kind/end`` token.
    /// - Throws: ``PredicateSyntaxError`` for characters and literals that can't be read.
    static func tokens(of characters: [Character]) throws -> [PredicateToken] {
        var lexer = PredicateLexer(characters: characters)
        var tokens: [PredicateToken] = []
        while true {
            lexer.skipWhitespace()
            guard let character = lexer.peek() else {
                tokens.append(PredicateToken(kind: .end, position: lexer.index, text: ""))
                return tokens
            }
            tokens += try lexer.readTokens(startingWith: character)
        }
    }

    // MARK: Characters

    /// The character `offset` places ahead, or `nil` past the end.
    func peek(_ offset: Int = 0) -> Character? {
        let position = index + offset
        return position < characters.count ? characters[position] : nil
    }

    /// The characters read since `start`.
    func text(from start: Int) -> String { String(characters[start..<index]) }

    /// A token of the characters read since `start`.
    func token(_ kind: PredicateToken.Kind, from start: Int) -> PredicateToken {
        PredicateToken(kind: kind, position: start, text: text(from: start))
    }

    /// Skips spaces, tabs and line breaks.
    mutating func skipWhitespace() {
        while let character = peek(), character.isWhitespace { index += 1 }
    }

    /// Advances past every character that satisfies `predicate`.
    mutating func skip(while predicate: (Character) -> Bool) {
        while let character = peek(), predicate(character) { index += 1 }
    }

    /// `0`–`9`.
    static func isDigit(_ character: Character?) -> Bool {
        guard let character else { return false }
        return character.isASCII && character.isWholeNumber
    }

    /// A character that can start a name: a letter or `_`.
    static func isNameStart(_ character: Character?) -> Bool {
        guard let character else { return false }
        return character.isLetter || character == "_"
    }

    /// A character that can continue a name: a letter, a digit, `_` or `$` (Realm's names may
    /// hold a `$`: `a$a`).
    static func isNamePart(_ character: Character?) -> Bool {
        guard let character else { return false }
        return character.isLetter || character.isNumber || character == "_" || character == "$"
    }

    // MARK: Tokens

    /// The token (or, for `!!`, tokens) starting at the current character.
    mutating func readTokens(startingWith character: Character) throws -> [PredicateToken] {
        let start = index
        if character == ".", Self.isDigit(peek(1)), !(index > 0 && (Self.isNamePart(characters[index - 1]) || characters[index - 1] == ")")) {
            return [try readNumberOrDate()]  // `.5`
        }
        switch character {
        case "(", ")", "{", "}", ",", ".", "*", "/":
            index += 1
            return [token(.symbol(String(character)), from: start)]
        case "+", "-":
            // A sign when a number follows at once (`-5`, as Realm reads `1-0` as two numbers);
            // arithmetic otherwise (`age - 5`).
            if !startsSignedNumber(character) {
                index += 1
                return [token(.symbol(String(character)), from: start)]
            }
        case "=", "<", ">", "!", "&", "|":
            return try readOperator()
        case "[": return [try readOptions()]
        case "'", "\"": return [try readString(quote: character)]
        case "%": return [try readFormatSpecifier()]
        case "$": return [try readDollar()]
        case "@": return [try readAggregate()]
        default: break
        }
        if Self.isDigit(character) || startsSignedNumber(character) {
            return [try readNumberOrDate()]
        }
        if character == "T", startsTimestamp() {
            return [try readDate()]
        }
        if Self.isNameStart(character) { return [try readWord()] }
        throw PredicateSyntaxError(position: start, message: "unexpected character '\(character)'")
    }

    /// Whether `character` (`-` or `+`) starts a number: a digit, `.5`, `inf` or `nan` follows.
    func startsSignedNumber(_ character: Character) -> Bool {
        guard character == "-" || character == "+" else { return false }
        return Self.isDigit(peek(1)) || (peek(1) == "." && Self.isDigit(peek(2))) || Self.specialNumber(characters, from: index + 1) != nil
    }

    /// Whether the `T` here starts a date: `T1712345678:0`, `T-1:0` or `T2024-01-02@…`. A `T`
    /// followed by digits and nothing of a date is a name (a property `T399`).
    func startsTimestamp() -> Bool {
        var offset = 1
        if peek(offset) == "-" { offset += 1 }
        let firstDigit = offset
        while Self.isDigit(peek(offset)) { offset += 1 }
        guard offset > firstDigit else { return false }
        return peek(offset) == ":" || (peek(offset) == "-" && offset - firstDigit == 4 && firstDigit == 1)
    }

    /// A run of `= < > ! & |`: one operator, or several `!`.
    mutating func readOperator() throws -> [PredicateToken] {
        let start = index
        skip { "=<>!&|".contains($0) }
        let run = text(from: start)
        if run.allSatisfy({ $0 == "!" }) {
            return (0..<run.count).map { PredicateToken(kind: .symbol("!"), position: start + $0, text: "!") }
        }
        guard Self.operators.contains(run) else {
            throw PredicateSyntaxError(position: start, message: "unknown operator '\(run)'")
        }
        return [token(.symbol(run), from: start)]
    }

    /// A name or keyword, or a literal that starts with a word: `uuid(…)`, `oid(…)`, `B64"…"`,
    /// `bin(…)`, `binary(…)`.
    mutating func readWord() throws -> PredicateToken {
        let start = index
        skipName()
        var word = text(from: start)
        if word.contains("\\ ") { word = word.replacingOccurrences(of: "\\ ", with: " ") }
        switch word.lowercased() {
        case "uuid" where peek() == "(", "oid" where peek() == "(":
            return try readWrappedLiteral(word, from: start)
        case "b64" where peek() == "\"" || peek() == "'":
            return try readBase64(from: start)
        case "bin" where peek() == "(", "binary" where peek() == "(":
            return try readBinary(word, from: start)
        default:
            return token(.word(word), from: start)
        }
    }

    /// Advances past the rest of a name: letters, digits, `_`, `$`, `-` before another of them
    /// (Realm's names may hold a `-`: `$anyNAME_-0123456789`), and `\ `, an escaped space
    /// (`true\ love`).
    mutating func skipName() {
        while let character = peek() {
            if Self.isNamePart(character) || (character == "-" && Self.isNamePart(peek(1))) {
                index += 1
            } else if character == "\\", peek(1) == " " {
                index += 2
            } else {
                return
            }
        }
    }

    /// `[c]`, `[d]`, `[cd]`: the letters are checked by the parser.
    mutating func readOptions() throws -> PredicateToken {
        let start = index
        index += 1
        skip { $0 != "]" }
        guard peek() == "]" else {
            throw PredicateSyntaxError(position: start, message: "missing ']' to close the option that starts here")
        }
        let letters = String(characters[(start + 1)..<index])
        index += 1
        return token(.options(letters), from: start)
    }

    /// `%@` or `%K`.
    mutating func readFormatSpecifier() throws -> PredicateToken {
        let start = index
        switch peek(1) {
        case "@":
            index += 2
            return token(.nextArgument, from: start)
        case "K":
            index += 2
            return token(.keyPathArgument, from: start)
        case let other:
            let found = other.map { "'%\($0)'" } ?? "'%' at the end"
            throw PredicateSyntaxError(
                position: start, message: "unknown format specifier \(found); use %@ for a value or %K for a key path")
        }
    }

    /// `$0` (an argument by index); `$name` (a subquery variable inside a SUBQUERY, a property
    /// named `$name` elsewhere: the parser decides); `$` alone or `$-1`, property names.
    mutating func readDollar() throws -> PredicateToken {
        let start = index
        index += 1
        if Self.isDigit(peek()) {
            skip(while: Self.isDigit)
            let digits = text(from: start + 1)
            guard !Self.isNamePart(peek()) else {
                skip(while: Self.isNamePart)
                throw PredicateSyntaxError(
                    position: start,
                    message: "'\(text(from: start))' is neither an argument ($0, $1, …) nor a variable ($x)")
            }
            // No call passes more than Int32.max arguments; a bound keeps `number + 1` exact.
            guard let number = Int(digits), number < Int(Int32.max) else {
                throw PredicateSyntaxError(position: start, message: "argument index '$\(digits)' is too large")
            }
            return token(.indexedArgument(number), from: start)
        }
        guard Self.isNameStart(peek()) else {
            // `$` alone or `$-1`: a property name, as Realm reads it.
            skipName()
            return token(.word(text(from: start).replacingOccurrences(of: "\\ ", with: " ")), from: start)
        }
        skipName()
        return token(.variable(text(from: start + 1).replacingOccurrences(of: "\\ ", with: " ")), from: start)
    }

    /// `@count`, `@sum`, …: the parser checks the name.
    mutating func readAggregate() throws -> PredicateToken {
        let start = index
        index += 1
        skip(while: Self.isNamePart)
        guard index > start + 1 else {
            throw PredicateSyntaxError(position: start, message: "'@' must be followed by an aggregate such as @count")
        }
        return token(.aggregate(text(from: start + 1)), from: start)
    }
}
