/// Removes from the file, at the end of a migration block, the classes that
/// ``Migration/deleteData(forType:)`` emptied and that no model class declares: their schema
/// entry, the contents of their tables and their key counters.
///
/// The tables themselves stay in LMDB's list of tables, empty (an empty table holds no page):
/// LMDB closes the handle of a dropped table at once, even if the transaction then aborts, and
/// other instances of the file in the process may hold it (removed indexes and properties keep
/// their tables, emptied, for the same reason). Class ids are never reused, so such a table never belongs
/// to a class again; ``FileVerifier`` accepts it while it is empty.
enum ClassRemoval {
    /// The classes of `emptied` that leave the schema: declared by no model class (`models`),
    /// holding no object, and linked to by no class that stays (by a link, or a linking-objects
    /// property whose origin it is).
    static func removable(_ emptied: [String], models: Set<String>, in new: Database) -> [ClassInfo] {
        var leaving = emptied.compactMap { name -> ClassInfo? in
            guard !models.contains(name), let info = new.classInfo(named: name), new.rows.count(info) == 0 else { return nil }
            return info
        }
        // A class that stays may link to a leaving one, and keep it; that one may keep another.
        var changed = true
        while changed {
            changed = false
            let names = Set(leaving.map(\.name))
            let staying = new.catalog.stored.classes.filter { !names.contains($0.name) }
            leaving.removeAll { info in
                let linked = staying.contains { stored in
                    (stored.properties + (stored.computed ?? [])).contains { $0.objectClass == info.name }
                }
                if linked { changed = true }
                return linked
            }
        }
        return leaving
    }

    /// Removes `classes` from the schema of `new` (written at commit) and empties their tables
    /// and key counters in the migration's transaction. Objects must be gone already (and their
    /// pending index entries and collections written).
    static func remove(_ classes: [ClassInfo], from new: Database, _ context: WriteContext) throws {
        guard !classes.isEmpty else { return }
        let ids = Set(classes.map(\.classID))
        try context.storage { txn in
            for info in classes {
                let tables = info.tables
                for table in [tables.objects] + [tables.primaryKeys].compactMap({ $0 }) + tables.indexes.compactMap({ $0 })
                    + tables.backlinks.compactMap({ $0 }) + tables.fullText.compactMap({ $0 }) + tables.mixedLinks.compactMap({ $0 })
                {
                    try txn.empty(table)
                }
                try FileMeta.delete(txn, new.metaTable, FileMeta.Key.nextKey(info.classID))
                try FileMeta.delete(txn, new.metaTable, FileMeta.Key.autoIncrement(info.classID))
                // What the transaction did to the class is not logged, nor its counter written.
                context.changes.forget(info.classID)
                context.pending.primaryKeysToRebuild.remove(info.classID)
            }
        }
        var catalog = new.catalog
        catalog.stored.classes.removeAll { ids.contains($0.id) }
        for info in classes {
            catalog.byName[info.name] = nil
            for (type, bound) in catalog.byType where bound === info { catalog.byType[type] = nil }
            info.isDiscarded = true
        }
        new.catalog = catalog
        context.changes.schemaChanged = true
    }
}
