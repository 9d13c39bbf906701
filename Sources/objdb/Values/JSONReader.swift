/// A JSON value, as the one JSON reader of the CLI parses it (RFC 8259): for `import`, `load`,
/// the dump header, CSV cells holding collections and `store`'s state. Numbers keep their text,
/// so that each is read exactly as its property's type (an `Int64` beyond 2^53, a `Float`'s
/// shortest form) instead of through a `Double`.
enum JSONValue: Equatable {
    case null
    case bool(Bool)
    /// A number's text, as written.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// What kind of value this is, for messages.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number(let text): "the number \(text)"
        case .string(let text): "the string \"\(text.count > 40 ? String(text.prefix(40)) + "…" : text)\""
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Whether this is a number (rather than a number's name in a string, such as `"nan"`).
    var isNumber: Bool {
        if case .number = self { return true }
        return false
    }

    /// Parses `bytes` (UTF-8) as one JSON value.
    static func parse(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        try parseRecordingLines(Array(bytes)).value
    }

    /// Parses `bytes` as one JSON value, with the line (from 1) on which each element starts of
    /// the top-level array (under `""`) and of each array that is a member of the top-level
    /// object (under its name): the objects of `import`'s JSON, an array or the export's
    /// `{"Class": [...]}`.
    static func parseRecordingLines(_ bytes: [UInt8]) throws(JSONSyntaxError) -> (value: JSONValue, lines: [String: [Int]]) {
        var parser = JSONParser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0, recording: "")
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.error("text after the value") }
        var lines: [String: [Int]] = [:]
        var line = 1, scanned = 0
        // Offsets ascend within each array, and arrays do not overlap: one pass in offset order.
        for (key, offsets) in parser.elementStarts.sorted(by: { ($0.value.first ?? 0) < ($1.value.first ?? 0) }) {
            lines[key] = offsets.map { offset in
                while scanned < offset {
                    if bytes[scanned] == 0x0A { line += 1 }
                    scanned += 1
                }
                return line
            }
        }
        return (value, lines)
    }
}

/// Why a text is not JSON, and where: the byte offset from the start, from 1.
struct JSONSyntaxError: Error {
    /// The byte offset of the failure in the text parsed, from 1 (the column, in one line).
    let column: Int
    /// What is wrong.
    let reason: String

    /// The line and column (from 1) of the failure in `bytes`, the text parsed.
    func position(in bytes: [UInt8]) -> (line: Int, column: Int) {
        let end = min(column - 1, bytes.count)
        let line = 1 + bytes[..<end].count(where: { $0 == 0x0A })
        let lineStart = bytes[..<end].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        return (line, end - lineStart + 1)
    }
}

/// A recursive-descent JSON parser (RFC 8259) over bytes.
private struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    /// The offsets at which elements start of the arrays asked for, by the name given.
    var elementStarts: [String: [Int]] = [:]
    /// Nesting deeper than this is refused rather than risk the stack.
    static let maximumDepth = 512

    func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(column: index + 1, reason: reason) }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    /// The value at `index`; an array records its elements' starts under `recording`, and the
    /// members of an object at depth 0 record theirs under their names.
    mutating func value(depth: Int, recording: String? = nil) throws(JSONSyntaxError) -> JSONValue {
        guard depth < Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) levels") }
        guard index < bytes.count else { throw error("a value is missing") }
        switch bytes[index] {
        case 0x7B: return try object(depth: depth)
        case 0x5B: return try array(depth: depth, recording: recording)
        case 0x22: return .string(try string())
        case 0x74: try literal("true"); return .bool(true)
        case 0x66: try literal("false"); return .bool(false)
        case 0x6E: try literal("null"); return .null
        case 0x2D, 0x30...0x39: return .number(try number())
        default: throw error("unexpected character")
        }
    }

    mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let utf8 = Array(word.utf8)
        guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
            throw error("unexpected character")
        }
        index += utf8.count
    }

    mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        skipSpace()
        if index < bytes.count, bytes[index] == 0x7D {
            index += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == 0x22 else { throw error("a member name (a string) is missing") }
            let nameStart = index
            let name = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == 0x3A else { throw error("':' is missing") }
            index += 1
            skipSpace()
            guard members.updateValue(try value(depth: depth + 1, recording: depth == 0 ? name : nil), forKey: name) == nil else {
                throw JSONSyntaxError(column: nameStart + 1, reason: "the member \"\(name)\" appears twice")
            }
            skipSpace()
            guard index < bytes.count else { throw error("'}' is missing") }
            if bytes[index] == 0x2C {
                index += 1
                continue
            }
            guard bytes[index] == 0x7D else { throw error("',' or '}' is missing") }
            index += 1
            return .object(members)
        }
    }

    mutating func array(depth: Int, recording: String?) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == 0x5D {
            index += 1
            return .array(elements)
        }
        while true {
            skipSpace()
            if let recording { elementStarts[recording, default: []].append(index) }
            elements.append(try value(depth: depth + 1))
            skipSpace()
            guard index < bytes.count else { throw error("']' is missing") }
            if bytes[index] == 0x2C {
                index += 1
                continue
            }
            guard bytes[index] == 0x5D else { throw error("',' or ']' is missing") }
            index += 1
            return .array(elements)
        }
    }

    mutating func number() throws(JSONSyntaxError) -> String {
        let start = index
        func digits(_ parser: inout JSONParser) -> Int {
            let first = parser.index
            while parser.index < parser.bytes.count, (0x30...0x39).contains(parser.bytes[parser.index]) { parser.index += 1 }
            return parser.index - first
        }
        if bytes[index] == 0x2D { index += 1 }
        let integer = index
        guard digits(&self) > 0 else { throw error("a digit is missing") }
        if bytes[integer] == 0x30 && index - integer > 1 { throw error("a number has a leading zero") }
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            guard digits(&self) > 0 else { throw error("a digit is missing after '.'") }
        }
        if index < bytes.count, bytes[index] == 0x65 || bytes[index] == 0x45 {
            index += 1
            if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
            guard digits(&self) > 0 else { throw error("a digit is missing in the exponent") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func string() throws(JSONSyntaxError) -> String {
        index += 1
        var text: [UInt8] = []
        var start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x22 {
                text.append(contentsOf: bytes[start..<index])
                index += 1
                return String(decoding: text, as: UTF8.self)
            }
            guard byte >= 0x20 else { throw error("a control character inside a string") }
            guard byte == 0x5C else {
                index += 1
                continue
            }
            text.append(contentsOf: bytes[start..<index])
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case 0x22, 0x5C, 0x2F: text.append(escape)
            case 0x62: text.append(0x08)
            case 0x66: text.append(0x0C)
            case 0x6E: text.append(0x0A)
            case 0x72: text.append(0x0D)
            case 0x74: text.append(0x09)
            case 0x75:
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard index + 1 < bytes.count, bytes[index] == 0x5C, bytes[index + 1] == 0x75 else {
                        throw error("a lone surrogate in \\u escapes")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate in \\u escapes") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw error("a lone surrogate in \\u escapes") }
                text.append(contentsOf: Array(String(Character(unicode)).utf8))
            default:
                index -= 1
                throw error("an unknown escape")
            }
            start = index
        }
        throw error("a string is not closed")
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("a \\u escape needs 4 hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw error("a \\u escape needs 4 hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
