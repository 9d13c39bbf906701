import Foundation

/// One `@Persisted` field of a model class, found by reflection.
struct FieldLayout: @unchecked Sendable {
    /// The property name (the field name without the wrapper's leading underscore).
    let name: String
    /// Position in the class's declaration order (and in ``ClassLayout/schema``).
    let index: Int
    /// Byte offset of the wrapper in an instance.
    let offset: Int
    /// Byte offset of the wrapper's `_column` word in an instance.
    let columnWordOffset: Int
    /// Byte offset of the wrapper's `_value` in an instance.
    let valueOffset: Int
    /// The type stored in the field; its `PersistableType` methods read and write the value.
    let valueType: any PersistableType.Type
    /// For links, collections and linking objects: the relationship behaviour of the type.
    let relationship: (any RelationshipValue.Type)?

    /// Encodes the field's unmanaged value in `object`.
    @inline(__always)
    func encode(in object: ObjectBase, into bytes: inout _ObjDBBytes) -> Bool {
        valueType._objdbEncodeField(at: object._objdbBase + valueOffset, into: &bytes)
    }

    /// The field's unmanaged value in `object`, boxed.
    func value(in object: ObjectBase) -> Any? {
        valueType._objdbFieldValue(at: object._objdbBase + valueOffset)
    }

    /// Converts and stores an unmanaged value in `object`; `false` if it does not fit.
    func setValue(in object: ObjectBase, to value: Any?) -> Bool {
        valueType._objdbSetField(at: object._objdbBase + valueOffset, to: value)
    }
}

/// What reflection found about one model class, computed once per class per process.
///
/// Discovery lists the class's stored fields (superclass fields first) with
/// `_forEachField(of:options:)` (``StoredFields``), keeps the `@Persisted` ones with their byte offsets, and reads
/// the wrappers' options (`primaryKey:`, `indexed:`) and declared defaults from one prototype
/// instance. No `Mirror`, and nothing per object.
final class ClassLayout: @unchecked Sendable {
    /// The Swift class.
    let type: ObjectBase.Type
    /// ``ObjectBase/className`` of the class.
    let className: String
    /// The persisted fields in declaration order.
    let fields: [FieldLayout]
    /// The class description, properties in declaration order.
    let schema: ObjectSchema
    /// The model classes the class links to (through links, collections and linking objects).
    let linkedTypes: [ObjectBase.Type]
    /// Whether every stored field of the class (beyond `ObjectBase`'s own) is `@Persisted`, so an
    /// instance can be re-pointed at another stored object without carrying state along.
    let onlyPersistedFields: Bool
    /// An instance holding the declared defaults; never modified after discovery.
    private let prototype: ObjectBase
    private let fieldIndexByName: [String: Int]

    fileprivate init(
        type: ObjectBase.Type, fields: [FieldLayout], schema: ObjectSchema, prototype: ObjectBase, onlyPersistedFields: Bool,
        linkedTypes: [ObjectBase.Type]
    ) {
        self.type = type
        self.linkedTypes = linkedTypes
        self.onlyPersistedFields = onlyPersistedFields
        self.className = schema.className
        self.fields = fields
        self.schema = schema
        self.prototype = prototype
        var byName: [String: Int] = [:]
        for field in fields { byName[field.name] = field.index }
        fieldIndexByName = byName
    }

    /// The field with that property name, or ``ObjDBError/Code/unknownProperty``.
    func field(named name: String) throws -> FieldLayout {
        guard let index = fieldIndexByName[name] else {
            throw ObjDBError(
                .unknownProperty, "Class '\(className)' has no persisted property '\(name)'",
                className: className, propertyName: name)
        }
        return fields[index]
    }

    /// The declared default of a field, boxed.
    func defaultValue(field index: Int) -> Any? {
        fields[index].value(in: prototype)
    }

    /// Encodes the declared default of a field as column bytes; `nil` for a `nil` default.
    func encodedDefault(field index: Int) -> [UInt8]? {
        var bytes = _ObjDBBytes()
        return fields[index].encode(in: prototype, into: &bytes) ? bytes.array : nil
    }
}

/// Finds and caches the ``ClassLayout`` of model classes.
enum SchemaDiscovery {
    private static let cache = LayoutCache()

    /// The layout of `type`, discovered on first use. Throws ``ObjDBError/Code/invalidSchema``
    /// for a class that cannot be stored (for example with two primary keys).
    static func layout(of type: ObjectBase.Type) throws -> ClassLayout {
        if let layout = cache.get(type) { return layout }
        let layout = try discover(type)
        return cache.put(type, layout)
    }

    private static func discover(_ type: ObjectBase.Type) throws -> ClassLayout {
        let className = type.className
        guard type != ObjectBase.self && type != Object.self else {
            throw ObjDBError(.invalidSchema, "\(className) itself cannot be stored; declare a subclass", className: className)
        }
        var found: [(name: String, offset: Int, kind: any PersistedField.Type)] = []
        var otherFields = 0
        for field in StoredFields.of(type) {
            if let kind = field.type as? any PersistedField.Type {
                var property = field.name
                if property.hasPrefix("_") { property.removeFirst() }
                found.append((property, field.offset, kind))
            } else {
                otherFields += 1
            }
        }
        let baseFields = Self.objectBaseFieldCount
        let prototype = type.init()
        var fields: [FieldLayout] = []
        var properties: [Property] = []
        var linkedTypes: [ObjectBase.Type] = []
        for (index, entry) in found.enumerated() {
            let valueType = entry.kind.valueType
            let relationship = valueType as? any RelationshipValue.Type
            let options = entry.kind.options(at: prototype._objdbBase + entry.offset)
            let valueOffset = entry.offset + entry.kind.valueOffset
            fields.append(FieldLayout(
                name: entry.name, index: index, offset: entry.offset,
                columnWordOffset: entry.offset + entry.kind.columnOffset,
                valueOffset: valueOffset, valueType: valueType, relationship: relationship))
            let property = describe(
                entry.name, valueType, relationship, options: options, value: prototype._objdbBase + valueOffset)
            if let target = (relationship?.elementType ?? valueType)._objdbObjectType { linkedTypes.append(target) }
            properties.append(property)
        }
        let uniqueKeys = type.uniqueKeys
        let keyed = Set(uniqueKeys.joined())
        // The properties of compound unique keys are indexed: the check looks candidates up.
        properties = properties.map { keyed.contains($0.name) && !$0.isIndexed && !$0.isPrimaryKey && $0.collection == nil ? $0.indexed() : $0 }
        let schema = ObjectSchema(
            className: className, properties: properties, isEmbedded: type is EmbeddedObject.Type, uniqueKeys: uniqueKeys)
        try SchemaValidation.validate(schema)
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled { checkAgainstMirror(prototype, fields) }
        #endif
        return ClassLayout(
            type: type, fields: fields, schema: schema, prototype: prototype,
            onlyPersistedFields: otherFields == baseFields, linkedTypes: linkedTypes)
    }

    /// The description of one field.
    private static func describe(
        _ name: String, _ valueType: any PersistableType.Type, _ relationship: (any RelationshipValue.Type)?,
        options: UInt8, value: UnsafeRawPointer
    ) -> Property {
        let element = relationship?.elementType ?? valueType
        let deleteRule: DeleteRule = options & PersistedOptions.cascade != 0 ? .cascade : .nullify
        if let relationship, relationship.isLinkingObjects {
            return Property(
                name: name, type: .linkingObjects, objectClassName: element._objdbObjectType?.className,
                linkOriginPropertyName: relationship.originProperty(at: value))
        }
        return Property(
            name: name, type: element._objdbPropertyType, isOptional: element._objdbIsOptional,
            isPrimaryKey: options & PersistedOptions.primaryKey != 0,
            isIndexed: options & PersistedOptions.indexed != 0,
            bitWidth: element._objdbPropertyType == .int ? element._objdbBitWidth : 0,
            objectClassName: element._objdbObjectType?.className,
            collection: relationship?.collectionKind, deleteRule: deleteRule,
            isAutoIncrement: options & PersistedOptions.autoIncrement != 0,
            timestamp: options & PersistedOptions.createdAt != 0
                ? .createdAt : options & PersistedOptions.modifiedAt != 0 ? .modifiedAt : nil,
            isUnique: options & PersistedOptions.unique != 0,
            isFullTextIndexed: options & PersistedOptions.fullText != 0)
    }

    /// The layouts of `types` and of every class they link to, directly or not, each once.
    static func layoutsLinked(from types: [ObjectBase.Type]) throws -> [ClassLayout] {
        var result: [ClassLayout] = []
        var seen = Set<ObjectIdentifier>()
        var pending = types
        while let type = pending.popLast() {
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            let layout = try layout(of: type)
            result.append(layout)
            pending.append(contentsOf: layout.linkedTypes)
        }
        return result
    }

    /// Number of stored fields `ObjectBase` itself declares.
    private static let objectBaseFieldCount = StoredFields.of(ObjectBase.self).count
}

/// The process-wide cache of class layouts.
private final class LayoutCache: @unchecked Sendable {
    private let lock = NSLock()
    private var layouts: [ObjectIdentifier: ClassLayout] = [:]

    func get(_ type: ObjectBase.Type) -> ClassLayout? {
        lock.withLock { layouts[ObjectIdentifier(type)] }
    }

    /// Stores `layout` unless another thread stored one first; returns the one kept.
    func put(_ type: ObjectBase.Type, _ layout: ClassLayout) -> ClassLayout {
        lock.withLock {
            if let existing = layouts[ObjectIdentifier(type)] { return existing }
            layouts[ObjectIdentifier(type)] = layout
            return layout
        }
    }
}

#if OBJDB_INTERNAL_CHECKS
extension SchemaDiscovery {
    /// Internal check of the field offsets `_forEachField` gave (``StoredFields``) against
    /// `Mirror`, the slow way to the same fields: the `@Persisted` fields in the same order, and
    /// each value read through its offset equal to the wrapper's value `Mirror` finds (for plain
    /// values; a collection's or link's description would name object identities).
    static func checkAgainstMirror(_ prototype: ObjectBase, _ fields: [FieldLayout]) {
        var chain: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: prototype)
        while let current = mirror {
            chain.append(current)
            mirror = current.superclassMirror
        }
        var mirrored: [(name: String, value: Any?)] = []
        for level in chain.reversed() {
            for child in level.children where type(of: child.value) is any PersistedField.Type {
                var name = child.label ?? ""
                if name.hasPrefix("_") { name.removeFirst() }
                let value = Mirror(reflecting: child.value).children.first { $0.label == "_value" }?.value
                mirrored.append((name, value))
            }
        }
        internalCheck(
            mirrored.map(\.name) == fields.map(\.name),
            "the @Persisted fields of \(type(of: prototype)) found by offset (\(fields.map(\.name))) are not Mirror's (\(mirrored.map(\.name)))")
        for (field, mirror) in zip(fields, mirrored) where field.relationship == nil {
            internalCheck(
                String(describing: field.value(in: prototype))
                    == String(describing: (mirror.value as? any PersistableType).flatMap { $0._objdbAnyValue }),
                "the default of \(type(of: prototype)).\(field.name) read at its offset is not the value Mirror finds")
        }
    }
}
#endif
