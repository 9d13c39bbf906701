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
    /// The classes' schemas, looked up once.
    let layouts: ClassLayouts

    init(db: Database, linkDepth: Int = 0) {
        self.db = db
        self.linkDepth = linkDepth
        self.layouts = ClassLayouts(db.schema)
    }

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
    static func isoDate(_ date: Date) -> String { JSONText.isoDate(date) }

    /// Writes `object` as a JSON object into `json`, keys sorted: the fast twin of
    /// ``object(_:depth:)`` for output, checked against it by the tests.
    func write(_ object: DynamicObject, depth: Int? = nil, into json: inout JSONText) {
        let depth = depth ?? linkDepth
        let className = object.className
        json.raw("{\"$class\":")
        json.string(className)
        guard let layout = layouts.layout(className) else {
            json.byte(0x7D)
            return
        }
        if !layout.schema.isEmbedded, let key = object.objectKey { json.raw(",\"$key\":\(key)") }
        for (property, column) in layout.sortedStored {
            json.byte(0x2C)
            json.string(property.name)
            json.byte(0x3A)
            let value = object.value(atColumn: column)
            if property.collection == nil && property.type != .object, let value {
                // A single value: cast to the property's type, not tried against every kind.
                json.scalar(value, type: property.type)
            } else {
                write(value, depth: depth, into: &json)
            }
        }
        json.byte(0x7D)
    }

    /// Writes the object whose stored row is `row` exactly as ``write(_:depth:into:)`` writes the
    /// object: plain values straight from the row's bytes, without an object or an `Any` per
    /// value; links, collections and other types the general way. The export's path, checked
    /// against the object path by the tests.
    func write(_ row: StoredRow, layout: ClassLayouts.Layout, into json: inout JSONText) {
        json.bytes(layout.opening)
        if !layout.schema.isEmbedded {
            json.raw(",\"$key\":")
            json.unsigned(row.objectKey)
        }
        // Made at the first column read the general way, once per row.
        var object: DynamicObject?
        for column in layout.rowColumns {
            json.bytes(column.key)
            if column.kind != .general, column.property.isOptional, row.isNull(column.column) {
                json.raw("null")
                continue
            }
            switch column.kind {
            case .integer:
                // A value outside the property's width (a damaged row) reads the general way.
                if let value = row.integer(column.column), column.fits(value) { json.integer(value); continue }
            case .double:
                if let value = row.double(column.column), value.isFinite { json.raw(value.description); continue }
            case .float:
                if let value = row.float(column.column), value.isFinite { json.raw(value.description); continue }
            case .bool: if let value = row.bool(column.column) { json.raw(value ? "true" : "false"); continue }
            case .string: if let value = row.utf8(column.column) { json.string(utf8: value); continue }
            case .date:
                if let value = row.double(column.column) { json.isoDate(Date(timeIntervalSinceReferenceDate: value)); continue }
            case .general: break
            }
            // Not read from the bytes (a default for a column the row predates, an infinite
            // number, a link or collection): the object path's way.
            if object == nil { object = row.object() }
            let value = object?.value(atColumn: column.column)
            if column.property.collection == nil && column.property.type != .object, let value {
                json.scalar(value, type: column.property.type)
            } else {
                write(value, depth: linkDepth, into: &json)
            }
        }
        json.byte(0x7D)
    }

    /// Writes every object of the class `className` from its stored row, one line each, into
    /// `out`, the line starting with `prefix(isFirst)`; calls `each` per object. The count.
    @discardableResult
    func writeRows(
        of className: String, to out: OutputWriter, prefix: (Bool) -> String = { _ in "" }, each: () -> Void = {}
    ) throws -> Int {
        guard let layout = layouts.layout(className) else { return 0 }
        var text = JSONText()
        var count = 0
        try db.forEachStoredRow(ofClassNamed: className) { row in
            text.removeAll()
            text.raw(prefix(count == 0))
            write(row, layout: layout, into: &text)
            out.line(text.bytes)
            count += 1
            each()
        }
        return count
    }

    /// Writes a property value as JSON.
    func write(_ value: Any?, depth: Int, into json: inout JSONText) {
        switch value {
        case nil: json.raw("null")
        case let object as DynamicObject:
            let layout = layouts.layout(object.className)
            if layout?.schema.isEmbedded == true || depth > 0 {
                write(object, depth: depth - 1, into: &json)
            } else if let primaryKey = layout?.schema.primaryKeyProperty {
                json.raw("{\"$class\":")
                json.string(object.className)
                json.raw(",\"$pk\":")
                write(object[primaryKey.name], depth: 0, into: &json)
                json.byte(0x7D)
            } else {
                json.raw("{\"$class\":")
                json.string(object.className)
                json.raw(",\"$key\":\(object.objectKey ?? 0)}")
            }
        case let array as [Any?]:
            json.byte(0x5B)
            for (index, element) in array.enumerated() {
                if index > 0 { json.byte(0x2C) }
                write(element, depth: depth, into: &json)
            }
            json.byte(0x5D)
        case let map as [String: Any?]:
            json.byte(0x7B)
            for (index, key) in map.keys.sorted().enumerated() {
                if index > 0 { json.byte(0x2C) }
                json.string(key)
                json.byte(0x3A)
                write(map[key] ?? nil, depth: depth, into: &json)
            }
            json.byte(0x7D)
        case let some?: json.scalar(some)
        }
    }

    /// JSON text of `value`, keys sorted; `pretty` indents it.
    static func text(_ value: Any, pretty: Bool = false) throws -> String {
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
        if pretty { options.insert(.prettyPrinted) }
        return String(decoding: try JSONSerialization.data(withJSONObject: value, options: options), as: UTF8.self)
    }
}

/// Each class's schema and its stored properties sorted by name, computed once per command.
final class ClassLayouts {
    struct Layout {
        let schema: ObjectSchema
        /// The stored properties sorted by name, with their column (their position among the
        /// stored properties of a schema read from the file).
        let sortedStored: [(property: Property, column: Int)]
        /// The same, for writing from stored rows: each with its JSON key text (`,"name":`)
        /// and how its values are read.
        let rowColumns: [RowColumn]
        /// The text each of the class's objects starts with: `{"$class":"Name"`.
        let opening: [UInt8]
    }

    /// A stored property as ``ObjectJSON/write(_:layout:into:)`` writes it.
    struct RowColumn {
        let property: Property
        let column: Int
        /// `,"name":`
        let key: [UInt8]
        let kind: RowValueKind

        /// Whether `value` fits the property's integer width (a damaged row may hold more).
        func fits(_ value: Int64) -> Bool {
            let bits = property.bitWidth
            guard bits > 0 && bits < 64 else { return true }
            let limit = Int64(1) << (bits - 1)
            return value >= -limit && value < limit
        }
    }

    /// How a column's values are read from a stored row: a plain value of one type read from its
    /// bytes, or anything else (links, collections, other types) read the general way.
    enum RowValueKind {
        case integer, double, float, bool, string, date, general

        init(_ property: Property) {
            guard property.collection == nil else {
                self = .general
                return
            }
            switch property.type {
            case .int: self = .integer
            case .double: self = .double
            case .float: self = .float
            case .bool: self = .bool
            case .string: self = .string
            case .date: self = .date
            default: self = .general
            }
        }
    }

    private let byName: [String: Layout]

    init(_ schema: Schema) {
        byName = Dictionary(uniqueKeysWithValues: schema.objectSchema.map { objectSchema in
            let stored = objectSchema.properties.filter { !$0.isComputed }.enumerated().map { ($0.element, $0.offset) }
            let sorted = stored.sorted { $0.0.name < $1.0.name }
            let rowColumns = sorted.map { property, column in
                var key = JSONText()
                key.byte(0x2C)
                key.string(property.name)
                key.byte(0x3A)
                return RowColumn(property: property, column: column, key: key.bytes, kind: RowValueKind(property))
            }
            var opening = JSONText()
            opening.raw("{\"$class\":")
            opening.string(objectSchema.className)
            return (
                objectSchema.className,
                Layout(schema: objectSchema, sortedStored: sorted, rowColumns: rowColumns, opening: opening.bytes)
            )
        })
    }

    func layout(_ className: String) -> Layout? { byName[className] }
}
