import Foundation
import ObjDB

/// The first line of a dump (`Docs/CLI.md`, "Dump format"): the format version, the schema
/// version, and every class with its properties and key counter.
///
/// ```json
/// {"objdb-dump":2,"schemaVersion":3,"classes":[{"name":"Pet","embedded":false,"nextKey":3,"properties":[…]}]}
/// ```
struct DumpHeader {
    /// The dump format this build writes: version 2, dates as ISO 8601 text.
    static let formatVersion = 2
    /// The versions this build reads: 1 (dates as seconds since 2001) and 2.
    static let readableVersions = 1...2

    /// One class and the key its next object gets (`nil` for embedded classes, whose objects
    /// have no key of their own in a dump).
    struct Class {
        let schema: ObjectSchema
        let nextKey: UInt64?
    }

    /// The dump format version the header names (``formatVersion`` when written).
    var version = formatVersion
    let schemaVersion: UInt64
    /// Classes in the order they are created on load.
    let classes: [Class]

    /// How the dump's object lines spell dates: numbers of seconds since 2001 in version 1.
    var dates: ObjectReader.Dates { version == 1 ? .secondsSince2001 : .iso8601 }

    /// The header as one line of JSON.
    func text() -> [UInt8] {
        var json = JSONText()
        json.raw("{\"objdb-dump\":\(Self.formatVersion),\"schemaVersion\":\(schemaVersion),\"classes\":[")
        for (index, dumped) in classes.enumerated() {
            if index > 0 { json.byte(0x2C) }
            json.raw("{\"name\":")
            json.string(dumped.schema.className)
            json.raw(",\"embedded\":\(dumped.schema.isEmbedded)")
            if let next = dumped.nextKey { json.raw(",\"nextKey\":\(next)") }
            if !dumped.schema.uniqueKeys.isEmpty {
                json.raw(",\"uniqueKeys\":[")
                for (k, key) in dumped.schema.uniqueKeys.enumerated() {
                    if k > 0 { json.byte(0x2C) }
                    json.byte(0x5B)
                    for (n, name) in key.enumerated() {
                        if n > 0 { json.byte(0x2C) }
                        json.string(name)
                    }
                    json.byte(0x5D)
                }
                json.byte(0x5D)
            }
            json.raw(",\"properties\":[")
            for (position, property) in dumped.schema.properties.enumerated() {
                if position > 0 { json.byte(0x2C) }
                Self.write(property, into: &json)
            }
            json.raw("]}")
        }
        json.raw("]}")
        return json.bytes
    }

    /// A property as `{"name", "type", "optional", …}`: `bits` for integers; `primaryKey`,
    /// `indexed`, `objectClass`, `collection`, `deleteRule` and `origin` when they apply.
    private static func write(_ property: Property, into json: inout JSONText) {
        json.raw("{\"name\":")
        json.string(property.name)
        json.raw(",\"type\":")
        json.string(property.type.rawValue)
        json.raw(",\"optional\":\(property.isOptional)")
        if property.type == .int { json.raw(",\"bits\":\(property.bitWidth)") }
        if property.isPrimaryKey { json.raw(",\"primaryKey\":true") }
        if property.isIndexed { json.raw(",\"indexed\":true") }
        if property.isUnique { json.raw(",\"unique\":true") }
        if property.isFullTextIndexed { json.raw(",\"fullTextIndexed\":true") }
        if property.isAutoIncrement { json.raw(",\"autoIncrement\":true") }
        if let timestamp = property.timestamp { json.raw(",\"timestamp\":\"\(timestamp.rawValue)\"") }
        if let target = property.objectClassName {
            json.raw(",\"objectClass\":")
            json.string(target)
        }
        if let collection = property.collection {
            json.raw(",\"collection\":")
            json.string(collection.rawValue)
        }
        if property.deleteRule != .nullify {
            json.raw(",\"deleteRule\":")
            json.string(property.deleteRule.rawValue)
        }
        if let origin = property.linkOriginPropertyName {
            json.raw(",\"origin\":")
            json.string(origin)
        }
        json.byte(0x7D)
    }

    /// Reads a header line; failures are the message to print after `file:line:`.
    static func parse(_ line: [UInt8]) throws -> DumpHeader {
        let json: JSONValue
        do {
            json = try JSONValue.parse(line)
        } catch {
            throw CommandFailure("not an objdb dump: the first line is not JSON (\(error.reason) at column \(error.column))")
        }
        guard case .object(let header) = json, let version = header["objdb-dump"] else {
            throw CommandFailure("not an objdb dump: the first line has no \"objdb-dump\" version")
        }
        guard case .number(let text) = version, let number = Int(text) else {
            throw CommandFailure("not an objdb dump: \"objdb-dump\" is \(version.kind), not a version number")
        }
        guard readableVersions.contains(number) else {
            throw CommandFailure(
                "dump format version \(text) is not supported: this objdb reads versions \(readableVersions.map(String.init).joined(separator: " and "))")
        }
        let schemaVersion = try unsigned(header["schemaVersion"], "schemaVersion")
        guard case .array(let list)? = header["classes"] else { throw CommandFailure("the header has no \"classes\" array") }
        return DumpHeader(version: number, schemaVersion: schemaVersion, classes: try list.map(dumpedClass))
    }

    private static func dumpedClass(_ json: JSONValue) throws -> Class {
        guard case .object(let fields) = json, case .string(let name)? = fields["name"] else {
            throw CommandFailure("a class of the header has no \"name\"")
        }
        let embedded = try flag(fields["embedded"], "\(name).embedded")
        guard case .array(let list)? = fields["properties"] else { throw CommandFailure("class '\(name)' has no \"properties\" array") }
        let properties = try list.map { try property($0, className: name) }
        let nextKey = try fields["nextKey"].map { try unsigned($0, "\(name).nextKey") }
        var uniqueKeys: [[String]] = []
        if let keys = fields["uniqueKeys"] {
            guard case .array(let list) = keys else { throw CommandFailure("class '\(name)': \"uniqueKeys\" is \(keys.kind), not an array") }
            uniqueKeys = try list.map { key in
                guard case .array(let members) = key else { throw CommandFailure("class '\(name)': a unique key is \(key.kind), not an array") }
                return try members.map { member in
                    guard case .string(let text) = member else { throw CommandFailure("class '\(name)': a unique key holds \(member.kind), not a name") }
                    return text
                }
            }
        }
        return Class(
            schema: ObjectSchema(className: name, properties: properties, isEmbedded: embedded, uniqueKeys: uniqueKeys), nextKey: nextKey)
    }

    private static func property(_ json: JSONValue, className: String) throws -> Property {
        guard case .object(let fields) = json, case .string(let name)? = fields["name"] else {
            throw CommandFailure("a property of class '\(className)' has no \"name\"")
        }
        let place = "\(className).\(name)"
        func text(_ key: String) throws -> String? {
            switch fields[key] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            case let other?: throw CommandFailure("\(place): \"\(key)\" is \(other.kind), not a string")
            }
        }
        func known<T: RawRepresentable<String>>(_ key: String, _: T.Type) throws -> T? {
            try text(key).map { raw in
                guard let value = T(rawValue: raw) else { throw CommandFailure("\(place): \"\(key)\" is '\(raw)', which objdb does not know") }
                return value
            }
        }
        guard let type = try known("type", PropertyType.self) else { throw CommandFailure("\(place) has no \"type\"") }
        var bits: Int?
        if let value = fields["bits"] {
            guard case .number(let raw) = value, let width = Int(raw), [8, 16, 32, 64].contains(width) else {
                throw CommandFailure("\(place): \"bits\" is \(value.kind), not 8, 16, 32 or 64")
            }
            bits = width
        }
        return Property(
            name: name, type: type, isOptional: try flag(fields["optional"], "\(place).optional"),
            isPrimaryKey: try flag(fields["primaryKey"], "\(place).primaryKey"),
            isIndexed: try flag(fields["indexed"], "\(place).indexed"), bitWidth: type == .int ? bits : nil,
            objectClassName: try text("objectClass"), linkOriginPropertyName: try text("origin"),
            collection: try known("collection", CollectionKind.self),
            deleteRule: try known("deleteRule", DeleteRule.self) ?? .nullify,
            isAutoIncrement: try flag(fields["autoIncrement"], "\(place).autoIncrement"),
            timestamp: try known("timestamp", PersistedTimestamp.self),
            isUnique: try flag(fields["unique"], "\(place).unique"),
            isFullTextIndexed: try flag(fields["fullTextIndexed"], "\(place).fullTextIndexed"))
    }

    private static func flag(_ json: JSONValue?, _ name: String) throws -> Bool {
        switch json {
        case nil: return false
        case .bool(let value)?: return value
        case let other?: throw CommandFailure("\"\(name)\" is \(other.kind), not true or false")
        }
    }

    private static func unsigned(_ json: JSONValue?, _ name: String) throws -> UInt64 {
        guard case .number(let text)? = json, let value = UInt64(text) else {
            throw CommandFailure("\"\(name)\" is \(json?.kind ?? "missing"), not a whole number of 0 or more")
        }
        return value
    }
}
