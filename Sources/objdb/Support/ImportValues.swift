import Foundation
import ObjDB

/// Values read from JSON or CSV turned into the values `createDynamicObject` takes, checked
/// against the file's schema: the reverse of ``ObjectJSON``.
struct ImportValues {
    let schema: Schema

    /// A JSON object (as `JSONSerialization` reads it) as property values of `objectSchema`;
    /// `"$class"` and `"$key"` are ignored.
    func object(_ json: [String: Any], _ objectSchema: ObjectSchema) throws -> [String: Any?] {
        var values: [String: Any?] = [:]
        for (name, value) in json where !name.hasPrefix("$") {
            guard let property = objectSchema[name], !property.isComputed else {
                throw CommandFailure("class '\(objectSchema.className)' has no stored property '\(name)'")
            }
            values[name] = try self.value(value, property, objectSchema.className)
        }
        return values
    }

    /// A JSON value of `property`.
    func value(_ json: Any, _ property: Property, _ className: String) throws -> Any? {
        if json is NSNull { return nil }
        switch property.collection {
        case .list?, .set?:
            guard let array = json as? [Any] else { throw mismatch(json, property, className, "an array") }
            return try array.map { try element($0, property, className) }
        case .map?:
            guard let map = json as? [String: Any] else { throw mismatch(json, property, className, "an object") }
            return try map.mapValues { try element($0, property, className) }
        case nil:
            return try element(json, property, className)
        }
    }

    /// One value (or collection element) of `property`.
    func element(_ json: Any, _ property: Property, _ className: String) throws -> Any? {
        if json is NSNull { return nil }
        if property.type == .object {
            guard let target = property.objectClassName.flatMap({ schema[$0] }) else {
                throw CommandFailure("\(className).\(property.name) links to a class the file does not have")
            }
            guard let reference = json as? [String: Any] else {
                throw mismatch(json, property, className, "a link ({\"$pk\": …}) or an object")
            }
            if target.isEmbedded { return try object(reference, target) }
            if let pk = reference["$pk"], let key = target.primaryKeyProperty {
                return try element(pk, key, target.className)
            }
            if reference["$key"] != nil {
                throw CommandFailure("\(className).\(property.name): a link by \"$key\" to \(target.className) cannot be imported (keys are per file); \(target.className) needs a primary key")
            }
            return try object(reference, target)
        }
        if let text = json as? String {
            // Strings hold the types JSON has no form for (and any value in CSV).
            return try ValueParsing.value(text, for: property, className: className)
        }
        switch property.type {
        case .bool:
            if let bool = json as? Bool { return bool }
        case .int:
            if let number = json as? NSNumber, let int = Int(exactly: number.doubleValue) ?? (json as? Int) {
                return try ValueParsing.value(String(int), for: property, className: className)
            }
        case .float:
            if let number = json as? NSNumber { return number.floatValue }
        case .double:
            if let number = json as? NSNumber { return number.doubleValue }
        case .decimal:
            if let number = json as? NSNumber { return Decimal(string: number.stringValue) }
        case .date:
            if let number = json as? NSNumber { return Date(timeIntervalSince1970: number.doubleValue) }
        default: break
        }
        throw mismatch(json, property, className, property.typeName)
    }

    private func mismatch(_ json: Any, _ property: Property, _ className: String, _ expected: String) -> CommandFailure {
        CommandFailure("\(className).\(property.name) is \(property.typeName): \(json) is not \(expected)")
    }

    /// A CSV row (header names to texts) as property values: scalars parsed as their type, an
    /// empty field as nil for an optional property, links as the target's primary key,
    /// collections as JSON text.
    func csvRow(_ fields: [String: String], _ objectSchema: ObjectSchema) throws -> [String: Any?] {
        var values: [String: Any?] = [:]
        for (name, text) in fields where !name.hasPrefix("$") {
            guard let property = objectSchema[name], !property.isComputed else {
                throw CommandFailure("class '\(objectSchema.className)' has no stored property '\(name)'")
            }
            if text.isEmpty && (property.isOptional || property.type == .object) && property.collection == nil {
                values[name] = nil as Any?
                continue
            }
            if property.collection != nil {
                let json = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
                values[name] = try value(json, property, objectSchema.className)
            } else if property.type == .object {
                guard let target = property.objectClassName.flatMap({ schema[$0] }), let key = target.primaryKeyProperty else {
                    throw CommandFailure("\(objectSchema.className).\(name) links to a class without a primary key: it cannot be imported from CSV")
                }
                values[name] = try ValueParsing.value(text, for: key, className: target.className)
            } else {
                values[name] = try ValueParsing.value(text, for: property, className: objectSchema.className)
            }
        }
        return values
    }
}
