import Foundation
@_spi(Inspection) import ObjDB

/// Objects as JSON: the one writer of objects, for `export`, `query`, `get`, `watch`, `store`
/// and `dump` (`Docs/CLI.md`, "JSON" and "Dump format"). An object is a JSON object keyed by
/// property name, keys sorted, with `"$class"` and `"$key"` (not for embedded objects);
/// embedded objects inline; lists and sets as arrays, maps as objects (keys sorted); values as
/// ``ValueConversion`` spells them. Links are references or whole objects as ``Links`` says.
struct ObjectWriter {
    /// How links are written.
    enum Links {
        /// `{"$class": …, "$pk": …}`, or `{"$class": …, "$key": …}` for a class without a
        /// primary key; the whole object while the link depth lasts (export, query, get, watch).
        case references
        /// `{"$class": …, "$key": …}` always: a dump keeps every object's key.
        case keys
    }

    /// The database the objects are in.
    let db: Database
    /// How many links deep objects are written whole (with ``Links/references``).
    var linkDepth = 0
    /// How links are written.
    let links: Links
    /// The classes' schemas, looked up once.
    let layouts: ClassLayouts

    /// A writer of `db`'s objects, following links `linkDepth` deep, writing them as `links` says.
    init(db: Database, linkDepth: Int = 0, links: Links = .references) {
        self.db = db
        self.linkDepth = linkDepth
        self.links = links
        self.layouts = ClassLayouts(db.schema)
    }

    /// Writes `object` as a JSON object, keys sorted.
    func write(_ object: DynamicObject, depth: Int? = nil, into json: inout JSONText) throws {
        let depth = depth ?? linkDepth
        let className = object.className
        json.raw("{\"$class\":")
        json.string(className)
        guard let layout = layouts.layout(className) else { return json.byte(0x7D) }
        if !layout.schema.isEmbedded, let key = object.objectKey { json.raw(",\"$key\":\(key)") }
        for (property, column) in layout.sortedStored {
            json.byte(0x2C)
            json.string(property.name)
            json.byte(0x3A)
            let value = object.value(atColumn: column)
            do {
                if property.collection == nil && property.type != .object, let value {
                    // A single value: cast to the property's type, not tried against every kind.
                    try ValueConversion.write(value, type: property.type, into: &json)
                } else {
                    try write(value, depth: depth, into: &json)
                }
            } catch let failure as DateText.Unwritable {
                throw Self.failure(failure, className, object.objectKey, property)
            }
        }
        json.byte(0x7D)
    }

    /// The failure to write a value, naming its object and property.
    private static func failure(_ failure: DateText.Unwritable, _ className: String, _ key: UInt64?, _ property: Property) -> CommandFailure {
        CommandFailure("\(className)\(key.map { " key \($0)" } ?? ""): \(property.name): \(failure.reason)")
    }

    /// Writes the object whose stored row is `row` exactly as ``write(_:depth:into:)`` writes the
    /// object: plain values straight from the row's bytes, without an object or an `Any` per
    /// value; links, collections and other types the general way. The export's path, checked
    /// against the object path by the tests.
    func write(_ row: StoredRow, layout: ClassLayouts.Layout, into json: inout JSONText) throws {
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
                // A date no text names reads the general way, which fails naming it.
                if let value = row.double(column.column), (try? DateText.write(value, into: &json)) != nil { continue }
            case .general: break
            }
            // Not read from the bytes (a default for a column the row predates, an infinite
            // number, a link or collection): the object path's way.
            if object == nil { object = row.object() }
            let value = object?.value(atColumn: column.column)
            do {
                if column.property.collection == nil && column.property.type != .object, let value {
                    try ValueConversion.write(value, type: column.property.type, into: &json)
                } else {
                    try write(value, depth: linkDepth, into: &json)
                }
            } catch let failure as DateText.Unwritable {
                throw Self.failure(failure, layout.schema.className, row.objectKey, column.property)
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
            try write(row, layout: layout, into: &text)
            out.line(text.bytes)
            count += 1
            each()
        }
        return count
    }

    /// Writes a property value as JSON: `null`, a link, an array, a map or one value.
    func write(_ value: Any?, depth: Int, into json: inout JSONText) throws {
        switch value {
        case nil: json.raw("null")
        case let object as DynamicObject:
            let layout = layouts.layout(object.className)
            if layout?.schema.isEmbedded == true || (links == .references && depth > 0) {
                try write(object, depth: depth - 1, into: &json)
            } else if links == .references, let primaryKey = layout?.schema.primaryKeyProperty {
                json.raw("{\"$class\":")
                json.string(object.className)
                json.raw(",\"$pk\":")
                try write(object[primaryKey.name], depth: 0, into: &json)
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
                try write(element, depth: depth, into: &json)
            }
            json.byte(0x5D)
        case let map as [String: Any?]:
            json.byte(0x7B)
            for (index, key) in map.keys.sorted().enumerated() {
                if index > 0 { json.byte(0x2C) }
                json.string(key)
                json.byte(0x3A)
                try write(map[key] ?? nil, depth: depth, into: &json)
            }
            json.byte(0x7D)
        case let some?: try ValueConversion.write(some, into: &json)
        }
    }

    /// `value` (a property's) as one line of JSON text.
    func text(_ value: Any?, depth: Int = 0) throws -> String {
        var json = JSONText()
        try write(value, depth: depth, into: &json)
        return json.text
    }
}
