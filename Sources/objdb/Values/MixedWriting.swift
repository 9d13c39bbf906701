import Foundation
@_spi(Inspection) import ObjDB

/// Mixed values written out (`Docs/CLI.md`, "Mixed values"): as JSON for `query`, `get`,
/// `export`, `dump` and CSV cells, and as compact text for tables. ``MixedReader`` reads the
/// JSON back.
///
/// | value | JSON | text |
/// |:--|:--|:--|
/// | none | `null` | `nil` (`null` nested) |
/// | bool, int, non-whole finite double | bare | bare |
/// | string | a string | itself (quoted nested) |
/// | other scalars | `{"$type": "date", "value": "…"}` | their text (quoted nested, but numbers) |
/// | list | an array | `[1, "a"]` |
/// | dictionary | an object, keys sorted; `{"$type": "dictionary", "value": {…}}` when a key is `$type` | `{"k": true}` |
/// | link | `{"$type": "object", "class": "C", "primaryKey": pk}`, or `"key": n` for a class without a primary key | `C(pk)`, `C#n` |
enum MixedWriting {
    /// Appends `mixed` as JSON, nested values recursively.
    static func write(_ mixed: MixedValue, into json: inout JSONText) throws(DateText.Unwritable) {
        switch mixed {
        case .none: json.raw("null")
        case .bool(let v): json.raw(v ? "true" : "false")
        case .int(let v): json.integer(Int64(v))
        case .double(let v) where v.isFinite && v.rounded() != v: json.raw(v.description)
        case .string(let v): json.string(v)
        case .object(let object): try writeLink(object, into: &json)
        case .list(let values):
            json.byte(0x5B)
            for (index, value) in values.enumerated() {
                if index > 0 { json.byte(0x2C) }
                try write(value, into: &json)
            }
            json.byte(0x5D)
        case .dictionary(let entries):
            // A dictionary with a "$type" key would read back as a typed value: wrapped.
            let wrapped = entries["$type"] != nil
            if wrapped { json.raw("{\"$type\":\"dictionary\",\"value\":") }
            json.byte(0x7B)
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { json.byte(0x2C) }
                json.string(key)
                json.byte(0x3A)
                try write(entries[key] ?? .none, into: &json)
            }
            json.byte(0x7D)
            if wrapped { json.byte(0x7D) }
        default:
            guard let held = mixed.anyValue else { return json.raw("null") }
            json.raw("{\"$type\":")
            json.string(mixed.typeName)
            json.raw(",\"value\":")
            json.string(try ValueConversion.text(held))
            json.raw("}")
        }
    }

    /// Appends a link: `{"$type": "object", "class": C, "primaryKey": pk}`, or with `"key"` for
    /// a class without a primary key.
    private static func writeLink(_ object: Object, into json: inout JSONText) throws(DateText.Unwritable) {
        let link = Link(object)
        json.raw("{\"$type\":\"object\",\"class\":")
        json.string(link.className)
        if let primaryKey = link.primaryKey {
            json.raw(",\"primaryKey\":")
            if let value = primaryKey.value {
                try ValueConversion.write(value, type: primaryKey.property.type, into: &json)
            } else {
                json.raw("null")
            }
        } else {
            json.raw(",\"key\":")
            json.unsigned(link.key)
        }
        json.byte(0x7D)
    }

    /// `mixed` as one line of JSON text.
    static func json(_ mixed: MixedValue) throws(DateText.Unwritable) -> String {
        var json = JSONText()
        try write(mixed, into: &json)
        return json.text
    }

    /// A CSV cell, `nil` for none: a list, a dictionary or a link as JSON (what `import` reads
    /// back), a string starting with `[` or `{` as `{"$type": "string", "value": …}` (else it
    /// would read back as JSON), any other value its text.
    static func csvText(_ mixed: MixedValue) throws(DateText.Unwritable) -> String? {
        switch mixed {
        case .none: return nil
        case .list, .dictionary, .object: return try json(mixed)
        case .string(let text) where text.hasPrefix("[") || text.hasPrefix("{"):
            var json = JSONText()
            json.raw("{\"$type\":\"string\",\"value\":")
            json.string(text)
            json.byte(0x7D)
            return json.text
        default: return try text(mixed)
        }
    }

    // MARK: Text

    /// `mixed` as text for a table: a scalar as its text (`nil` for none), a list as
    /// `[1, "a"]`, a dictionary as `{"k": true}` (keys sorted), a link as `Class(pk)` or
    /// `Class#key`.
    static func text(_ mixed: MixedValue) throws(DateText.Unwritable) -> String {
        switch mixed {
        case .none: "nil"
        case .list, .dictionary, .object: try nested(mixed)
        default: try mixed.anyValue.map { v throws(DateText.Unwritable) in try ValueConversion.text(v) } ?? "nil"
        }
    }

    /// A value inside a list or a dictionary: numbers and booleans bare, `null`, other scalars
    /// as quoted text.
    private static func nested(_ mixed: MixedValue) throws(DateText.Unwritable) -> String {
        switch mixed {
        case .none: return "null"
        case .bool, .int, .float, .double, .decimal: return try text(mixed)
        case .object(let object):
            let link = Link(object)
            guard let primaryKey = link.primaryKey else { return "\(link.className)#\(link.key)" }
            let key = try primaryKey.value.map { v throws(DateText.Unwritable) in try ValueConversion.text(v) } ?? "nil"
            return "\(link.className)(\(key))"
        case .list(let values):
            var parts: [String] = []
            for value in values { parts.append(try nested(value)) }
            return "[" + parts.joined(separator: ", ") + "]"
        case .dictionary(let entries):
            var parts: [String] = []
            for key in entries.keys.sorted() {
                let value = try nested(entries[key] ?? .none)
                parts.append(quoted(key) + ": " + value)
            }
            return "{" + parts.joined(separator: ", ") + "}"
        default: return quoted(try text(mixed))
        }
    }

    /// `text` as a JSON string.
    private static func quoted(_ text: String) -> String {
        var json = JSONText()
        json.string(text)
        return json.text
    }

    /// What a link is written with: its class, its primary key or its object key.
    private struct Link {
        /// The linked object's class.
        let className: String
        /// The class's primary key property and the object's value of it, if it has one.
        let primaryKey: (property: Property, value: Any?)?
        /// The object's key.
        let key: UInt64

        /// The link to `object`, read from its schema.
        init(_ object: Object) {
            let schema = object.objectSchema
            className = (object as? DynamicObject)?.className ?? schema.className
            // try?: a primary key property the schema names always reads.
            primaryKey = schema.primaryKeyProperty.map { ($0, (try? object.value(forKey: $0.name)) ?? nil) }
            key = object.objectKey ?? 0
        }
    }
}
