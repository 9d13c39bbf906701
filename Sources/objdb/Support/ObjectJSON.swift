import Foundation
@_spi(Inspection) import ObjDB

/// Objects as JSON values, as `Docs/CLI.md` documents them: a JSON object keyed by property
/// name with `"$class"` and `"$key"`; links as `{"$class": …, "$pk": …}` (or `"$key"` without a
/// primary key), followed `linkDepth` levels deep; embedded objects inline; `Data` as base64,
/// dates as ISO 8601 with fractional seconds, `Decimal` as a string, `ObjectId` as hex, `UUID`
/// as its string.
struct ObjectJSON {
    let db: Database
    /// How many links deep objects are written whole.
    var linkDepth = 0

    /// `object` as a JSON object.
    func object(_ object: DynamicObject, depth: Int? = nil) -> [String: Any] {
        let depth = depth ?? linkDepth
        let className = object.className
        var json: [String: Any] = ["$class": className]
        guard let schema = db.schema[className] else { return json }
        if !schema.isEmbedded, let key = object.objectKey { json["$key"] = Int(truncatingIfNeeded: key) }
        for property in schema.properties where !property.isComputed {
            json[property.name] = value(object[property.name], depth: depth)
        }
        return json
    }

    /// A reference to `object` (a link not followed), or the whole object for embedded ones and
    /// while `depth` lasts.
    func link(_ object: DynamicObject, depth: Int) -> Any {
        let className = object.className
        let schema = db.schema[className]
        if schema?.isEmbedded == true || depth > 0 { return self.object(object, depth: depth - 1) }
        if let primaryKey = schema?.primaryKeyProperty {
            return ["$class": className, "$pk": value(object[primaryKey.name], depth: 0)]
        }
        return ["$class": className, "$key": Int(truncatingIfNeeded: object.objectKey ?? 0)]
    }

    /// A property value as JSON.
    func value(_ value: Any?, depth: Int) -> Any {
        switch value {
        case nil: return NSNull()
        case let object as DynamicObject: return link(object, depth: depth)
        case let array as [Any?]: return array.map { self.value($0, depth: depth) }
        case let map as [String: Any?]: return map.mapValues { self.value($0, depth: depth) }
        case let some?: return Self.scalar(some)
        }
    }

    /// A single value as JSON.
    static func scalar(_ value: Any) -> Any {
        switch value {
        case let bool as Bool: return bool
        case let int as Int: return int
        case let int as Int8: return Int(int)
        case let int as Int16: return Int(int)
        case let int as Int32: return Int(int)
        case let int as Int64: return Int(int)
        case let double as Double: return double.isFinite ? double as Any : "\(double)"
        case let float as Float: return float.isFinite ? Double(float) as Any : "\(float)"
        case let string as String: return string
        case let data as Data: return data.base64EncodedString()
        case let date as Date: return isoDate(date)
        case let decimal as Decimal: return "\(decimal)"
        case let id as ObjectId: return id.stringValue
        case let uuid as UUID: return uuid.uuidString
        default: return "\(value)"
        }
    }

    /// `date` in ISO 8601 with milliseconds, in UTC.
    static func isoDate(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// JSON text of `value`, keys sorted; `pretty` indents it.
    static func text(_ value: Any, pretty: Bool = false) throws -> String {
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
        if pretty { options.insert(.prettyPrinted) }
        return String(decoding: try JSONSerialization.data(withJSONObject: value, options: options), as: UTF8.self)
    }
}
