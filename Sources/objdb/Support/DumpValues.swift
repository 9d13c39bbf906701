import Foundation
@_spi(Inspection) import ObjDB

/// The object lines of a dump turned into the values `createDynamicObject(_:key:value:)` takes,
/// checked against the dump's own schema: the reverse of ``DumpWriter``.
struct DumpValues {
    /// One object of a dump.
    struct Record {
        let line: Int
        let className: String
        let key: UInt64
        let values: [String: Any?]
    }

    /// A link found in a record, checked once every record is read.
    struct Reference {
        let line: Int
        let place: String
        let className: String
        let key: UInt64
    }

    let schema: Schema
    /// The links read so far.
    private(set) var references: [Reference] = []

    init(schema: Schema) { self.schema = schema }

    /// An object line; failures are the message to print after `file:line:`.
    mutating func record(_ bytes: some Collection<UInt8>, line: Int) throws -> Record {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw CommandFailure("not valid JSON: \(error.reason) at column \(error.column)")
        }
        guard case .object(let fields) = json else { throw CommandFailure("expected an object, found \(json.kind)") }
        guard case .string(let className)? = fields["$class"] else { throw CommandFailure("the object has no \"$class\"") }
        guard let objectSchema = schema[className] else { throw CommandFailure("class '\(className)' is not in the dump's header") }
        guard !objectSchema.isEmbedded else {
            throw CommandFailure("'\(className)' is an embedded class: its objects come inline, inside the objects that own them")
        }
        guard case .number(let text)? = fields["$key"], let key = UInt64(text), key > 0, key < .max else {
            throw CommandFailure("the \(className) has no \"$key\" from 1 to 2^64 - 2")
        }
        return Record(line: line, className: className, key: key, values: try object(fields, objectSchema, line: line))
    }

    /// The properties of a JSON object of `objectSchema`'s class.
    private mutating func object(_ fields: [String: JSONValue], _ objectSchema: ObjectSchema, line: Int) throws -> [String: Any?] {
        var values: [String: Any?] = [:]
        for (name, json) in fields {
            if name == "$class" {
                guard json == .string(objectSchema.className) else {
                    throw CommandFailure("\"$class\" is \(json.kind) where a \(objectSchema.className) belongs")
                }
                continue
            }
            if name == "$key" { continue }
            guard let property = objectSchema[name], !property.isComputed else {
                throw CommandFailure("class '\(objectSchema.className)' has no stored property '\(name)'")
            }
            values[name] = .some(try value(json, property, className: objectSchema.className, line: line))
        }
        return values
    }

    /// A property's value: arrays for lists and sets, objects for maps, else one element.
    private mutating func value(_ json: JSONValue, _ property: Property, className: String, line: Int) throws -> Any? {
        let place = "\(className).\(property.name)"
        switch (property.collection, json) {
        case (_, .null) where property.collection != nil:
            throw CommandFailure("\(place) is \(property.typeName): null is not a collection")
        case (.list?, .array(let elements)), (.set?, .array(let elements)):
            return try elements.map { try element($0, property, className: className, line: line) } as [Any?]
        case (.map?, .object(let entries)):
            return try entries.mapValues { try element($0, property, className: className, line: line) } as [String: Any?]
        case (.list?, _), (.set?, _):
            throw CommandFailure("\(place) is \(property.typeName): \(json.kind) is not an array")
        case (.map?, _):
            throw CommandFailure("\(place) is \(property.typeName): \(json.kind) is not an object")
        case (nil, _):
            return try element(json, property, className: className, line: line)
        }
    }

    /// One value, or one element of a collection.
    private mutating func element(_ json: JSONValue, _ property: Property, className: String, line: Int) throws -> Any? {
        let place = "\(className).\(property.name)"
        func mismatch(_ expected: String) -> CommandFailure {
            CommandFailure("\(place) is \(property.typeName): \(json.kind) is not \(expected)")
        }
        if json == .null {
            guard property.isOptional || (property.type == .object && property.collection == nil) else {
                throw mismatch("a value (the property is not optional)")
            }
            return nil
        }
        switch (property.type, json) {
        case (.object, .object(let fields)):
            guard let target = property.objectClassName.flatMap({ schema[$0] }) else {
                throw CommandFailure("\(place) links to a class the dump's header does not have")
            }
            if target.isEmbedded { return try object(fields, target, line: line) as [String: Any?] }
            guard fields["$class"].map({ $0 == .string(target.className) }) ?? true else {
                throw mismatch("a link to a \(target.className)")
            }
            guard case .number(let text)? = fields["$key"], let key = UInt64(text), key > 0, key < .max else {
                throw mismatch("a link ({\"$class\": \"\(target.className)\", \"$key\": …})")
            }
            references.append(Reference(line: line, place: place, className: target.className, key: key))
            return ObjectKeyLink(key)
        case (.bool, .bool(let bool)): return bool
        case (.int, .number(let text)):
            guard Int(text) != nil else { throw mismatch("a whole number within 64 bits") }
            return try ValueParsing.value(text, for: property, className: className)
        case (.float, .number(let text)), (.float, .string(let text)):
            guard let float = Float(text), json.isNumber || !float.isFinite else { throw mismatch("a Float") }
            return float
        case (.double, .number(let text)), (.double, .string(let text)):
            guard let double = Double(text), json.isNumber || !double.isFinite else { throw mismatch("a Double") }
            return double
        case (.date, .number(let text)), (.date, .string(let text)):
            guard let seconds = Double(text), json.isNumber || !seconds.isFinite else {
                throw mismatch("a date (seconds since 2001-01-01T00:00:00Z)")
            }
            return Date(timeIntervalSinceReferenceDate: seconds)
        case (.decimal, .string(let text)):
            if text == "NaN" { return Decimal.nan }
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw mismatch("a decimal number") }
            return decimal
        case (.string, .string(let text)): return text
        case (.data, .string(let text)):
            guard let data = Data(base64Encoded: text) else { throw mismatch("base64") }
            return data
        case (.uuid, .string(let text)):
            guard let uuid = UUID(uuidString: text) else { throw mismatch("a UUID") }
            return uuid
        case (.objectId, .string(let text)):
            guard let id = ObjectId(text) else { throw mismatch("an ObjectId (24 hex digits)") }
            return id
        default:
            throw mismatch(property.type == .object ? "a link" : "of type \(property.type)")
        }
    }
}

extension JSONValue {
    /// Whether this is a number (rather than a number's name in a string, such as `"nan"`).
    var isNumber: Bool {
        if case .number = self { return true }
        return false
    }
}
