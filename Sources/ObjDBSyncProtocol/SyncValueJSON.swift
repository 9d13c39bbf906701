import Foundation
import ObjDB

/// The error codes of the sync protocol, as ``ServerMessage/error(code:message:)`` carries them
/// and as the `key` of the ``ObjDBError`` that ``SyncMessageCoding`` throws.
public enum SyncErrorCode {
    /// The text is not JSON, or a message lacks a field or holds a wrong one.
    public static let malformedMessage = "malformedMessage"
    /// A message is longer than ``SyncLimits/maxMessageBytes``.
    public static let messageTooLarge = "messageTooLarge"
    /// A message's `type` is not one this version knows.
    public static let unknownMessageType = "unknownMessageType"
    /// The hello asks for a protocol version the server does not speak.
    public static let unsupportedProtocolVersion = "unsupportedProtocolVersion"
    /// A message came out of order (an upload before the hello, a second hello, sequences that
    /// are not ascending and contiguous, an upload larger than ``SyncLimits/maxOperationsPerUpload``).
    public static let protocolViolation = "protocolViolation"
    /// The client's schema does not match the server's tables (names the class and property).
    public static let schemaMismatch = "schemaMismatch"
    /// The client id belongs to another user.
    public static let clientIDInUse = "clientIDInUse"
    /// A query subscription the service cannot evaluate: outside the portable part of the
    /// predicate language, or naming a property the class lacks (the message says which).
    public static let invalidQuery = "invalidQuery"
    /// The client fell too far behind (its outbound buffer overflowed): reconnect and resume
    /// from the last checkpoint.
    public static let tooSlow = "tooSlow"
    /// The server failed (PostgreSQL unreachable…); reconnect later.
    public static let internalError = "internalError"
}

/// The exact JSON form of ``SyncValue`` (Docs/SyncProtocol.md, "Values").
///
/// Every value but `null` is an object with one key naming its type: `{"int":"-5"}`,
/// `{"double":1.5}`, `{"double":"NaN"}`, `{"date":1700000000.25}`, `{"link":{"string":"a"}}`.
public enum SyncValueJSON {
    /// Seconds from 1970 to 2001 (Foundation's reference date), as decimal text.
    public static let secondsFrom1970To2001 = "978307200"

    /// The JSON of a value.
    public static func encode(_ value: SyncValue) -> SyncJSON {
        switch value {
        case .null: .null
        case .bool(let b): .object([("bool", .bool(b))])
        case .int(let i): .object([("int", .string(String(i)))])
        case .float(let f): .object([("float", floatJSON(f))])
        case .double(let d): .object([("double", doubleJSON(d))])
        case .string(let s): .object([("string", .string(s))])
        case .data(let d): .object([("data", .string(d.base64EncodedString()))])
        case .date(let d): .object([("date", dateJSON(d))])
        case .decimal(let d): .object([("decimal", .string(d.description))])
        case .uuid(let u): .object([("uuid", .string(u.uuidString))])
        case .objectId(let o): .object([("objectId", .string(o.description))])
        case .link(let v): .object([("link", encode(v))])
        case .list(let items): .object([("list", .array(items.map(encode)))])
        case .map(let entries): .object([("map", .object(entries.sorted { $0.key < $1.key }.map { ($0.key, encode($0.value)) }))])
        case .object(let entries): .object([("object", .object(entries.sorted { $0.key < $1.key }.map { ($0.key, encode($0.value)) }))])
        }
    }

    /// The value of its JSON; throws ``ObjDBError`` (`.invalidValue`, key `malformedMessage`).
    public static func decode(_ json: SyncJSON) throws -> SyncValue {
        if case .null = json { return .null }
        guard case .object(let entries) = json, entries.count == 1 else {
            throw malformed("a value must be null or an object with one type key, not \(json.text.prefix(80))")
        }
        let (tag, payload) = entries[0]
        switch tag {
        case "bool":
            guard case .bool(let b) = payload else { throw malformed("\"bool\" needs true or false") }
            return .bool(b)
        case "int":
            guard case .string(let s) = payload, let i = Int64(s) else { throw malformed("\"int\" needs a decimal string of a 64-bit integer") }
            return .int(i)
        case "float":
            guard let f = floatValue(payload) else { throw malformed("\"float\" needs a number or \"NaN\", \"Infinity\", \"-Infinity\", \"-0\"") }
            return .float(f)
        case "double":
            guard let d = doubleValue(payload) else { throw malformed("\"double\" needs a number or \"NaN\", \"Infinity\", \"-Infinity\", \"-0\"") }
            return .double(d)
        case "string":
            guard case .string(let s) = payload else { throw malformed("\"string\" needs a string") }
            return .string(s)
        case "data":
            guard case .string(let s) = payload, let d = Data(base64Encoded: s) else { throw malformed("\"data\" needs base64") }
            return .data(d)
        case "date":
            guard let d = dateValue(payload) else { throw malformed("\"date\" needs seconds since 1970 or \"NaN\", \"Infinity\", \"-Infinity\", \"-0\"") }
            return .date(d)
        case "decimal":
            guard case .string(let s) = payload, s == "NaN" || isDecimalText(s),
                let d = Decimal(syncText: s)
            else { throw malformed("\"decimal\" needs a decimal string") }
            return .decimal(d)
        case "uuid":
            guard case .string(let s) = payload, let u = UUID(uuidString: s) else { throw malformed("\"uuid\" needs a UUID string") }
            return .uuid(u)
        case "objectId":
            guard case .string(let s) = payload, s.utf8.count == 24, let o = ObjectId(s) else { throw malformed("\"objectId\" needs 24 hex digits") }
            return .objectId(o)
        case "link":
            return .link(try decode(payload))
        case "list":
            guard case .array(let items) = payload else { throw malformed("\"list\" needs an array") }
            return .list(try items.map(decode))
        case "map", "object":
            guard case .object(let fields) = payload else { throw malformed("\"\(tag)\" needs an object") }
            var out: [String: SyncValue] = [:]
            for (k, v) in fields { out[k] = try decode(v) }
            return tag == "map" ? .map(out) : .object(out)
        default:
            throw malformed("unknown value type \"\(tag)\"")
        }
    }

    static func isDecimalText(_ s: String) -> Bool {
        guard let first = s.utf8.first, first != UInt8(ascii: "+") else { return false }
        return ExactDecimal(s) != nil
    }

    static func malformed(_ message: String) -> ObjDBError {
        ObjDBError(.invalidValue, "Malformed sync message: \(message)", key: SyncErrorCode.malformedMessage)
    }

    // MARK: Floating point

    static func specialText(isNaN: Bool, isInfinite: Bool, isNegative: Bool, isZero: Bool) -> String? {
        if isNaN { return "NaN" }
        if isInfinite { return isNegative ? "-Infinity" : "Infinity" }
        if isZero && isNegative { return "-0" }
        return nil
    }

    /// `{"double": …}`'s payload: the shortest text that reads back as the same bits.
    static func doubleJSON(_ d: Double) -> SyncJSON {
        if let s = specialText(isNaN: d.isNaN, isInfinite: d.isInfinite, isNegative: d.sign == .minus, isZero: d.isZero) { return .string(s) }
        return .number(jsonNumber(d.description))
    }

    static func floatJSON(_ f: Float) -> SyncJSON {
        if let s = specialText(isNaN: f.isNaN, isInfinite: f.isInfinite, isNegative: f.sign == .minus, isZero: f.isZero) { return .string(s) }
        return .number(jsonNumber(f.description))
    }

    /// Swift prints `1e+16`, `5e-324`, `0.0`: all valid JSON numbers already; `inf`/`nan` never
    /// reach here.
    static func jsonNumber(_ swiftText: String) -> String { swiftText }

    static func special(_ json: SyncJSON) -> Double? {
        guard case .string(let s) = json else { return nil }
        switch s {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        case "-0": return -0.0
        default: return nil
        }
    }

    static func doubleValue(_ json: SyncJSON) -> Double? {
        if let s = special(json) { return s }
        guard case .number(let n) = json, let d = Double(n), d.isFinite else { return nil }
        return d
    }

    static func floatValue(_ json: SyncJSON) -> Float? {
        if let s = special(json) { return Float(s) }
        guard case .number(let n) = json, let f = Float(n), f.isFinite else { return nil }
        return f
    }

    // MARK: Dates

    /// A date as seconds since 1970, written exactly: the shortest decimal of the date's
    /// seconds since 2001 (what `Date` stores) plus 978307200, added in decimal, so that reading
    /// it back (subtracting in decimal) gives the same bits for every date. A plain double from
    /// another client reads as the nearest date.
    static func dateJSON(_ date: Date) -> SyncJSON {
        let t = date.timeIntervalSinceReferenceDate
        if t.isNaN { return .string("NaN") }
        if t.isInfinite { return .string(t < 0 ? "-Infinity" : "Infinity") }
        guard let exact = ExactDecimal(t.description) else { return .number(String(date.timeIntervalSince1970)) }
        return .number(exact.adding(ExactDecimal.offset).text)
    }

    static func dateValue(_ json: SyncJSON) -> Date? {
        if let s = special(json) {
            // "-0" is −0 seconds since 1970; NaN and ±∞ are the same in both epochs.
            return s.isNaN || s.isInfinite ? Date(timeIntervalSinceReferenceDate: s) : Date(timeIntervalSince1970: s)
        }
        guard case .number(let n) = json, let value = ExactDecimal(n) else { return nil }
        let since2001 = value.adding(ExactDecimal.offset.negated).text
        guard let t = Double(since2001), t.isFinite else { return nil }
        return Date(timeIntervalSinceReferenceDate: t)
    }

    /// A date as the exact decimal text of its seconds since 1970 (`NaN`, `Infinity` or
    /// `-Infinity` for the others): what a `numeric` column holds, so that every bit of the
    /// date comes back (a `double precision` column would round about half of them).
    public static func exactSecondsSince1970(_ date: Date) -> String {
        switch dateJSON(date) {
        case .number(let text), .string(let text): text
        default: String(date.timeIntervalSince1970)
        }
    }

    /// The date of ``exactSecondsSince1970(_:)``'s text, or of any decimal number of seconds
    /// since 1970; `nil` for text that is neither.
    public static func date(exactSecondsSince1970 text: String) -> Date? {
        switch text {
        case "NaN": Date(timeIntervalSinceReferenceDate: .nan)
        case "Infinity": Date(timeIntervalSinceReferenceDate: .infinity)
        case "-Infinity": Date(timeIntervalSinceReferenceDate: -.infinity)
        default: dateValue(.number(text))
        }
    }
}

/// An exact decimal number: an unbounded digit string times a power of ten, for adding the
/// 1970–2001 offset to a date without rounding.
struct ExactDecimal {
    var negative: Bool
    /// Most significant digit first, no leading zeros (empty for zero).
    var digits: [UInt8]
    var exponent: Int

    static let offset = ExactDecimal(negative: false, digits: [9, 7, 8, 3, 0, 7, 2], exponent: 2)

    init(negative: Bool, digits: [UInt8], exponent: Int) {
        self.negative = negative
        self.digits = digits
        self.exponent = exponent
        normalize()
    }

    /// Parses a JSON number or Swift's description of a finite Double.
    init?(_ text: String) {
        var bytes = Array(text.utf8)[...]
        negative = false
        if bytes.first == UInt8(ascii: "-") { negative = true; bytes = bytes.dropFirst() }
        var digits: [UInt8] = []
        var exponent = 0
        var seenDot = false
        var any = false
        while let c = bytes.first, c != UInt8(ascii: "e"), c != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if c == UInt8(ascii: ".") {
                if seenDot { return nil }
                seenDot = true
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) else { return nil }
            digits.append(c - UInt8(ascii: "0"))
            any = true
            if seenDot { exponent -= 1 }
        }
        guard any else { return nil }
        if !bytes.isEmpty {
            bytes = bytes.dropFirst()
            guard let e = Int(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "+", with: "")), abs(e) < 10_000 else { return nil }
            exponent += e
        }
        self.digits = digits
        self.exponent = exponent
        normalize()
    }

    var negated: ExactDecimal { ExactDecimal(negative: !negative, digits: digits, exponent: exponent) }

    mutating func normalize() {
        if let first = digits.firstIndex(where: { $0 != 0 }) { digits.removeFirst(first) } else { digits = [] }
        while let last = digits.last, last == 0 { digits.removeLast(); exponent += 1 }
        if digits.isEmpty { negative = false; exponent = 0 }
    }

    /// The digits scaled to `exponent` (which is ≤ self.exponent), least significant first.
    func scaled(to e: Int) -> [UInt8] { Array(repeating: 0, count: exponent - e) + digits.reversed() }

    func adding(_ other: ExactDecimal) -> ExactDecimal {
        if digits.isEmpty { return other }
        if other.digits.isEmpty { return self }
        let e = min(exponent, other.exponent)
        let a = scaled(to: e), b = other.scaled(to: e)
        if negative == other.negative {
            var out: [UInt8] = []
            var carry: UInt8 = 0
            for i in 0..<max(a.count, b.count) {
                let s = (i < a.count ? a[i] : 0) + (i < b.count ? b[i] : 0) + carry
                out.append(s % 10)
                carry = s / 10
            }
            if carry > 0 { out.append(carry) }
            return ExactDecimal(negative: negative, digits: out.reversed(), exponent: e)
        }
        // Different signs: subtract the smaller magnitude from the larger.
        func less(_ x: [UInt8], _ y: [UInt8]) -> Bool {
            let xs = Array(x.reversed().drop { $0 == 0 }), ys = Array(y.reversed().drop { $0 == 0 })
            if xs.count != ys.count { return xs.count < ys.count }
            return xs.lexicographicallyPrecedes(ys)
        }
        let (big, small, sign) = less(a, b) ? (b, a, other.negative) : (a, b, negative)
        var out: [UInt8] = []
        var borrow: Int = 0
        for i in 0..<big.count {
            var d = Int(big[i]) - borrow - Int(i < small.count ? small[i] : 0)
            borrow = 0
            if d < 0 { d += 10; borrow = 1 }
            out.append(UInt8(d))
        }
        return ExactDecimal(negative: sign, digits: out.reversed(), exponent: e)
    }

    /// Plain decimal text (`-12.5`, `0.001`, `1500`), or with an exponent when that is much
    /// shorter.
    var text: String {
        if digits.isEmpty { return "0" }
        let ds = String(decoding: digits.map { $0 + UInt8(ascii: "0") }, as: UTF8.self)
        let sign = negative ? "-" : ""
        if exponent >= 0 {
            if exponent > 20 { return sign + ds + "e" + String(exponent) }
            return sign + ds + String(repeating: "0", count: exponent)
        }
        let fraction = -exponent
        if fraction >= digits.count {
            if fraction - digits.count > 20 { return sign + ds + "e" + String(exponent) }
            return sign + "0." + String(repeating: "0", count: fraction - digits.count) + ds
        }
        let cut = ds.index(ds.startIndex, offsetBy: digits.count - fraction)
        return sign + ds[..<cut] + "." + ds[cut...]
    }
}
