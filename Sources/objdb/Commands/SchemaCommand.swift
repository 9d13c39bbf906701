import ArgumentParser
import Foundation
@_spi(Inspection) import ObjDB

/// `objdb schema <db> [Class] [--swift]`: properties, types, keys, indexes, links, backlinks.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the schema stored in a database, or model classes to paste into an app.")

    @OptionGroup var database: DatabaseArgument

    @Argument(help: "Only this class.")
    var className: String?

    @Flag(help: "Print @Persisted model classes that match the stored schema.")
    var swift = false

    @OptionGroup var output: OutputOptions

    func run() throws {
        try reportingFailures {
            let db = try DatabaseOpening.readOnly(database)
            let classes = try className.map { [try DatabaseOpening.objectSchema($0, in: db, file: database.file)] } ?? db.schema.objectSchema
            if swift {
                Console.line(SwiftModels.source(for: classes))
                return
            }
            let backlinks = Self.backlinks(db.schema)
            switch output.resolved {
            case .table:
                for (index, schema) in classes.enumerated() {
                    if index > 0 { Console.line("") }
                    Console.line(schema.description)
                    for (origin, property) in backlinks[schema.className] ?? [] {
                        Console.line("    // linked from \(origin).\(property)")
                    }
                }
            case .json, .jsonl, .csv:
                let json = classes.map { schema -> [String: Any] in
                    [
                        "class": schema.className, "embedded": schema.isEmbedded,
                        "primaryKey": schema.primaryKeyProperty?.name as Any? ?? NSNull(),
                        "properties": schema.properties.map(Self.json), "uniqueKeys": schema.uniqueKeys,
                        "linkedFrom": (backlinks[schema.className] ?? []).map { ["class": $0.0, "property": $0.1] },
                    ]
                }
                if output.resolved == .jsonl {
                    for object in json { Console.line(try ReportJSON.text(object)) }
                } else {
                    Console.line(try ReportJSON.text(json, pretty: true))
                }
            }
        }
    }

    /// A property as JSON.
    static func json(_ property: Property) -> [String: Any] {
        var json: [String: Any] = [
            "name": property.name, "type": property.type.rawValue, "typeName": property.typeName,
            "optional": property.isOptional, "primaryKey": property.isPrimaryKey, "indexed": property.isIndexed,
        ]
        if let collection = property.collection { json["collection"] = "\(collection)" }
        if let target = property.objectClassName { json["objectClass"] = target }
        if let origin = property.linkOriginPropertyName { json["originProperty"] = origin }
        if property.isAutoIncrement { json["autoIncrement"] = true }
        if property.isUnique { json["unique"] = true }
        if property.isFullTextIndexed { json["fullTextIndexed"] = true }
        if let timestamp = property.timestamp { json["timestamp"] = timestamp.rawValue }
        return json
    }

    /// For each class, the stored links to it: (origin class, property).
    static func backlinks(_ schema: Schema) -> [String: [(String, String)]] {
        var result: [String: [(String, String)]] = [:]
        for origin in schema.objectSchema {
            for property in origin.properties where property.isLink {
                if let target = property.objectClassName { result[target, default: []].append((origin.className, property.name)) }
            }
        }
        return result
    }
}

/// Model classes written from a stored schema, for `objdb schema --swift`.
enum SwiftModels {
    static func source(for classes: [ObjectSchema]) -> String {
        var lines = ["import ObjDB", ""]
        for schema in classes {
            lines.append("final class \(identifier(schema.className)): \(schema.isEmbedded ? "EmbeddedObject" : "Object") {")
            if !schema.uniqueKeys.isEmpty {
                let keys = schema.uniqueKeys.map { "[" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }.joined(separator: ", ")
                lines.append("    override class var uniqueKeys: [[String]] { [\(keys)] }")
            }
            for property in schema.properties { lines.append("    " + declaration(property)) }
            lines.append("}")
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// A class name usable in Swift.
    static func identifier(_ name: String) -> String {
        let cleaned = name.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" }
        let text = String(cleaned)
        return text.first?.isNumber == true ? "_" + text : text
    }

    /// The `@Persisted` declaration of `property`.
    static func declaration(_ property: Property) -> String {
        var arguments: [String] = []
        if property.isPrimaryKey { arguments.append("primaryKey: true") }
        if property.isAutoIncrement { arguments.append("autoIncrement: true") }
        if property.isUnique && !property.isPrimaryKey {
            arguments.append("unique: true")
        } else if property.isIndexed && !property.isPrimaryKey {
            arguments.append("indexed: true")
        }
        if property.isFullTextIndexed { arguments.append("fullTextIndexed: true") }
        if let timestamp = property.timestamp { arguments.append(".\(timestamp.rawValue)") }
        if let origin = property.linkOriginPropertyName { arguments.append("originProperty: \"\(origin)\"") }
        let attribute = "@Persisted" + (arguments.isEmpty ? "" : "(\(arguments.joined(separator: ", ")))")
        let name = property.name
        let element = elementType(property)
        switch property.collection {
        case .list?: return "\(attribute) var \(name): List<\(element)>"
        case .set?: return "\(attribute) var \(name): MutableSet<\(element)>"
        case .map?: return "\(attribute) var \(name): Map<String, \(element)>"
        case nil: break
        }
        if property.type == .linkingObjects {
            return "\(attribute) var \(name): LinkingObjects<\(identifier(property.objectClassName ?? "Object"))>"
        }
        if property.type == .object { return "\(attribute) var \(name): \(element)" }
        if property.isOptional, property.type != .mixed { return "\(attribute) var \(name): \(element) = nil" }
        return "\(attribute) var \(name): \(element) = \(defaultValue(property))"
    }

    /// The Swift type of one value of `property` (optional where stored so).
    static func elementType(_ property: Property) -> String {
        let base: String
        switch property.type {
        case .int: base = property.bitWidth == 0 || property.bitWidth == 64 ? "Int" : "Int\(property.bitWidth)"
        case .object, .linkingObjects: base = identifier(property.objectClassName ?? "Object")
        default: base = property.type.description
        }
        // A mixed value is optional in itself (`none`), never `MixedValue?`.
        if property.type == .mixed { return base }
        return property.isOptional || property.type == .object && property.collection == nil ? base + "?" : base
    }

    /// A default for a non-optional value property.
    static func defaultValue(_ property: Property) -> String {
        switch property.type {
        case .bool: return "false"
        case .int, .float, .double: return "0"
        case .string: return "\"\""
        case .data: return "Data()"
        case .date: return "Date(timeIntervalSinceReferenceDate: 0)"  // the library's default
        case .uuid: return "UUID()"
        case .decimal: return "0"
        case .objectId: return "ObjectId.generate()"
        case .object, .linkingObjects: return "nil"
        case .mixed: return ".none"
        }
    }
}
