/// Checks that a class description can be stored, whether it came from a model class or from a
/// file. Model classes catch most mistakes at compile time (`primaryKey:` and `indexed:` only
/// exist for suitable types); this also guards schemas read from files.
enum SchemaValidation {
    /// Throws ``ObjDBError/Code/invalidSchema`` naming the first problem found.
    static func validate(_ schema: ObjectSchema) throws {
        let name = schema.className
        func fail(_ message: String, property: String? = nil) -> ObjDBError {
            ObjDBError(.invalidSchema, message, className: name, propertyName: property)
        }
        let failWith: (String, String?) -> ObjDBError = { fail($0, property: $1) }
        guard !name.isEmpty else { throw fail("A class name is empty") }
        guard schema.properties.count <= RowFormat.maxColumns else {
            throw fail("Class '\(name)' has \(schema.properties.count) properties; at most \(RowFormat.maxColumns) are supported")
        }
        for key in schema.uniqueKeys {
            guard !key.isEmpty else { throw fail("Class '\(name)' declares an empty unique key") }
            for member in key {
                guard let property = schema[member], !property.isComputed else {
                    throw fail("The unique key (\(key.joined(separator: ", "))) of '\(name)' names '\(member)', which is not a stored property", property: member)
                }
                guard property.collection == nil, property.type.canBeIndexed else {
                    throw fail(
                        "The unique key (\(key.joined(separator: ", "))) of '\(name)' names '\(member)' of type \(property.typeName); unique keys take integers, Bool, String, Date, UUID and ObjectId",
                        property: member)
                }
            }
        }
        var seen = Set<String>()
        for property in schema.properties {
            guard !property.name.isEmpty else { throw fail("Class '\(name)' has a property with an empty name") }
            guard seen.insert(property.name).inserted else {
                throw fail("Class '\(name)' declares property '\(property.name)' twice", property: property.name)
            }
            if property.type == .int && ![8, 16, 32, 64].contains(property.bitWidth) {
                throw fail("'\(name).\(property.name)' has an integer width of \(property.bitWidth) bits; use 8, 16, 32 or 64", property: property.name)
            }
            if property.isPrimaryKey && !property.type.canBePrimaryKey {
                throw fail(
                    "'\(name).\(property.name)' is a primary key of type \(property.typeName); primary keys must be Int (any width), String, UUID or ObjectId, optional or not",
                    property: property.name)
            }
            if property.isIndexed && !property.type.canBeIndexed {
                throw fail(
                    "'\(name).\(property.name)' is indexed but has type \(property.typeName); only integers, Bool, String, Date, UUID and ObjectId (optional or not) can be indexed",
                    property: property.name)
            }
            if property.isFullTextIndexed {
                if property.type != .string || property.collection != nil {
                    throw fail(
                        "'\(name).\(property.name)' is full-text indexed but has type \(property.typeName); only String and String? can be",
                        property: property.name)
                }
                if property.isPrimaryKey || property.isIndexed || property.isUnique {
                    throw fail(
                        "'\(name).\(property.name)' is full-text indexed and also \(property.isPrimaryKey ? "a primary key" : property.isUnique ? "unique" : "indexed"); a full-text index cannot be combined with another index",
                        property: property.name)
                }
            }
            try validateMaintained(property, of: name, failWith)
        }
        for property in schema.properties { try validateRelationship(property, of: schema, failWith) }
        let keys = schema.properties.filter(\.isPrimaryKey)
        if schema.isEmbedded, let key = keys.first {
            throw fail(
                "Embedded class '\(name)' declares primary key '\(key.name)'; embedded objects are identified by their parent and have none",
                property: key.name)
        }
        if keys.count > 1 {
            throw fail(
                "Class '\(name)' declares \(keys.count) primary keys (\(keys.map { "'\($0.name)'" }.joined(separator: ", "))); a class has at most one",
                property: keys[1].name)
        }
    }

    /// The rules of auto-increment keys and maintained dates.
    private static func validateMaintained(_ property: Property, of className: String, _ fail: (String, String?) -> ObjDBError) throws {
        let where_ = "'\(className).\(property.name)'"
        if property.isAutoIncrement
            && !(property.isPrimaryKey && property.type == .int && property.bitWidth == 64 && !property.isOptional && property.collection == nil)
        {
            throw fail(
                "\(where_) is auto-increment but is a \(property.typeName)\(property.isPrimaryKey ? "" : " that is not the primary key"); declare it as @Persisted(primaryKey: true, autoIncrement: true) var \(property.name): Int",
                property.name)
        }
        if property.timestamp != nil && !(property.type == .date && !property.isOptional && property.collection == nil) {
            throw fail("\(where_) is a maintained date but has type \(property.typeName); declare it as Date", property.name)
        }
    }

    /// The rules of links, collections and linking objects that one class can check alone.
    private static func validateRelationship(
        _ property: Property, of schema: ObjectSchema, _ fail: (String, String?) -> ObjDBError
    ) throws {
        let where_ = "'\(schema.className).\(property.name)'"
        if property.collection != nil && (property.isIndexed || property.isPrimaryKey) {
            throw fail("\(where_) is a collection and cannot be a primary key or indexed", property.name)
        }
        switch property.type {
        case .object:
            guard let target = property.objectClassName, !target.isEmpty else {
                throw fail("\(where_) is a link without a target class", property.name)
            }
            if property.collection == nil && !property.isOptional {
                throw fail("\(where_) is a to-one link of type \(target); to-one links must be optional: declare it as \(target)?", property.name)
            }
            if (property.collection == .list || property.collection == .set) && property.isOptional {
                throw fail("\(where_) is a \(property.typeName); lists and sets of objects hold objects, not nil: declare the element as \(target)", property.name)
            }
        case .linkingObjects:
            guard property.objectClassName?.isEmpty == false, property.linkOriginPropertyName?.isEmpty == false else {
                throw fail("\(where_) is LinkingObjects without an origin class and property: declare it with @Persisted(originProperty: \"…\")", property.name)
            }
        default:
            if property.deleteRule != .nullify {
                throw fail("\(where_) has a delete rule but is not a link", property.name)
            }
        }
    }

    /// Checks the rules that involve several classes: link targets exist, sets hold no embedded
    /// objects, and linking objects name a link property that points back.
    static func validateLinks(_ schemas: [ObjectSchema]) throws {
        var byName: [String: ObjectSchema] = [:]
        for schema in schemas { byName[schema.className] = schema }
        for schema in schemas {
            for property in schema.properties {
                let where_ = "'\(schema.className).\(property.name)'"
                func fail(_ message: String) -> ObjDBError {
                    ObjDBError(.invalidSchema, message, className: schema.className, propertyName: property.name)
                }
                guard let targetName = property.objectClassName else { continue }
                guard let target = byName[targetName] else {
                    throw fail("\(where_) links to class '\(targetName)', which is not part of the schema")
                }
                if property.type == .object && target.isEmbedded && property.collection == .set {
                    throw fail("\(where_) is a set of embedded objects; embedded objects can be held by to-one links, lists and maps")
                }
                if property.type == .linkingObjects, let origin = property.linkOriginPropertyName {
                    guard let link = target[origin], link.type == .object, link.objectClassName == schema.className else {
                        throw fail("\(where_) is LinkingObjects<\(targetName)> through '\(origin)', but \(targetName).\(origin) is not a link to \(schema.className)")
                    }
                }
            }
        }
    }
}
