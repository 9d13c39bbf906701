extension Database {
    /// Deletes a stored object. The object, and every other instance of the same stored object,
    /// becomes invalidated (``Object/isInvalidated``). Deleting it again does nothing.
    ///
    /// Calling it outside a write transaction, or with an object this database does not manage,
    /// is a programmer error. A storage failure (such as a full map) makes ``commitWrite()`` throw.
    public func delete(_ object: Object) {
        let context = requireWriteForDelete()
        guard let owner = object._objdbDatabase, let info = object._objdbInfo else {
            preconditionFailure("Database.delete: the \(type(of: object)) is not managed; only stored objects can be deleted")
        }
        precondition(owner === self, "Database.delete: the \(info.name) belongs to another Database instance")
        guard context.failure == nil, !info.isDiscarded else { return }
        _ = dooming(context) { try deleteRow(info, key: object._objdbKey, context) }
    }

    /// Deletes every object of a sequence (see ``delete(_:)-(Object)``).
    public func delete<S: Sequence>(_ objects: S) where S.Element: Object {
        for object in Array(objects) { delete(object) }
    }

    /// Deletes every object of live results, without reading them into objects.
    public func delete<T: Object>(_ results: Results<T>) {
        let context = requireWriteForDelete()
        guard let info = results.classInfo else { return }
        for key in results.objectKeys() {
            guard context.failure == nil else { return }
            _ = dooming(context) { try deleteRow(info, key: key, context) }
        }
    }

    /// Deletes every object of every class. The schema stays.
    public func deleteAll() {
        let context = requireWriteForDelete()
        guard context.failure == nil else { return }
        for info in catalog.byName.values where !info.isDiscarded {
            let emptied: Void? = try? context.storage { txn in
                try classChanges(info, context, txn).cleared = true
                try txn.empty(info.tables.objects)
                if let primaryKeys = info.tables.primaryKeys { try txn.empty(primaryKeys) }
                for case let index? in info.tables.indexes { try txn.empty(index) }
            }
            guard emptied != nil else { return }
        }
        generation &+= 1
    }

    private func requireWriteForDelete() -> WriteContext {
        guard let context = writeContext else {
            preconditionFailure("Database.delete: called outside a write transaction; wrap it in db.write { }")
        }
        return context
    }
}
