/// The LMDB tables of one class.
struct ClassTables {
    /// Object key → row.
    let objects: Table
    /// Encoded primary key → object key, if the class has a primary key.
    let primaryKeys: Table?
    /// Per column: encoded value → object keys, for indexed columns.
    let indexes: [Table?]
    /// Per column: target object key → origin object keys, for link columns.
    let backlinks: [Table?]
    /// Per column: word → postings, for full-text indexed columns.
    let fullText: [Table?]
    /// Per column: link target → origin object keys, for mixed columns that track links.
    let mixedLinks: [Table?]
}

extension ClassTables {
    /// Opens the committed tables of a stored class.
    static func open(_ stored: StoredClass, env: Environment) throws -> ClassTables {
        func require(_ name: String, _ flags: TableFlags) throws -> Table {
            guard let table = try env.existingTable(named: name, flags: flags) else {
                throw ObjDBError(
                    .corruptFile, "The table '\(name)' of class '\(stored.name)' is missing",
                    className: stored.name, path: env.path)
            }
            return table
        }
        let objects = try require(TableName.objects(stored.id), .objects)
        let primaryKeys = try stored.properties.contains(where: \.primaryKey)
            ? require(TableName.primaryKeys(stored.id), .multimap) : nil
        let indexes = try stored.properties.map { property in
            property.indexed && !property.primaryKey
                ? try require(TableName.index(stored.id, property: property.id), .multimap) : nil
        }
        let backlinks = try stored.properties.map { property in
            property.type == .object ? try require(TableName.backlinks(stored.id, property: property.id), .backlinks) : nil
        }
        let fullText = try stored.properties.map { property in
            property.fullText != nil ? try require(TableName.fullText(stored.id, property: property.id), .postings) : nil
        }
        let mixedLinks = try stored.properties.map { property in
            property.type == .mixed && !property.lacksMixedLinks
                ? try require(TableName.mixedLinks(stored.id, property: property.id), .multimap) : nil
        }
        return ClassTables(
            objects: objects, primaryKeys: primaryKeys, indexes: indexes, backlinks: backlinks, fullText: fullText, mixedLinks: mixedLinks)
    }

    /// Opens (creating as needed) the tables of a stored class inside a write transaction.
    static func create(_ stored: StoredClass, txn write: Txn) throws -> ClassTables {
        let objects = try write.openTable(named: TableName.objects(stored.id), flags: .objects)
        let primaryKeys = try stored.properties.contains(where: \.primaryKey)
            ? write.openTable(named: TableName.primaryKeys(stored.id), flags: .multimap) : nil
        let indexes = try stored.properties.map { property in
            property.indexed && !property.primaryKey
                ? try write.openTable(named: TableName.index(stored.id, property: property.id), flags: .multimap) : nil
        }
        let backlinks = try stored.properties.map { property in
            property.type == .object
                ? try write.openTable(named: TableName.backlinks(stored.id, property: property.id), flags: .backlinks) : nil
        }
        let fullText = try stored.properties.map { property in
            property.fullText != nil
                ? try write.openTable(named: TableName.fullText(stored.id, property: property.id), flags: .postings) : nil
        }
        let mixedLinks = try stored.properties.map { property in
            property.type == .mixed && !property.lacksMixedLinks
                ? try write.openTable(named: TableName.mixedLinks(stored.id, property: property.id), flags: .multimap) : nil
        }
        return ClassTables(
            objects: objects, primaryKeys: primaryKeys, indexes: indexes, backlinks: backlinks, fullText: fullText, mixedLinks: mixedLinks)
    }
}
