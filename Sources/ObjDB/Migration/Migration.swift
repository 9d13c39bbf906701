/// The code that migrates a file's objects to a new schema version: it receives the
/// ``Migration`` and the file's schema version before the migration.
public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) throws -> Void

/// What a ``MigrationBlock`` works with: the objects before the migration (read-only, old
/// schema) and after it (writable, new schema), in the migration's one write transaction.
///
/// ```swift
/// config.schemaVersion = 3
/// config.migrationBlock = { migration, oldSchemaVersion in
///     if oldSchemaVersion < 2 {
///         migration.renameProperty(onType: "Person", from: "fullName", to: "name")
///     }
///     if oldSchemaVersion < 3 {
///         try migration.enumerateObjects(ofType: "Person") { old, new in
///             new?["age"] = (old?["yearsOld"] as? Int) ?? 0
///         }
///     }
/// }
/// ```
///
/// When the block runs, every class already has the new schema: added properties hold their
/// declared defaults, removed ones are gone from the new objects (the old objects still have
/// them), and a property whose type changed holds the new type's default until the block
/// writes it. Primary keys are checked after the block: the migration fails if two objects of
/// a class share one. Anything that throws — the block, a check, the commit — leaves the file
/// exactly as it was.
public final class Migration {
    /// The database as it was before the migration, read-only.
    let old: Database
    /// The database being migrated, in its write transaction.
    let new: Database
    /// The errors of calls that cannot throw (``renameProperty(onType:from:to:)``), thrown when
    /// the block returns.
    var failures: [ObjDBError] = []
    let progress: (@Sendable (MigrationProgress) -> Void)?
    /// The classes whose rows are still to be rewritten for the new schema.
    let rewrites: PendingRewrites
    /// The classes ``deleteData(forType:)`` emptied, in the order of the calls: those no model
    /// declares leave the schema when the block returns (``ClassRemoval``).
    private(set) var emptiedClasses: [String] = []

    init(old: Database, new: Database, rewrites: PendingRewrites, progress: (@Sendable (MigrationProgress) -> Void)?) {
        self.old = old
        self.new = new
        self.rewrites = rewrites
        self.progress = progress
    }

    /// The schema before the migration.
    public var oldSchema: Schema { old.schema }

    /// The schema after it: the models' classes, and the file's other classes.
    public var newSchema: Schema { new.schema }

    /// Calls `block` for every object of `className` that existed before the migration, with
    /// its old version (read-only) and its new one (writable; `nil` if the migration deleted it
    /// or the class is no longer in the schema). For a class added by this migration, `old` is
    /// `nil` and `new` goes through the objects created so far. For a class in neither schema
    /// (a chain's step for a class an older file never had), `block` is not called, as in Realm.
    ///
    /// - Throws: what `block` throws.
    public func enumerateObjects(
        ofType className: String, _ block: (_ oldObject: DynamicObject?, _ newObject: DynamicObject?) throws -> Void
    ) throws {
        let oldInfo = old.classInfo(named: className)
        let newInfo = new.classInfo(named: className)
        // No objects to give: nothing to call, and nothing to rewrite for it.
        guard oldInfo != nil || newInfo != nil else { return }
        // The class's own rows are rewritten as the walk reaches them when they can be, the
        // other classes' first.
        let fused = try rewrites.beginFused(className)
        if fused == nil { try rewrites.performAll() }
        guard let oldInfo else {
            // A class this migration added: its new objects alone.
            guard let newInfo else { return }
            let keys = new.dynamicObjects(newInfo.name).map(\._objdbKey)
            for key in keys { try block(nil, new.object(DynamicObject.self, newInfo, key: key)) }
            return
        }
        // The old objects come from a cursor over the old version, which never changes.
        let txn = try old.requireReadableTxn()
        let total = try txn.entryCount(oldInfo.objectsTable)
        let cursor = try Cursor(txn, oldInfo.objectsTable)
        var entry = try cursor.first()
        var processed = 0
        // The new objects through a cursor of the write transaction that follows the old one:
        // no search per object, and the block's writes to the object go through it. A fused
        // rewrite appends them through its own cursor until something else needed the class's
        // table, which completed it; the walk then goes on with a cursor of its own.
        var walk = fused == nil ? try newWalk(newInfo) : nil
        defer { walk?.close() }
        var positioned = false
        while let current = entry {
            let key = current.objectKey
            let oldRow = old.rows.checked(oldInfo, key: key, current.value)
            let oldObject = old.materialize(DynamicObject.self, oldInfo, key: key, row: oldRow)
            let newObject: DynamicObject?
            if let fused, !fused.isComplete {
                newObject = try fused.append(key, oldRow)
            } else {
                if walk == nil { walk = try newWalk(newInfo) }
                newObject = try newInfo.flatMap { try self.newVersion(of: key, $0, walk, positioned: &positioned) }
            }
            try block(oldObject, newObject)
            processed += 1
            if processed % 1_000 == 0 || processed == total {
                progress?(MigrationProgress(className: className, phase: .enumerating, processed: processed, total: total))
            }
            entry = try cursor.next()
        }
        if fused != nil { try rewrites.completeFused() }
        try new.writeContext?.transaction.failure.map { throw $0 }
    }

    /// Moves the values of property `oldName` of the old objects of `className` into property
    /// `newName` of the new ones: a property renamed in the model keeps its data. `oldName`
    /// must be in the old schema and `newName` in the new one, with the same type (a property
    /// that became optional keeps its values; one that became required turns `nil` into the
    /// default). Mistakes are thrown when the migration block returns.
    public func renameProperty(onType className: String, from oldName: String, to newName: String) {
        do {
            try MigrationRun.rename(className, from: oldName, to: newName, old: old, new: new, rewrites: rewrites)
        } catch {
            failures.append(Database.objdbError(error, path: new.path))
        }
    }

    /// Deletes every object of `className` (links to them become `nil`, as for any delete).
    /// Returns whether the file had the class.
    ///
    /// A class that no model class of ``Configuration/objectTypes`` declares (one removed from
    /// the app) then leaves the file when the block returns: its schema entry, the contents of
    /// its tables and its key counters, as Realm removes its table — unless the block created
    /// objects of it again, or a class that stays links to it (it then stays, empty). A class
    /// the models declare stays in the schema, empty. Either way the change is part of the
    /// migration's transaction: if the migration fails, the file keeps the class and its objects.
    @discardableResult
    public func deleteData(forType className: String) -> Bool {
        do {
            try rewrites.performAll()
        } catch {
            failures.append(Database.objdbError(error, path: new.path))
            return false
        }
        guard let info = new.classInfo(named: className) else { return false }
        new.deleteAllObjectsForMigration(info)
        if !emptiedClasses.contains(className) { emptiedClasses.append(className) }
        return true
    }

    /// Creates an object of `className` with `value`'s properties (the others get their
    /// declared defaults) and returns it. Links and collections take what
    /// ``ObjectBase/setValue(_:forKey:)`` takes on a ``DynamicObject``, but for a link no primary
    /// key: primary keys are only checked when the block returns, so link the object itself.
    ///
    /// - Throws: ``ObjDBError/Code/unknownClass``, ``ObjDBError/Code/unknownProperty``,
    ///   ``ObjDBError/Code/typeMismatch``. A primary key that another object has too fails
    ///   the migration when the block returns.
    @discardableResult
    public func create(_ className: String, value: [String: Any] = [:]) throws -> DynamicObject {
        try rewrites.performAll()
        return try new.createForMigration(className, value: value)
    }

    /// A cursor over the new objects of `info`, registered with the write transaction.
    private func newWalk(_ info: ClassInfo?) throws -> WriteWalk? {
        guard let info, let context = new.writeContext, let txn = context.transaction.txn else { return nil }
        return context.transaction.walk(info.objectsTable, with: try Cursor(txn, info.objectsTable))
    }

    /// The new object of `key`, found through `walk` when it can be. Keys ascend: once the walk
    /// is `positioned`, the next entry is usually the object's, and a search from the root is
    /// needed only when it is not (objects deleted or created meanwhile).
    private func newVersion(of key: UInt64, _ info: ClassInfo, _ walk: WriteWalk?, positioned: inout Bool) throws -> DynamicObject? {
        if let walk, walk.isOpen {
            var entry = positioned ? try walk.cursor?.next() : nil
            if entry?.objectKey != key { entry = try walk.cursor?.seek(atLeast: key) }
            positioned = entry != nil
            if let entry, entry.objectKey == key {
                return new.materialize(DynamicObject.self, info, key: key, row: new.rows.checked(info, key: key, entry.value))
            }
        }
        return new.object(DynamicObject.self, info, key: key)
    }

    /// Deletes a new object (one `enumerateObjects` gave as `new`, or one `create` made).
    public func delete(_ object: DynamicObject) {
        new.delete(object)
    }
}
