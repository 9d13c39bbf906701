import Foundation

/// A column with a primary-key or index table (see ``ClassInfo/keySlots``).
struct KeySlot {
    /// The column.
    let column: Int
    /// Its primary-key or index table. The primary-key column has no index table, so a column
    /// has at most one slot.
    let table: Table
    /// How its values are encoded as keys.
    let kind: ScalarKind
    /// Whether the table is the primary-key table.
    let isPrimary: Bool
    /// Whether the column is unique (`@Persisted(unique: true)`): its entries are written at
    /// once, after checking that no other object holds the value.
    var isUnique = false
}

/// A column with a full-text index (see ``ClassInfo/fullTextSlots``).
struct FullTextSlot {
    /// The column.
    let column: Int
    /// Its full-text index table (``FullTextPostings``).
    let table: Table
}

/// How a column is stored and maintained.
enum ColumnKind: Equatable {
    /// A single value.
    case value
    /// A to-one link: the target's object key, or null.
    case link
    /// A list: a sequence of elements.
    case list
    /// A set: a sequence of distinct elements.
    case set
    /// A map: sorted keys and their values.
    case map

    init(_ property: StoredProperty) {
        switch property.collection {
        case .list: self = .list
        case .set: self = .set
        case .map: self = .map
        case nil: self = property.type == .object ? .link : .value
        }
    }
}

/// What a ``Database`` knows about one class of its file: the stored description (which fixes
/// the row columns), the tables, and, when this process has the model class, how its
/// `@Persisted` fields map to columns.
final class ClassInfo {
    /// The class as stored in the file.
    let stored: StoredClass
    /// Its public description, properties in column order.
    let schema: ObjectSchema
    /// The class's tables.
    let tables: ClassTables
    /// `tables.objects`, kept apart for the hot paths.
    let objectsTable: Table
    /// `tables.primaryKeys`, kept apart for the hot paths.
    let primaryKeyTable: Table?
    /// The stored type of the primary key, if any.
    let primaryKeyType: PropertyType?
    /// The Swift model class, if known in this process.
    let layout: ClassLayout?
    /// For each layout field, its column.
    let columnOfField: [Int]
    /// For each column, its layout field, or -1.
    let fieldOfColumn: [Int]
    /// The primary-key column, if any.
    let primaryKeyColumn: Int?
    /// Key-encoding kind of each column.
    let scalarKinds: [ScalarKind]
    /// For each persisted field of the model class, the offset of its `_column` word in an
    /// instance and the column it maps to: what attaching an object writes.
    let columnWords: [(offset: Int, column: Int)]
    /// Per column, how to encode it from an unmanaged instance of the model class: the byte
    /// offset of the wrapper's value and its type; `nil` type for a column the model lacks.
    let encodePlan: ContiguousArray<(valueOffset: Int, valueType: (any PersistableType.Type)?, relationship: (any RelationshipValue.Type)?)>
    /// Whether the model class has links or collections, which `add` handles as a graph.
    let hasRelationshipFields: Bool
    /// How each column is stored.
    let columnKinds: [ColumnKind]
    /// Columns that hold object keys (to-one links and collections of objects), with a
    /// backlink table each.
    let linkColumns: [Int]
    /// Columns of mixed properties whose links are tracked (their mixed-links table is open).
    let mixedLinkColumns: [Int]
    /// Columns of mixed properties without a mixed-links table (a file not upgraded yet): they
    /// take no link or nested collection.
    let untrackedMixedColumns: [Int]
    /// Per column: the class its objects belong to, for link columns.
    let linkTargets: [String?]
    /// The computed properties (``LinkingObjects``); property `i` reads as pseudo-column
    /// `columnCount + i`.
    let computed: [StoredProperty]
    /// Whether iteration may re-point an instance nobody else holds at the next stored object.
    let canRecycleObjects: Bool
    /// Whether the model class (if any) declares exactly the stored indexes.
    let matchesLayoutIndexes: Bool
    /// Set when the write transaction that created the class was rolled back: its table handles
    /// are closed, and objects of it are invalid.
    var isDiscarded = false
    /// Where integer primary keys are likely stored: lets a lookup by primary key skip the
    /// primary-key table while objects were added in key order.
    @exclusivity(unchecked) var keyDistance = KeyDistanceHint()
    /// Per column, what the query layer derived from the stored property and keeps for next
    /// time (its bound key path, which depends on `stored` alone): held here without its type,
    /// so that the catalog knows nothing of queries.
    @exclusivity(unchecked) var queryPaths: [AnyObject?]
    /// Whether the instances of a frozen version share this information, reading it from
    /// several threads at once: then nothing writes its hints (``keyDistance``,
    /// ``queryPaths``) after it was built.
    let isShared: Bool
    /// The property names, in column order, for finding a column by name without copying
    /// properties.
    let columnNames: [String]
    /// The columns with a primary-key or index table, the primary key first, each with its
    /// table and key kind: what a row write walks to keep those tables current.
    let keySlots: [KeySlot]
    /// The columns with a full-text index, each with its table: what a row write walks to keep
    /// those indexes current.
    let fullTextSlots: [FullTextSlot]
    /// Each column alone (`[c]` at `c`): the changed columns of a one-column write, so that
    /// setting a property allocates no array.
    let singleColumns: [[Int]]
    /// Per column, the Swift type stored in it: the model's where it has the property, else
    /// the type the stored property describes (found once: reading by name asks for it).
    let columnTypes: [any PersistableType.Type]

    /// The compound unique keys (``ObjectBase/uniqueKeys``) as columns; the first column of each
    /// is indexed, which the check reads for candidates.
    let compoundKeys: [[Int]]
    /// Whether row writes must check unique values: a unique property or a compound key.
    let hasUniqueConstraints: Bool

    /// The auto-increment primary-key column, if any.
    let autoIncrementColumn: Int?
    /// The columns of `@Persisted(.createdAt)` dates.
    let createdAtColumns: [Int]
    /// The columns of `@Persisted(.modifiedAt)` dates.
    let modifiedAtColumns: [Int]

    /// Whether the class has `createdAt` or `modifiedAt` dates.
    var hasMaintainedDates: Bool { !createdAtColumns.isEmpty || !modifiedAtColumns.isEmpty }
    /// Whether inserts fill in columns (an auto-increment key or dates).
    var hasMaintainedColumns: Bool { autoIncrementColumn != nil || hasMaintainedDates }

    /// The class name.
    var name: String { stored.name }
    /// The stable class id.
    var classID: UInt32 { stored.id }
    /// Number of columns in rows.
    var columnCount: Int { stored.properties.count }

    init(stored: StoredClass, tables: ClassTables, layout: ClassLayout?, isShared: Bool = false) {
        self.isShared = isShared
        self.stored = stored
        self.schema = stored.objectSchema
        self.tables = tables
        self.layout = layout
        objectsTable = tables.objects
        primaryKeyTable = tables.primaryKeys
        let properties = stored.properties
        primaryKeyType = properties.first { $0.primaryKey }?.type
        primaryKeyColumn = properties.firstIndex { $0.primaryKey }
        scalarKinds = properties.map(\.type.scalarKind)
        autoIncrementColumn = properties.firstIndex { $0.primaryKey && $0.autoIncrement == true }
        createdAtColumns = properties.indices.filter { properties[$0].timestamp == .createdAt }
        modifiedAtColumns = properties.indices.filter { properties[$0].timestamp == .modifiedAt }
        columnNames = properties.map(\.name)
        queryPaths = Array(repeating: nil, count: properties.count)
        singleColumns = properties.indices.map { [$0] }
        var slots: [KeySlot] = []
        if let column = primaryKeyColumn, let table = tables.primaryKeys {
            slots.append(KeySlot(column: column, table: table, kind: scalarKinds[column], isPrimary: true))
        }
        for (column, table) in tables.indexes.enumerated() {
            if let table {
                slots.append(KeySlot(
                    column: column, table: table, kind: scalarKinds[column], isPrimary: false, isUnique: properties[column].unique == true))
            }
        }
        keySlots = slots
        fullTextSlots = tables.fullText.enumerated().compactMap { column, table in table.map { FullTextSlot(column: column, table: $0) } }
        compoundKeys = (stored.uniqueKeys ?? []).compactMap { names in
            let columns = names.compactMap { name in properties.firstIndex { $0.name == name } }
            return columns.count == names.count && tables.indexes.indices.contains(columns[0]) && tables.indexes[columns[0]] != nil ? columns : nil
        }
        hasUniqueConstraints = !compoundKeys.isEmpty || keySlots.contains { $0.isUnique }
        columnKinds = properties.map(ColumnKind.init)
        linkColumns = properties.indices.filter { properties[$0].type == .object }
        mixedLinkColumns = tables.mixedLinks.indices.filter { tables.mixedLinks[$0] != nil }
        untrackedMixedColumns = properties.indices.filter { properties[$0].type == .mixed && tables.mixedLinks[$0] == nil }
        linkTargets = properties.map { $0.type == .object ? $0.objectClass : nil }
        let computed = stored.computed ?? []
        self.computed = computed
        var fieldOfColumn = [Int](repeating: -1, count: properties.count)
        var columnOfField: [Int] = []
        if let layout {
            for field in layout.fields {
                let column = stored.column(of: field.name)
                    ?? computed.firstIndex { $0.name == field.name }.map { properties.count + $0 } ?? -1
                columnOfField.append(column)
                if column >= 0 && column < properties.count { fieldOfColumn[column] = field.index }
            }
        }
        self.fieldOfColumn = fieldOfColumn
        self.columnOfField = columnOfField
        columnTypes = properties.indices.map { column in
            if let layout, fieldOfColumn[column] >= 0 { return layout.fields[fieldOfColumn[column]].valueType }
            return properties[column].property.swiftType
        }
        encodePlan = ContiguousArray(fieldOfColumn.map { field in
            guard let layout, field >= 0 else { return (0, nil, nil) }
            let relationship = layout.fields[field].relationship
            return (layout.fields[field].valueOffset, relationship == nil ? layout.fields[field].valueType : nil, relationship)
        })
        // Mixed values may hold objects too: adding such an object walks its graph.
        hasRelationshipFields = layout?.fields.contains { $0.relationship != nil || $0.valueType == MixedValue.self } ?? false
        canRecycleObjects = layout?.onlyPersistedFields ?? false
        matchesLayoutIndexes = layout.map { ClassInfo.indexesMatch(stored, $0) } ?? true
        columnWords = layout?.fields.map { ($0.columnWordOffset, columnOfField[$0.index]) } ?? []
    }

    /// The column of the property with that name, or ``ObjDBError/Code/unknownProperty``.
    func column(named name: String) throws -> Int {
        // By the names alone: comparing strings, not copying each property's description.
        guard let column = columnNames.firstIndex(of: name) else {
            throw ObjDBError(
                .unknownProperty, "Class '\(self.name)' has no property '\(name)'",
                className: self.name, propertyName: name)
        }
        return column
    }

    /// The Swift type stored in a column.
    func valueType(column: Int) -> any PersistableType.Type { columnTypes[column] }

    /// The declared default of a column's property (the type's zero value without a model class).
    func defaultValue(column: Int) -> Any? {
        if let layout, fieldOfColumn[column] >= 0 { return layout.defaultValue(field: fieldOfColumn[column]) }
        return valueType(column: column)._objdbDefaultValue()._objdbAnyValue
    }

    /// Whether the class has columns holding object keys: links, or mixed values that may.
    var hasLinks: Bool { !linkColumns.isEmpty || !mixedLinkColumns.isEmpty || !untrackedMixedColumns.isEmpty }

    /// The bytes of a column's default, for rows written before the column existed.
    func encodedDefault(column: Int) -> [UInt8]? {
        switch columnKinds[column] {
        case .value: break
        case .link: return nil
        case .list, .set: return SequenceFormat.empty
        case .map: return MapFormat.empty
        }
        if let layout, fieldOfColumn[column] >= 0 { return layout.encodedDefault(field: fieldOfColumn[column]) }
        var bytes = _ObjDBBytes()
        return valueType(column: column)._objdbDefaultValue()._objdbEncode(into: &bytes) ? bytes.array : nil
    }

    /// Converts a loosely typed value for a column and encodes it; `nil` result for `nil`.
    /// Throws ``ObjDBError/Code/typeMismatch`` when it does not fit.
    func encode(_ value: Any?, column: Int) throws -> [UInt8]? {
        var bytes = _ObjDBBytes()
        return try converted(value, column: column)._objdbEncode(into: &bytes) ? bytes.array : nil
    }

    /// `value` as the Swift type of `column`; ``ObjDBError/Code/typeMismatch`` if it does not fit.
    func converted(_ value: Any?, column: Int) throws -> any PersistableType {
        let type = valueType(column: column)
        guard let converted = type._objdbConverted(value) else {
            throw ObjDBError.typeMismatch(value, expected: stored.properties[column].property, className: name, valueType: type)
        }
        return converted
    }
}

extension PersistableType {
    /// The boxed value of a column read, or `nil` for null or undecodable bytes.
    static func anyValue(from read: ColumnRead) -> Any? {
        switch read {
        case .value(let bytes): _objdbDecodedAnyValue(bytes)
        case .null, .absent: nil
        }
    }
}

extension Property {
    /// The Swift type that holds this property when no model class is at hand.
    var swiftType: any PersistableType.Type {
        let base: any NonOptionalPersistableType.Type
        switch type {
        case .bool: base = Bool.self
        case .int:
            switch bitWidth {
            case 8: base = Int8.self
            case 16: base = Int16.self
            case 32: base = Int32.self
            default: base = Int.self
            }
        case .float: base = Float.self
        case .double: base = Double.self
        case .string: base = String.self
        case .data: base = Data.self
        case .date: base = Date.self
        case .uuid: base = UUID.self
        case .decimal: base = Decimal.self
        case .objectId: base = ObjectId.self
        // Relationship columns are read and written through their own paths (links, collections);
        // as plain values they are their raw bytes.
        case .object, .linkingObjects: base = Data.self
        // Optional in itself: `none` is its nil.
        case .mixed: return MixedValue.self
        }
        return isOptional || collection != nil || type == .object ? base.optionalType : base
    }
}

extension NonOptionalPersistableType {
    /// `Optional<Self>`.
    static var optionalType: any PersistableType.Type { Optional<Self>.self }
}

extension ClassInfo {
    /// The same class with hints of its own: ``isShared`` for a frozen version's instances,
    /// else for one live instance.
    func copy(shared: Bool) -> ClassInfo {
        let copy = ClassInfo(stored: stored, tables: tables, layout: layout, isShared: shared)
        copy.keyDistance = keyDistance
        copy.queryPaths = queryPaths
        return copy
    }
}

/// The classes of an open file, as one ``Database`` sees them.
struct Catalog {
    /// The schema as stored in the file.
    var stored: StoredSchema
    /// The `schemaStamp` the catalog was built from.
    var stamp: UInt64
    /// Runtime information by class name.
    var byName: [String: ClassInfo] = [:]
    /// Runtime information by Swift class.
    var byType: [ObjectIdentifier: ClassInfo] = [:]
    /// The explicitly configured model classes, if any.
    let configuredTypes: Set<ObjectIdentifier>?

    /// The same classes, each with hints of its own (see ``ClassInfo/copy(shared:)``).
    func copy(shared: Bool) -> Catalog {
        var copy = Catalog(stored: stored, stamp: stamp, configuredTypes: configuredTypes)
        var copies: [ObjectIdentifier: ClassInfo] = [:]
        for (name, info) in byName {
            let new = info.copy(shared: shared)
            copies[ObjectIdentifier(info)] = new
            copy.byName[name] = new
        }
        for (type, info) in byType {
            copy.byType[type] = copies[ObjectIdentifier(info)] ?? info.copy(shared: shared)
        }
        return copy
    }
}
