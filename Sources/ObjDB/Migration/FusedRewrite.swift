/// The rewrite of one class's rows done together with the migration block's enumeration of them.
///
/// A block that sets a property of each object (`new?["fullName"] = …`) changes the size of
/// every row. Rewritten first and changed after, each row would be written twice, and the
/// second write, in the middle of a full page, makes LMDB move the rest of the page's rows
/// (about 3,000 instructions a row, most of the block's cost). Fused, each row is appended in
/// its new layout just before the block sees its object, so the block's change applies to the
/// last row of the table, where nothing has to move.
///
/// While the walk runs, the class's table holds only the objects enumerated so far. Nothing
/// else may see that: a ``TableGuard`` on the table runs ``complete()`` — which appends every
/// remaining row — before any other use of it in the write transaction (a query on the class,
/// a lookup of one of its objects, a link followed to one, `create`, `delete`, a rename, a
/// nested enumeration), and the enumeration then goes on as an ordinary one. Only a class whose
/// rows are its only tables is fused (``canFuse(_:)``): no indexes, no unique keys, no links
/// of its own, not embedded. Its primary-key table is rebuilt after the block as for every
/// migration.
///
/// The slow twin is the rewrite of every row before the block (``PendingRewrites/performAll()``);
/// `OBJDB_DISABLE_FAST_PATHS=fusedMigrations` selects it, and the tests run migrations both
/// ways and compare the files.
final class FusedRewrite {
    let info: ClassInfo
    let oldInfo: ClassInfo
    let change: MigrationRun.Rewrite
    private let old: Database
    private let new: Database
    private let context: WriteContext
    private let defaults: [[UInt8]?]
    /// The rows are built here, not in the write transaction's row builder: the guard may run
    /// ``complete()`` in the middle of an insert or update that has built its row there.
    private let builder = RowBuilder()
    private let progress: (@Sendable (MigrationProgress) -> Void)?
    private let total: Int
    /// The cursor the rows are appended through, registered with the write transaction so that
    /// the block's write to the object it was given goes through it (no search).
    let walk: WriteWalk
    /// Rows appended so far.
    private var processed = 0
    /// The key of the last row appended.
    private var lastKey: UInt64?
    /// Whether every row is written (and the class's other tables updated).
    private(set) var isComplete = false

    /// Whether the rewrite of `info`'s class can go with its enumeration: its rows are
    /// rewritten and are all it has in the file besides its primary-key table.
    static func canFuse(_ change: MigrationRun.Rewrite, _ info: ClassInfo) -> Bool {
        guard change.rewritesRows, FastPaths.enabled.contains(.fusedMigrations) else { return false }
        return !change.new.isEmbedded && info.linkColumns.isEmpty && info.mixedLinkColumns.isEmpty && info.compoundKeys.isEmpty
            && info.tables.indexes.allSatisfy { $0 == nil } && info.tables.backlinks.allSatisfy { $0 == nil }
            && info.tables.fullText.allSatisfy { $0 == nil }
            && !info.keySlots.contains { $0.isUnique && !$0.isPrimary }
    }

    /// Empties the class's table and guards it; rows come with ``append(_:_:)``.
    init(
        _ change: MigrationRun.Rewrite, info: ClassInfo, oldInfo: ClassInfo, old: Database, new: Database, context: WriteContext,
        progress: (@Sendable (MigrationProgress) -> Void)?, complete: @escaping () -> Void
    ) throws {
        self.change = change
        self.info = info
        self.oldInfo = oldInfo
        self.old = old
        self.new = new
        self.context = context
        self.progress = progress
        defaults = MigrationRun.encodedDefaults(info, change)
        do {
            total = try old.requireReadableTxn().entryCount(oldInfo.objectsTable)
            walk = try Self.begin(info, new: new, context: context, complete: complete)
        } catch {
            // The class was taken out of the pending rewrites: the migration must not commit.
            context.transaction.doom(Database.objdbError(error, path: new.path))
            throw error
        }
    }

    /// Loads the class's key counter, empties its table, opens the walk and guards the table.
    private static func begin(_ info: ClassInfo, new: Database, context: WriteContext, complete: @escaping () -> Void) throws -> WriteWalk {
        try context.storage { txn in
            // The class's key counter is loaded before the table is emptied (it looks at the
            // table's last key); the block's writes then find it loaded.
            _ = try new.classChanges(info, context, txn)
            try txn.empty(info.objectsTable)
            let walk = context.transaction.walk(info.objectsTable, with: try Cursor(txn, info.objectsTable))
            txn.environment.writerTableGuard = TableGuard(info.objectsTable, hook: complete)
            return walk
        }
    }

    /// Appends the new row of `key` from its old row and returns the new object on it.
    func append(_ key: UInt64, _ oldRow: RowView) throws -> DynamicObject {
        new.materialize(DynamicObject.self, info, key: key, row: try appendRow(key, oldRow))
    }

    /// Appends every row not appended yet, lifts the guard and updates the class's other tables:
    /// the table is then what ``MigrationRun/rewrite(_:from:_:old:new:_:progress:)`` leaves.
    func complete() throws {
        guard !isComplete else { return }
        isComplete = true
        defer { walk.close() }
        do {
            try context.storage { txn in
                if let tableGuard = txn.environment.writerTableGuard, tableGuard.dbi == info.objectsTable.dbi {
                    txn.environment.writerTableGuard = nil
                }
                let oldTxn = try old.requireReadableTxn()
                let cursor = try Cursor(oldTxn, oldInfo.objectsTable)
                var entry = try lastKey.map { try cursor.seek(atLeast: $0) } ?? cursor.first()
                if let current = entry, current.objectKey == lastKey { entry = try cursor.next() }
                while let current = entry {
                    _ = try appendRow(current.objectKey, old.rows.checked(oldInfo, key: current.objectKey, current.value))
                    entry = try cursor.next()
                }
                try MigrationRun.updateTables(info, change, context, txn)
            }
        } catch {
            throw failing(error)
        }
        new.generation &+= 1
    }

    /// Appends the new row of `key`; a failure fails the migration, even if the block catches
    /// it, as the table holds only part of the class.
    private func appendRow(_ key: UInt64, _ oldRow: RowView) throws -> RowView {
        do {
            let row = try walk.withCursor(path: new.path) { cursor in
                try MigrationRun.appendRewritten(key, oldRow, info, change, defaults, building: builder, through: cursor, path: new.path)
            }
            // Rows moved: objects from before read theirs again.
            new.generation &+= 1
            lastKey = key
            processed += 1
            if processed % 1_000 == 0 || processed == total {
                progress?(MigrationProgress(className: info.name, phase: .rewriting, processed: processed, total: total))
            }
            return row
        } catch {
            throw failing(error)
        }
    }

    /// `error`, recorded as the write transaction's failure (the first one recorded stays).
    private func failing(_ error: any Error) -> any Error {
        context.transaction.doom(Database.objdbError(error, path: new.path))
        return error
    }
}
