import Foundation
@_spi(Inspection) import ObjDB

/// The one table of conversions between outside values — text (a CSV cell, a command-line
/// argument, the content of a JSON string) and JSON — and typed ObjDB values, per property type,
/// both ways (`Docs/CLI.md`, "Values"). Every reader (`import`, `load`, `set`, `get`, `delete`)
/// and every writer (`export`, `query`, `get`, `dump`, `watch`, `store`) spells values here.
///
/// | type | text | JSON |
/// |:--|:--|:--|
/// | `Bool` | `true`, `false` (read also: `yes`, `no`, `1`, `0`, any case) | `true`, `false` |
/// | `Int`…`Int64` | decimal, checked against the width | number |
/// | `Float`, `Double` | shortest text that reads back to the same value; `nan`, `inf`, `-inf` | number; the names as strings |
/// | `String` | itself | string |
/// | `Data` | base64 | string |
/// | `Date` | ISO 8601, exact (``DateText``) | string |
/// | `Decimal` | its canonical text, `NaN` | string (read also: number) |
/// | `UUID` | its text | string |
/// | `ObjectId` | 24 hex digits | string |
/// | `MixedValue` | the held value's text (read: a string, or JSON when it starts with `[` or `{`) | booleans, integers and finite doubles bare, strings as strings, other values `{"$type": "float", "value": "1.5"}` (`@type`'s names); lists, dictionaries and links as ``MixedWriting`` and ``MixedReader`` spell them |
///
/// Enums are stored, read and written as their raw values. Links, embedded objects and
/// collections are the object reader's and writer's (``ObjectReader``, ``ObjectWriter``).
enum ValueConversion {
    /// Why an outside value is not a value of a property's type: what the type needs, as in
    /// "'old' is not *an integer*".
    struct Refusal: Error {
        let needs: String
    }

    /// What a value of `type` is, in messages.
    static func expected(_ type: PropertyType) -> String {
        switch type {
        case .bool: "true or false"
        case .int: "an integer"
        case .float, .double: "a number"
        case .string: "a string"
        case .data: "base64"
        case .date: DateText.expected
        case .uuid: "a UUID"
        case .decimal: "a decimal number"
        case .objectId: "an ObjectId (24 hex digits)"
        case .object, .linkingObjects: "a link"
        case .mixed: "a mixed value"
        }
    }

    // MARK: Reading

    /// `text` as a value of `type` (integers of `bits`, 8 to 64).
    static func value(_ text: String, _ type: PropertyType, bits: Int = 64) throws(Refusal) -> Any {
        let refused = Refusal(needs: expected(type))
        switch type {
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default: throw refused
            }
        case .int: return try integer(text, bits: bits)
        case .float:
            guard isNumber(text), let value = Float(text) else { throw refused }
            guard value.isFinite || !isFiniteText(text) else { throw Refusal(needs: "within Float's range (±\(Float.greatestFiniteMagnitude))") }
            return value
        case .double:
            guard isNumber(text), let value = Double(text) else { throw refused }
            guard value.isFinite || !isFiniteText(text) else { throw Refusal(needs: "within Double's range (±\(Double.greatestFiniteMagnitude))") }
            return value
        case .string: return text
        case .data:
            guard let data = Data(base64Encoded: text) else { throw refused }
            return data
        case .date:
            guard let seconds = DateText.seconds(text) else { throw refused }
            return Date(timeIntervalSinceReferenceDate: seconds)
        case .uuid:
            guard let uuid = UUID(uuidString: text) else { throw refused }
            return uuid
        case .decimal:
            if text == "NaN" { return Decimal.nan }
            guard isFiniteText(text) else { throw refused }
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw Refusal(needs: "within Decimal's range (38 digits, exponent -128...127)")
            }
            return decimal
        case .objectId:
            guard let id = ObjectId(text) else { throw refused }
            return id
        case .object, .linkingObjects: throw refused
        // Text does not say its type: a mixed value read from text is a string (JSON says more).
        case .mixed: return MixedValue.string(text)
        }
    }

    /// `text` as an integer of `bits`, typed as the property's width is (`Int8` … `Int`).
    private static func integer(_ text: String, bits: Int) throws(Refusal) -> Any {
        let width = bits > 0 && bits < 64 ? bits : 64
        let limit = width == 64 ? Int64.max : Int64(1) << (width - 1) - 1
        let range = Refusal(needs: "within \(width)-bit range (\(-limit - 1)...\(limit))")
        guard let value = Int64(text) else {
            let digits = text.utf8.drop { $0 == 0x2D || $0 == 0x2B }
            let isInteger = !digits.isEmpty && digits.allSatisfy { (0x30...0x39).contains($0) } && text.utf8.count - digits.count <= 1
            throw isInteger ? range : Refusal(needs: "an integer")
        }
        guard value >= -limit - 1 && value <= limit else { throw range }
        switch width {
        case 8: return Int8(truncatingIfNeeded: value)
        case 16: return Int16(truncatingIfNeeded: value)
        case 32: return Int32(truncatingIfNeeded: value)
        default: return Int(value)
        }
    }

    /// Whether `text` is a decimal number (`-1.5e3`, `.5`, `+2`) or `nan`, `inf`, `-inf`: what
    /// floats are read from, without the hexadecimal and other forms `Double(_:)` also takes.
    private static func isNumber(_ text: String) -> Bool {
        text == "nan" || text == "inf" || text == "-inf" || isFiniteText(text)
    }

    /// Whether `text` is a decimal number: sign, digits with a point, an exponent.
    private static func isFiniteText(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        if bytes.first == 0x2B || bytes.first == 0x2D { bytes = bytes.dropFirst() }
        let mantissa = bytes.prefix { $0 != 0x65 && $0 != 0x45 }
        let exponent = bytes.dropFirst(mantissa.count)
        let parts = mantissa.split(separator: 0x2E, maxSplits: 1, omittingEmptySubsequences: false)
        guard mantissa.filter({ $0 == 0x2E }).count <= 1, parts.contains(where: { !$0.isEmpty }),
            parts.allSatisfy({ $0.allSatisfy { (0x30...0x39).contains($0) } })
        else { return false }
        guard !exponent.isEmpty else { return true }
        var digits = exponent.dropFirst()
        if digits.first == 0x2B || digits.first == 0x2D { digits = digits.dropFirst() }
        return !digits.isEmpty && digits.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// One JSON value (not `null`) as a value of `type`: a number, boolean or string in the
    /// type's JSON form (``value(_:_:bits:)`` reads the text); a value of another JSON kind is
    /// refused as "not of type T" (for a date, which numbers once were: "not an ISO 8601 date").
    static func value(_ json: JSONValue, _ type: PropertyType, bits: Int = 64) throws(Refusal) -> Any {
        let kind = Refusal(needs: type == .date ? DateText.expected : "of type \(type)")
        switch (type, json) {
        case (.bool, .bool(let bool)): return bool
        case (.int, .number(let text)), (.float, .number(let text)), (.double, .number(let text)), (.decimal, .number(let text)):
            return try value(text, type, bits: bits)
        case (.float, .string(let text)), (.double, .string(let text)):
            guard text == "nan" || text == "inf" || text == "-inf" else { throw kind }
            return try value(text, type, bits: bits)
        case (.string, .string(let text)), (.data, .string(let text)), (.date, .string(let text)), (.uuid, .string(let text)),
            (.decimal, .string(let text)), (.objectId, .string(let text)):
            return try value(text, type, bits: bits)
        case (.mixed, _): return try mixed(json)
        default: throw kind
        }
    }

    /// A mixed value's JSON: a boolean, an integer (else a double), a string, or
    /// `{"$type": name, "value": text}` for the other types (`@type`'s names).
    private static func mixed(_ json: JSONValue) throws(Refusal) -> MixedValue {
        let refused = Refusal(needs: "a mixed value (a boolean, number, string or {\"$type\": …, \"value\": …})")
        switch json {
        case .null: return .none
        case .bool(let bool): return .bool(bool)
        case .number(let text):
            if let int = Int(text) { return .int(int) }
            guard let double = Double(text) else { throw refused }
            return .double(double)
        case .string(let text): return .string(text)
        case .object(let members):
            guard case .string(let name)? = members["$type"], let payload = members["value"] else { throw refused }
            let types: [String: PropertyType] = [
                "bool": .bool, "int": .int, "float": .float, "double": .double, "string": .string, "binary": .data, "date": .date,
                "objectId": .objectId, "decimal": .decimal, "uuid": .uuid,
            ]
            guard let type = types[name] else {
                let names = (Array(types.keys) + ["dictionary", "list", "object"]).sorted()
                throw Refusal(needs: "a mixed value's $type (\(names.joined(separator: ", ")))")
            }
            let held: Any
            switch payload {
            case .string(let text): held = try value(text, type)
            default: held = try value(payload, type)
            }
            guard let mixed = MixedValue(held) else { throw refused }
            // `MixedValue(_:)` reads a Float as `.float`; the other types keep theirs.
            return mixed
        default: throw refused
        }
    }

    // MARK: Writing

    /// The outside text of `value` (one value of a property, not a link or collection).
    static func text(_ value: Any) throws(DateText.Unwritable) -> String {
        switch value {
        case let bool as Bool: bool ? "true" : "false"
        case let int as Int: String(int)
        case let int as Int8: String(int)
        case let int as Int16: String(int)
        case let int as Int32: String(int)
        case let int as Int64: String(int)
        case let double as Double: number(double)
        case let float as Float: number(float)
        case let text as String: text
        case let data as Data: data.base64EncodedString()
        case let date as Date: try DateText.text(date.timeIntervalSinceReferenceDate)
        case let decimal as Decimal: decimal.isNaN ? "NaN" : decimal.description
        case let id as ObjectId: id.stringValue
        case let uuid as UUID: uuid.uuidString
        case let mixed as MixedValue: try MixedWriting.text(mixed)
        default: "\(value)"
        }
    }

    /// A float's shortest text that reads back to it; `nan`, `inf`, `-inf`.
    static func number<F: BinaryFloatingPoint & CustomStringConvertible>(_ value: F) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : value < 0 ? "-inf" : "inf" }
        return value.description
    }

    /// Appends `value` (one value of a property of `type`, not a link or collection) as JSON:
    /// booleans and finite numbers bare, every other value its text as a string. Cast to the
    /// property's type first (cheap for value types), then tried against every kind.
    static func write(_ value: Any, type: PropertyType, into json: inout JSONText) throws(DateText.Unwritable) {
        switch type {
        case .string: if let text = value as? String { return json.string(text) }
        case .int:
            if let int = value as? Int { return json.integer(Int64(int)) }
            if let int = value as? Int64 { return json.integer(int) }
            if let int = value as? Int32 { return json.integer(Int64(int)) }
            if let int = value as? Int16 { return json.integer(Int64(int)) }
            if let int = value as? Int8 { return json.integer(Int64(int)) }
        case .double: if let double = value as? Double, double.isFinite { return json.raw(double.description) }
        case .bool: if let bool = value as? Bool { return json.raw(bool ? "true" : "false") }
        case .date: if let date = value as? Date { return try DateText.write(date.timeIntervalSinceReferenceDate, into: &json) }
        default: break
        }
        try write(value, into: &json)
    }

    /// Appends `value` as JSON, whatever its type.
    static func write(_ value: Any, into json: inout JSONText) throws(DateText.Unwritable) {
        if let mixed = value as? MixedValue { return try MixedWriting.write(mixed, into: &json) }
        switch value {
        case let bool as Bool: json.raw(bool ? "true" : "false")
        case let int as Int: json.integer(Int64(int))
        case let int as Int8: json.integer(Int64(int))
        case let int as Int16: json.integer(Int64(int))
        case let int as Int32: json.integer(Int64(int))
        case let int as Int64: json.integer(int)
        case let double as Double: double.isFinite ? json.raw(double.description) : json.string(number(double))
        case let float as Float: float.isFinite ? json.raw(float.description) : json.string(number(float))
        case let date as Date: try DateText.write(date.timeIntervalSinceReferenceDate, into: &json)
        default: json.string(try text(value))
        }
    }
}
