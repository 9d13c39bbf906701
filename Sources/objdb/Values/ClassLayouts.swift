@_spi(Inspection) import ObjDB

/// Each class's schema and its stored properties sorted by name, computed once per command.
final class ClassLayouts {
    /// One class as the writer lays it out.
    struct Layout {
        /// The class's schema, as the file has it.
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

    /// A stored property as ``ObjectWriter/write(_:layout:into:)`` writes it.
    struct RowColumn {
        /// The property.
        let property: Property
        /// Its column in the class's rows.
        let column: Int
        /// `,"name":`
        let key: [UInt8]
        /// How its values are read from a row.
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

        /// The kind of `property`'s values: a plain value's type, or general.
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

    /// The layouts of every class of `schema`.
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

    /// The layout of the class `className`, if the schema has it.
    func layout(_ className: String) -> Layout? { byName[className] }
}
