import Foundation
@_spi(Inspection) import ObjDB

/// Objects as lines of a dump: export's JSON where it is exact, and exact forms where export's
/// is not (`Docs/CLI.md`, "Dump format"): dates as the seconds since 2001-01-01 the file stores,
/// every link as `{"$class", "$key"}`, embedded objects inline.
struct DumpWriter {
    let layouts: ClassLayouts

    init(schema: Schema) { layouts = ClassLayouts(schema) }

    /// `object` (of a class that is not embedded) as one line, with `"$class"` and `"$key"`.
    func line(_ object: DynamicObject) -> [UInt8] {
        var json = JSONText()
        write(object, into: &json)
        return json.bytes
    }

    /// Writes `object` as a JSON object, properties sorted by name; `"$key"` unless embedded.
    private func write(_ object: DynamicObject, into json: inout JSONText) {
        json.raw("{\"$class\":")
        json.string(object.className)
        guard let layout = layouts.layout(object.className) else { return json.byte(0x7D) }
        if !layout.schema.isEmbedded, let key = object.objectKey { json.raw(",\"$key\":\(key)") }
        for (property, column) in layout.sortedStored {
            json.byte(0x2C)
            json.string(property.name)
            json.byte(0x3A)
            write(object.value(atColumn: column), property, into: &json)
        }
        json.byte(0x7D)
    }

    /// A property value: collections as arrays (maps as objects, keys sorted), else one element.
    private func write(_ value: Any?, _ property: Property, into json: inout JSONText) {
        switch (value, property.collection) {
        case (let elements as [Any?], .list?), (let elements as [Any?], .set?):
            json.byte(0x5B)
            for (index, element) in elements.enumerated() {
                if index > 0 { json.byte(0x2C) }
                write(element: element, property, into: &json)
            }
            json.byte(0x5D)
        case (let entries as [String: Any?], .map?):
            json.byte(0x7B)
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { json.byte(0x2C) }
                json.string(key)
                json.byte(0x3A)
                write(element: entries[key] ?? nil, property, into: &json)
            }
            json.byte(0x7D)
        default:
            write(element: value, property, into: &json)
        }
    }

    /// One value (or collection element) of `property`, in its exact form.
    private func write(element value: Any?, _ property: Property, into json: inout JSONText) {
        guard let value else { return json.raw("null") }
        switch value {
        case let object as DynamicObject:
            if layouts.layout(object.className)?.schema.isEmbedded == true {
                write(object, into: &json)
            } else {
                json.raw("{\"$class\":")
                json.string(object.className)
                json.raw(",\"$key\":\(object.objectKey ?? 0)}")
            }
        case let float as Float: float.isFinite ? json.raw(float.description) : json.string(float.description)
        case let double as Double: Self.write(double, into: &json)
        case let date as Date: Self.write(date.timeIntervalSinceReferenceDate, into: &json)
        case let decimal as Decimal: json.string(decimal.isNaN ? "NaN" : decimal.description)
        default: json.scalar(value)
        }
    }

    /// A `Double` in Swift's shortest form that reads back exactly; `"nan"`, `"inf"` or
    /// `"-inf"` (strings) when not finite.
    private static func write(_ double: Double, into json: inout JSONText) {
        double.isFinite ? json.raw(double.description) : json.string(double.description)
    }
}
