import Foundation
@_spi(Inspection) import ObjDB

/// JSON objects and CSV rows turned into the property values `createDynamicObject` takes,
/// checked against a schema, every value through ``ValueConversion``: the reverse of
/// ``ObjectWriter``, for `import` (JSON, JSON lines, CSV) and `load`.
final class ObjectReader {
    /// How links are read.
    enum Links {
        /// By the target's primary key, `{"$class": …, "$pk": …}` (or the key alone in CSV), as
        /// `export` writes them; a link by `"$key"` is refused (keys belong to one file).
        case primaryKeys
        /// By the target's object key, `{"$class": …, "$key": …}`, as a dump holds them; each
        /// is recorded in ``references`` to be checked once every object is read.
        case keys
    }

    /// How dates are read.
    enum Dates {
        /// The one convention, ISO 8601 text (``DateText``).
        case iso8601
        /// Dump format version 1: a number of seconds since 2001-01-01T00:00:00Z (the `Double`
        /// the file stores), or `"nan"`, `"inf"`, `"-inf"`.
        case secondsSince2001
    }

    /// A link read with ``Links/keys``, checked once every object is read.
    struct Reference {
        /// The line the link is on.
        let line: Int
        /// `Class.property`.
        let place: String
        /// The class linked to.
        let className: String
        /// The key linked to.
        let key: UInt64
    }

    /// The schema values are checked against: the file's, or the dump's header's.
    let schema: Schema
    /// How links are read.
    let links: Links
    /// How dates are read.
    let dates: Dates
    /// The links read so far (with ``Links/keys``).
    private(set) var references: [Reference] = []
    /// Whether a mixed value read so far links to an object: the values then need
    /// ``MixedLinkResolver`` before they are written.
    private(set) var readsMixedLinks = false

    /// A reader of objects of `schema`'s classes, links and dates read as `links` and `dates` say.
    init(schema: Schema, links: Links, dates: Dates = .iso8601) {
        self.schema = schema
        self.links = links
        self.dates = dates
    }

    // MARK: JSON

    /// The properties of a JSON object of `objectSchema`'s class. Names starting with `$` are
    /// not properties: with ``Links/keys`` a `"$class"` must name the class, and `"$key"` is
    /// the caller's; with ``Links/primaryKeys`` they are ignored. `line` is for references.
    func object(_ fields: [String: JSONValue], _ objectSchema: ObjectSchema, line: Int) throws -> [String: Any?] {
        var values: [String: Any?] = [:]
        for (name, json) in fields {
            if name.hasPrefix("$") && (links == .primaryKeys || name == "$key") { continue }
            if name == "$class" {
                guard json == .string(objectSchema.className) else {
                    throw CommandFailure("\"$class\" is \(json.kind) where a \(objectSchema.className) belongs")
                }
                continue
            }
            guard let property = objectSchema[name], !property.isComputed else {
                throw CommandFailure("class '\(objectSchema.className)' has no stored property '\(name)'")
            }
            values[name] = .some(try value(json, property, className: objectSchema.className, line: line))
        }
        return values
    }

    /// A property's value: arrays for lists and sets, objects for maps, else one element.
    func value(_ json: JSONValue, _ property: Property, className: String, line: Int) throws -> Any? {
        switch (property.collection, json) {
        case (_, .null) where property.collection != nil:
            throw mismatch(className, property, json.kind, "a collection (write [] or {} for an empty one)")
        case (.list?, .array(let elements)), (.set?, .array(let elements)):
            return try elements.map { try element($0, property, className: className, line: line) } as [Any?]
        case (.map?, .object(let entries)):
            return try entries.mapValues { try element($0, property, className: className, line: line) } as [String: Any?]
        case (.list?, _), (.set?, _):
            throw mismatch(className, property, json.kind, "an array")
        case (.map?, _):
            throw mismatch(className, property, json.kind, "an object")
        case (nil, _):
            return try element(json, property, className: className, line: line)
        }
    }

    /// One value, or one element of a collection.
    private func element(_ json: JSONValue, _ property: Property, className: String, line: Int) throws -> Any? {
        if json == .null {
            guard property.isOptional || (property.type == .object && property.collection == nil) else {
                throw mismatch(className, property, json.kind, "a value (the property is not optional)")
            }
            return nil
        }
        if property.type == .object { return try link(json, property, className: className, line: line) }
        if property.type == .mixed { return try mixed(json, property, className: className) }
        if property.type == .date && dates == .secondsSince2001 {
            switch json {
            case .number(let text), .string(let text):
                if let seconds = Double(text), json.isNumber || !seconds.isFinite { return Date(timeIntervalSinceReferenceDate: seconds) }
            default: break
            }
            throw mismatch(className, property, json.kind, "a date (seconds since 2001-01-01T00:00:00Z)")
        }
        do {
            return try ValueConversion.value(json, property.type, bits: property.bitWidth)
        } catch {
            throw mismatch(className, property, json.kind, error.needs)
        }
    }

    /// A mixed value (not null): the ``MixedValue``, or an ``UnresolvedMixed`` when it links to
    /// objects, for ``MixedLinkResolver`` (links by `"key"` only with ``Links/keys``).
    func mixed(_ json: JSONValue, _ property: Property, className: String) throws -> Any {
        do {
            let draft = try MixedReader(schema: schema, acceptsKeys: links == .keys).read(json)
            if let value = draft.withoutLinks { return value }
            readsMixedLinks = true
            return UnresolvedMixed(draft: draft, subject: "\(className).\(property.name) is \(property.typeName)")
        } catch {
            throw CommandFailure("\(className).\(property.name) is \(property.typeName): \(error.reason)")
        }
    }

    /// A mixed value's text (a CSV field, a command-line argument): JSON when it starts with `[`
    /// or `{` (a list, a dictionary, a typed value or a link), else a string, as before.
    func mixed(text: String, _ property: Property, className: String) throws -> Any? {
        guard let first = text.utf8.first, first == 0x5B || first == 0x7B else {
            return try Self.value(text, property, className: className)
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(Array(text.utf8))
        } catch {
            throw CommandFailure(
                "\(className).\(property.name) is \(property.typeName): '\(text)' is not JSON (\(error.reason) at column \(error.column)); a mixed value starting with [ or { is read as JSON (a string: {\"$type\": \"string\", \"value\": …})")
        }
        if json == .null { return nil }
        return try mixed(json, property, className: className)
    }

    /// A link: an embedded object inline, else a reference as ``links`` says.
    private func link(_ json: JSONValue, _ property: Property, className: String, line: Int) throws -> Any? {
        let place = "\(className).\(property.name)"
        guard let target = property.objectClassName.flatMap({ schema[$0] }) else {
            throw CommandFailure("\(place) links to a class the \(links == .keys ? "dump's header" : "file") does not have")
        }
        guard case .object(let fields) = json else {
            throw mismatch(className, property, json.kind, target.isEmbedded ? "an object" : "a link ({\"$class\": \"\(target.className)\", …})")
        }
        if target.isEmbedded { return try object(fields, target, line: line) as [String: Any?] }
        guard fields["$class"].map({ $0 == .string(target.className) }) ?? true else {
            throw mismatch(className, property, json.kind, "a link to a \(target.className)")
        }
        switch links {
        case .keys:
            guard case .number(let text)? = fields["$key"], let key = UInt64(text), key > 0, key < .max else {
                throw mismatch(className, property, json.kind, "a link ({\"$class\": \"\(target.className)\", \"$key\": …})")
            }
            references.append(Reference(line: line, place: place, className: target.className, key: key))
            return ObjectKeyLink(key)
        case .primaryKeys:
            if let pk = fields["$pk"], let key = target.primaryKeyProperty {
                return try element(pk, key, className: target.className, line: line)
            }
            if fields["$key"] != nil {
                let how = target.primaryKeyProperty == nil
                    ? "\(target.className) needs a primary key" : "give its primary key, {\"$class\": \"\(target.className)\", \"$pk\": …}"
                throw CommandFailure("\(place): a link by \"$key\" to \(target.className) cannot be imported (keys are per file); \(how)")
            }
            // A whole object: created, or found by its primary key, with the link.
            return try object(fields, target, line: line)
        }
    }

    // MARK: CSV

    /// A CSV row (header names to fields) as property values of `objectSchema`: scalars as
    /// their text; an empty field (nothing between the commas) as nil, a quoted empty one as an
    /// empty string or `Data`; links as the target's primary key; embedded objects and
    /// collections as JSON text, and a mixed value too when it starts with `[` or `{`. Names
    /// starting with `$` are ignored.
    func csvRow(_ fields: [(name: String, field: CSVField)], _ objectSchema: ObjectSchema) throws -> [String: Any?] {
        let className = objectSchema.className
        var values: [String: Any?] = [:]
        for (name, field) in fields where !name.hasPrefix("$") {
            guard let property = objectSchema[name], !property.isComputed else {
                throw CommandFailure("class '\(className)' has no stored property '\(name)'")
            }
            let target = property.type == .object ? property.objectClassName.flatMap { schema[$0] } : nil
            if field.isEmptyUnquoted && property.collection == nil {
                if property.isOptional || property.type == .object {
                    values[name] = nil as Any?
                    continue
                }
            }
            if property.collection != nil || target?.isEmbedded == true {
                let json: JSONValue
                do {
                    json = try JSONValue.parse(Array(field.text.utf8))
                } catch {
                    throw CommandFailure("\(className).\(name) is \(property.typeName): '\(field.text)' is not JSON (\(error.reason) at column \(error.column))")
                }
                values[name] = .some(try value(json, property, className: className, line: 0))
            } else if property.type == .object {
                guard let target, let key = target.primaryKeyProperty else {
                    throw CommandFailure("\(className).\(name) links to a class without a primary key: it cannot be imported from CSV")
                }
                values[name] = .some(try Self.value(field.text, key, className: target.className))
            } else if property.type == .mixed {
                values[name] = .some(try mixed(text: field.text, property, className: className))
            } else {
                values[name] = .some(try Self.value(field.text, property, className: className))
            }
        }
        return values
    }

    // MARK: Text

    /// `text` (a CSV field, a command-line argument) as a value of `property`'s type.
    static func value(_ text: String, _ property: Property, className: String) throws -> Any {
        do {
            return try ValueConversion.value(text, property.type, bits: property.bitWidth)
        } catch {
            throw CommandFailure("\(className).\(property.name) is \(property.typeName): '\(text)' is not \(error.needs)")
        }
    }

    /// A command-line argument as a value of `property` (`get`, `set`, `delete`): its text, or
    /// `null` (or `nil`) for nil on an optional property. Links cannot be given this way.
    static func argument(_ text: String, _ property: Property, className: String) throws -> Any? {
        guard property.type != .object && property.type != .linkingObjects else {
            throw CommandFailure("\(className).\(property.name) is a link; links cannot be set from the command line")
        }
        if text == "null" || text == "nil" {
            guard property.isOptional else {
                throw CommandFailure("\(className).\(property.name) is \(property.typeName): '\(text)' is not a value (the property is not optional)")
            }
            return nil
        }
        return try value(text, property, className: className)
    }

    /// The failure of a JSON value that is not what `property` needs.
    private func mismatch(_ className: String, _ property: Property, _ kind: String, _ needs: String) -> CommandFailure {
        CommandFailure("\(className).\(property.name) is \(property.typeName): \(kind) is not \(needs)")
    }
}
