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
        guard !name.isEmpty else { throw fail("A class name is empty") }
        guard schema.properties.count <= RowFormat.maxColumns else {
            throw fail("Class '\(name)' has \(schema.properties.count) properties; at most \(RowFormat.maxColumns) are supported")
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
        }
        let keys = schema.properties.filter(\.isPrimaryKey)
        if keys.count > 1 {
            throw fail(
                "Class '\(name)' declares \(keys.count) primary keys (\(keys.map { "'\($0.name)'" }.joined(separator: ", "))); a class has at most one",
                property: keys[1].name)
        }
    }
}
