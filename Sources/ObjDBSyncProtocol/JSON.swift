import Foundation
import ObjDB

/// A JSON value as the sync protocol reads and writes it: numbers keep their exact text, so that
/// no integer or floating-point value loses a bit on the way (Foundation's `JSONSerialization`
/// goes through `Double` and `NSNumber`).
public indirect enum SyncJSON: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its JSON text (`-12`, `1.5e-300`).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([SyncJSON])
    /// An object; keys keep their order of appearance (the writer sorts none).
    case object([(String, SyncJSON)])

    /// Equal when of the same case with equal contents (objects compared as key sets).
    public static func == (lhs: SyncJSON, rhs: SyncJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)):
            a.count == b.count && zip(a.sorted { $0.0 < $1.0 }, b.sorted { $0.0 < $1.0 }).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// The value of a key of an object (`nil` if absent or not an object).
    public subscript(key: String) -> SyncJSON? {
        guard case .object(let entries) = self else { return nil }
        return entries.first { $0.0 == key }?.1
    }

    // MARK: Writing

    /// The compact JSON text of the value.
    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let entries):
            out += "{"
            for (i, (key, value)) in entries.enumerated() {
                if i > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        // Most strings need no escape: append them whole rather than scalar by scalar.
        if !s.utf8.contains(where: { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }) {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    // MARK: Reading

    /// Parses JSON text; throws ``ObjDBError`` (`.invalidValue`, key `malformedMessage`) with the
    /// byte offset of the first error.
    public static func parse(_ text: String) throws -> SyncJSON {
        var parser = Parser(bytes: Array(text.utf8))
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    struct Parser {
        let bytes: [UInt8]
        var index = 0
        static let maxDepth = 512

        func error(_ message: String) -> ObjDBError {
            ObjDBError(.invalidValue, "Malformed JSON at byte \(index): \(message)", key: SyncErrorCode.malformedMessage)
        }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        mutating func expect(_ literal: String) throws {
            let lit = Array(literal.utf8)
            guard index + lit.count <= bytes.count, Array(bytes[index..<index + lit.count]) == lit else {
                throw error("expected '\(literal)'")
            }
            index += lit.count
        }

        mutating func parseValue(depth: Int) throws -> SyncJSON {
            guard depth < Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth) levels") }
            guard index < bytes.count else { throw error("unexpected end of text") }
            switch bytes[index] {
            case UInt8(ascii: "n"): try expect("null"); return .null
            case UInt8(ascii: "t"): try expect("true"); return .bool(true)
            case UInt8(ascii: "f"): try expect("false"); return .bool(false)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "["):
                index += 1
                var items: [SyncJSON] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                while true {
                    skipWhitespace()
                    items.append(try parseValue(depth: depth + 1))
                    skipWhitespace()
                    guard index < bytes.count else { throw error("unterminated array") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                    throw error("expected ',' or ']'")
                }
            case UInt8(ascii: "{"):
                index += 1
                var entries: [(String, SyncJSON)] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(entries) }
                while true {
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key string") }
                    let key = try parseString()
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
                    index += 1
                    skipWhitespace()
                    let value = try parseValue(depth: depth + 1)
                    if entries.contains(where: { $0.0 == key }) { throw error("duplicate key \"\(key)\"") }
                    entries.append((key, value))
                    skipWhitespace()
                    guard index < bytes.count else { throw error("unterminated object") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(entries) }
                    throw error("expected ',' or '}'")
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return .number(try parseNumber())
            default:
                throw error("unexpected character")
            }
        }

        mutating func parseNumber() throws -> String {
            let start = index
            func digits(_ p: inout Parser) -> Int {
                let s = p.index
                while p.index < p.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(p.bytes[p.index]) { p.index += 1 }
                return p.index - s
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            let intStart = index
            let intDigits = digits(&self)
            guard intDigits > 0 else { throw error("expected digits") }
            if intDigits > 1, bytes[intStart] == UInt8(ascii: "0") { throw error("leading zero in a number") }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw error("expected digits after '.'") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits(&self) > 0 else { throw error("expected exponent digits") }
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func parseHex4() throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("short \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[index]
                let d: UInt32
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
                default: throw error("bad hex digit in \\u escape")
                }
                v = v << 4 | d
                index += 1
            }
            return v
        }

        mutating func parseString() throws -> String {
            index += 1  // opening quote
            var out = String.UnicodeScalarView()
            var runStart = index
            func flush(_ p: Parser, _ end: Int, into out: inout String.UnicodeScalarView) throws {
                if end > runStart {
                    guard let s = String(validating: p.bytes[runStart..<end], as: UTF8.self) else {
                        throw p.error("invalid UTF-8 in a string")
                    }
                    out.append(contentsOf: s.unicodeScalars)
                }
            }
            let start = index
            while index < bytes.count {
                let c = bytes[index]
                if c == UInt8(ascii: "\"") {
                    // No escape: the bytes are the string (most strings; no scalar-by-scalar copy).
                    if runStart == start {
                        guard let s = String(validating: bytes[start..<index], as: UTF8.self) else { throw error("invalid UTF-8 in a string") }
                        index += 1
                        return s
                    }
                    try flush(self, index, into: &out)
                    index += 1
                    return String(out)
                }
                if c < 0x20 { throw error("control character in a string") }
                if c == UInt8(ascii: "\\") {
                    try flush(self, index, into: &out)
                    index += 1
                    guard index < bytes.count else { throw error("unterminated escape") }
                    let e = bytes[index]
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""): out.append("\"")
                    case UInt8(ascii: "\\"): out.append("\\")
                    case UInt8(ascii: "/"): out.append("/")
                    case UInt8(ascii: "b"): out.append("\u{08}")
                    case UInt8(ascii: "f"): out.append("\u{0C}")
                    case UInt8(ascii: "n"): out.append("\n")
                    case UInt8(ascii: "r"): out.append("\r")
                    case UInt8(ascii: "t"): out.append("\t")
                    case UInt8(ascii: "u"):
                        var v = try parseHex4()
                        if (0xD800...0xDBFF).contains(v) {
                            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                                throw error("unpaired surrogate")
                            }
                            index += 2
                            let low = try parseHex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                            v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(v) {
                            throw error("unpaired surrogate")
                        }
                        guard let scalar = Unicode.Scalar(v) else { throw error("invalid \\u escape") }
                        out.append(scalar)
                    default: throw error("unknown escape")
                    }
                    runStart = index
                    continue
                }
                index += 1
            }
            throw error("unterminated string")
        }
    }
}
