import Foundation

/// Reading the literals of a predicate string: numbers, strings, dates, `uuid(…)`, `oid(…)`
/// and `B64"…"`.
extension PredicateLexer {
    /// A number (`42`, `-7`, `0x1F`, `1.5`, `2e-3`) or a date without `T` (`2024-01-02@10:00:00`).
    ///
    /// Reads every character that could belong to the number (letters included), so that
    /// `12abc` is reported as a bad number rather than as `12` followed by a name.
    mutating func readNumberOrDate() throws -> PredicateToken {
        if (0..<4).allSatisfy({ Self.isDigit(peek($0)) }), peek(4) == "-", Self.isDigit(peek(5)) {
            return try readDate()
        }
        let start = index
        if peek() == "-" || peek() == "+" { index += 1 }
        if let word = Self.specialNumber(characters, from: index) {
            // `-inf`, `+infinity`, `-nan`: the sign belongs to the value.
            index += word.count
            let magnitude: Double = word.lowercased() == "nan" ? .nan : .infinity
            let value = characters[start] == "-" ? -magnitude : magnitude
            return token(.literal(.double(value)), from: start)
        }
        let isHex = peek() == "0" && (peek(1) == "x" || peek(1) == "X")
        if isHex {
            index += 2
            skip(while: Self.isNamePart)
        } else {
            // Digits, a fraction, an exponent; letters after them start the next token, as in
            // Realm's grammar (`a=1AND b=2`).
            skip { Self.isDigit($0) || $0 == "." }
            if peek() == "e" || peek() == "E", Self.isDigit(peek(1)) || ((peek(1) == "+" || peek(1) == "-") && Self.isDigit(peek(2))) {
                index += 2
                skip(while: Self.isDigit)
            }
        }
        var text = text(from: start)
        if text.hasPrefix("+") { text.removeFirst() }
        return PredicateToken(kind: .literal(try PredicateNumber.value(of: text, at: start)), position: start, text: self.text(from: start))
    }

    /// `inf`, `infinity` or `nan` (any case) at `position`, as a whole word, if there is one.
    static func specialNumber(_ characters: [Character], from position: Int) -> String? {
        var end = position
        while end < characters.count, isNamePart(characters[end]) { end += 1 }
        let word = String(characters[position..<end])
        return ["inf", "infinity", "nan"].contains(word.lowercased()) ? word : nil
    }

    /// `T2024-01-02@10:00:00`, `2024-01-02@10:00:00:500000000` or `T1712345678:123`.
    mutating func readDate() throws -> PredicateToken {
        let start = index
        skip { Self.isNamePart($0) || $0 == "-" || $0 == ":" || $0 == "@" }
        let text = text(from: start)
        return PredicateToken(kind: .literal(.date(try PredicateDate.date(of: text, at: start))), position: start, text: text)
    }

    /// A string in single or double quotes, with the escapes `\\ \' \" \n \t \r \0 \uXXXX`.
    mutating func readString(quote: Character) throws -> PredicateToken {
        let start = index
        index += 1
        var value = ""
        while let character = peek() {
            index += 1
            if character == quote {
                return token(.literal(.string(value)), from: start)
            }
            if character == "\\" {
                value.unicodeScalars.append(contentsOf: try readEscape(backslashAt: index - 1, stringStart: start))
            } else {
                value.append(character)
            }
        }
        throw PredicateSyntaxError(position: start, message: "unterminated string; add the closing \(quote)")
    }

    /// The character(s) an escape sequence stands for; the backslash has been read.
    mutating func readEscape(backslashAt position: Int, stringStart: Int) throws -> String.UnicodeScalarView {
        guard let character = peek() else {
            throw PredicateSyntaxError(position: stringStart, message: "unterminated string")
        }
        index += 1
        switch character {
        case "\\", "'", "\"": return String(character).unicodeScalars
        case "/": return "/".unicodeScalars
        case "b": return "\u{8}".unicodeScalars
        case "f": return "\u{C}".unicodeScalars
        case "n": return "\n".unicodeScalars
        case "t": return "\t".unicodeScalars
        case "r": return "\r".unicodeScalars
        case "0": return "\0".unicodeScalars
        case "u":
            var code = try readHexEscape(at: position)
            if (0xD800...0xDBFF).contains(code) {
                guard peek() == "\\", peek(1) == "u" else {
                    throw PredicateSyntaxError(position: position, message: "'\\u\(String(code, radix: 16, uppercase: true))' is half of a surrogate pair; add the low surrogate")
                }
                index += 2
                let low = try readHexEscape(at: index - 2)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw PredicateSyntaxError(position: index - 6, message: "'\\u\(String(low, radix: 16, uppercase: true))' is not a low surrogate")
                }
                code = 0x10000 + (code - 0xD800) << 10 + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(code) else {
                throw PredicateSyntaxError(position: position, message: "'\\u\(String(code, radix: 16, uppercase: true))' is not a Unicode character")
            }
            return String(Character(scalar)).unicodeScalars
        default:
            throw PredicateSyntaxError(
                position: position,
                message: "unknown escape sequence '\\\(character)'; use \\\\, \\', \\\", \\n, \\t, \\r, \\0 or \\uXXXX")
        }
    }

    /// The four hexadecimal digits after `\u`.
    mutating func readHexEscape(at position: Int) throws -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let character = peek(), character.isASCII, let digit = character.hexDigitValue else {
                throw PredicateSyntaxError(position: position, message: "'\\u' must be followed by four hexadecimal digits")
            }
            code = code << 4 | UInt32(digit)
            index += 1
        }
        return code
    }

    /// `uuid(…)` or `oid(…)`; the word has been read and the current character is `(`.
    mutating func readWrappedLiteral(_ word: String, from start: Int) throws -> PredicateToken {
        index += 1
        let contentStart = index
        skip { $0 != ")" }
        guard peek() == ")" else {
            throw PredicateSyntaxError(position: start, message: "missing ')' to close \(word)(")
        }
        let content = String(characters[contentStart..<index])
        index += 1
        let shown = PredicateSyntaxError.quote(content)
        if word.lowercased() == "uuid" {
            guard Self.isUUIDText(content), let uuid = UUID(uuidString: content) else {
                throw PredicateSyntaxError(
                    position: start,
                    message: "invalid UUID \(shown); expected uuid(XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX) with hexadecimal digits")
            }
            return token(.literal(.uuid(uuid)), from: start)
        }
        guard let id = ObjectId(string: content) else {
            throw PredicateSyntaxError(position: start, message: "invalid ObjectId \(shown); expected oid( with 24 hexadecimal digits )")
        }
        return token(.literal(.objectId(id)), from: start)
    }

    /// Whether `text` has the form `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` in hexadecimal digits.
    static func isUUIDText(_ text: String) -> Bool {
        let characters = Array(text)
        guard characters.count == 36 else { return false }
        return characters.enumerated().allSatisfy { offset, character in
            [8, 13, 18, 23].contains(offset) ? character == "-" : character.isASCII && character.isHexDigit
        }
    }

    /// `bin('…')`, `binary("…")`, `bin(B64"…")`: data made of a string's UTF-8 or of base64, as
    /// realm-core writes binary constants; the word has been read and `(` follows.
    mutating func readBinary(_ word: String, from start: Int) throws -> PredicateToken {
        index += 1
        skipWhitespace()
        let inner: PredicateToken
        switch peek() {
        case "\"", "'":
            inner = try readString(quote: peek() ?? "\"")
        case let character? where Self.isNamePart(character):
            inner = try readWord()
        default:
            inner = PredicateToken(kind: .end, position: index, text: "")
        }
        let data: Data
        switch inner.kind {
        case .literal(.string(let text)): data = Data(text.utf8)
        case .literal(.data(let bytes)): data = bytes
        default:
            throw PredicateSyntaxError(position: start, message: "\(word)( takes a quoted string or B64\"…\" data")
        }
        skipWhitespace()
        guard peek() == ")" else {
            throw PredicateSyntaxError(position: start, message: "missing ')' to close \(word)(")
        }
        index += 1
        return token(.literal(.data(data)), from: start)
    }

    /// `B64"…"`: base64-encoded data; the word `B64` has been read and a quote follows.
    mutating func readBase64(from start: Int) throws -> PredicateToken {
        guard let quote = peek() else {
            throw PredicateSyntaxError(position: start, message: "B64 must be followed by quoted base64 data")
        }
        index += 1
        let contentStart = index
        skip { $0 != quote }
        guard peek() == quote else {
            throw PredicateSyntaxError(position: start, message: "unterminated B64 data; add the closing \(quote)")
        }
        let content = String(characters[contentStart..<index])
        index += 1
        guard let data = Data(base64Encoded: content) else {
            throw PredicateSyntaxError(position: start, message: "invalid base64 data \(PredicateSyntaxError.quote(content))")
        }
        return token(.literal(.data(data)), from: start)
    }
}

/// Number literals: decimal and hexadecimal integers, and floating-point numbers.
enum PredicateNumber {
    /// The value of a number literal: `.int` for integers (`42`, `-7`, `0x1F`), `.double` for
    /// numbers with a fraction or an exponent (`1.5`, `2e-3`).
    /// - Throws: ``PredicateSyntaxError`` at `position` for malformed numbers and integers
    ///   outside `Int64`.
    static func value(of text: String, at position: Int) throws -> QueryValue {
        let negative = text.hasPrefix("-")
        let body = negative ? text.dropFirst() : Substring(text)
        let invalid = PredicateSyntaxError(position: position, message: "\(PredicateSyntaxError.quote(text)) is not a valid number")
        let outOfRange = PredicateSyntaxError(
            position: position, message: "\(PredicateSyntaxError.quote(text)) is out of range for a 64-bit integer")
        if body.hasPrefix("0x") || body.hasPrefix("0X") {
            let digits = body.dropFirst(2)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { throw invalid }
            guard let magnitude = UInt64(digits, radix: 16) else { throw outOfRange }
            if negative {
                guard magnitude <= UInt64(Int64.max) + 1 else { throw outOfRange }
                return .int(Int64(bitPattern: 0 &- magnitude))
            }
            guard let value = Int64(exactly: magnitude) else { throw outOfRange }
            return .int(value)
        }
        if !body.isEmpty, body.allSatisfy(PredicateLexer.isDigit) {
            guard let value = Int64(text) else { throw outOfRange }
            return .int(value)
        }
        guard isFloatingPoint(body), let value = Double(text) else { throw invalid }
        guard value.isFinite else {
            throw PredicateSyntaxError(position: position, message: "\(PredicateSyntaxError.quote(text)) is out of range for a Double")
        }
        return .double(value)
    }

    /// Whether `text` is `digits[.digits][e[+-]digits]` with a fraction, an exponent or both.
    static func isFloatingPoint(_ text: Substring) -> Bool {
        let characters = Array(text)
        var index = 0
        /// Reads a run of digits; whether there was at least one.
        func digits() -> Bool {
            let start = index
            while index < characters.count, PredicateLexer.isDigit(characters[index]) { index += 1 }
            return index > start
        }
        // `10.`, `.5` and `1.5` are numbers (Realm's grammar); `.` alone is not.
        let whole = digits()
        var isFloat = false
        if index < characters.count, characters[index] == "." {
            index += 1
            guard digits() || whole else { return false }
            isFloat = true
        } else if !whole {
            return false
        }
        if index < characters.count, characters[index] == "e" || characters[index] == "E" {
            index += 1
            if index < characters.count, characters[index] == "+" || characters[index] == "-" { index += 1 }
            guard digits() else { return false }
            isFloat = true
        }
        return isFloat && index == characters.count
    }
}
