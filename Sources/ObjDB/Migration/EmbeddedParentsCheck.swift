/// After a migration block: every object of a class that became embedded must have exactly one
/// parent (one link, list element or map value pointing to it), as every embedded object must.
///
/// Realm deletes such objects without a parent and copies those with several; ObjDB deletes
/// nothing by itself: the migration fails, naming the class and the objects, and the block
/// resolves them (deletes the orphans with `migration.delete`, or keeps the class a top-level
/// one). See `Docs/Migrations.md`.
enum EmbeddedParentsCheck {
    /// The most object keys one message lists.
    static let listedKeys = 5

    /// Throws `migrationFailed` for the first class in `classes` (names of classes that are
    /// embedded after the migration and were not, or did not exist, before it) with an object
    /// that has no parent or several.
    ///
    /// - Complexity: O(r) for the r rows of the classes that link to them, and O(n) for their n
    ///   objects; memory for one count per object linked to.
    static func run(_ classes: [String], _ catalog: Catalog, _ txn: Txn) throws {
        for name in classes {
            guard let info = catalog.byName[name] else { continue }
            // Without objects, and without links to the class (every backlink table into it
            // empty), there is nothing to check, nor rows of other classes to read.
            if try txn.entryCount(info.objectsTable) == 0, try !isLinkedTo(name, catalog, txn) { continue }
            var parents = try parentCounts(of: name, catalog, txn)
            var orphans: [UInt64] = [], shared: [(key: UInt64, parents: Int)] = []
            var orphanCount = 0, sharedCount = 0
            try forEachRow(info.objectsTable, txn) { key, _ in
                switch parents.removeValue(forKey: key) ?? 0 {
                case 1: return
                case 0:
                    orphanCount += 1
                    if orphans.count < listedKeys { orphans.append(key) }
                case let count:
                    sharedCount += 1
                    if shared.count < listedKeys { shared.append((key, count)) }
                }
            }
            // What is left names objects that do not exist: deleted in the block while another
            // object still linked to them (removing an embedded object from its parent deletes it).
            if let missing = parents.keys.min() {
                throw ObjDBError(
                    .migrationFailed,
                    "'\(name)' is embedded in the new schema, but \(parents.count) of its objects that other objects link to \(parents.count == 1 ? "was" : "were") deleted in the migration block (key \(missing)\(parents.count > 1 ? ", …" : "")): an object of a class that becomes embedded is deleted when it leaves a parent, so an object shared by several parents cannot be resolved in the block. Unshare it before the migration, or keep '\(name)' a top-level class",
                    className: name)
            }
            guard orphanCount > 0 || sharedCount > 0 else { continue }
            var parts: [String] = []
            if orphanCount > 0 {
                parts.append("\(orphanCount) of its objects \(orphanCount == 1 ? "has" : "have") no parent (\(orphanCount == 1 ? "key" : "keys") \(listed(orphans.map { "\($0)" }, of: orphanCount)))")
            }
            if sharedCount > 0 {
                parts.append("\(sharedCount) \(sharedCount == 1 ? "has" : "have") several (\(listed(shared.map { "key \($0.key): \($0.parents) parents" }, of: sharedCount)))")
            }
            throw ObjDBError(
                .migrationFailed,
                "'\(name)' is embedded in the new schema, but \(parts.joined(separator: " and ")); an embedded object must have exactly one parent. In the migration block, delete the objects without a parent (migration.delete); unshare shared objects before the migration, or keep '\(name)' a top-level class",
                className: name)
        }
    }

    /// Whether a backlink table of a link, list or map into the class `name` has an entry.
    private static func isLinkedTo(_ name: String, _ catalog: Catalog, _ txn: Txn) throws -> Bool {
        for origin in catalog.byName.values where !origin.isDiscarded {
            for (column, property) in origin.stored.properties.enumerated() where property.objectClass == name {
                guard let backlinks = origin.tables.backlinks[column] else { return true }  // no table: read the rows
                if try txn.entryCount(backlinks) > 0 { return true }
            }
        }
        return false
    }

    /// How many links, list elements and map values of every class point to each object of `name`.
    private static func parentCounts(of name: String, _ catalog: Catalog, _ txn: Txn) throws -> [UInt64: Int] {
        var counts: [UInt64: Int] = [:]
        for origin in catalog.byName.values where !origin.isDiscarded {
            let columns = origin.stored.properties.indices.filter { origin.stored.properties[$0].objectClass == name }
            guard !columns.isEmpty else { continue }
            try forEachRow(origin.objectsTable, txn) { _, row in
                for column in columns {
                    for target in Database.linkedKeys(row.column(column), kind: origin.columnKinds[column]) {
                        counts[target, default: 0] += 1
                    }
                }
            }
        }
        return counts
    }

    /// Every row of `table`, in key order; a storage failure throws.
    private static func forEachRow(_ table: Table, _ txn: Txn, _ body: (UInt64, RowView) -> Void) throws {
        let cursor = try Cursor(txn, table, tracksFailures: true)
        cursor.forEachRow(from: try cursor.first()) { key, row in
            body(key, row)
            return true
        }
        if let failure = cursor.failure?.error { throw failure }
    }

    /// `items`, then "…" when they are fewer than `total`.
    private static func listed(_ items: [String], of total: Int) -> String {
        items.joined(separator: ", ") + (total > items.count ? ", …" : "")
    }
}
