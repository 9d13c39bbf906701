/// The classes of a migration whose rows are not rewritten for the new schema yet.
///
/// Rows are rewritten at the first call of the migration block that reads or writes new
/// objects (or after the block), all classes at once, so that no new object ever reads a row of
/// the old layout. Until then a rename costs nothing: the rewrite takes the renamed column's
/// values from the old column.
final class PendingRewrites {
    private var pending: [MigrationRun.Rewrite]
    private let old: Database
    private let new: Database
    private let context: WriteContext
    private let progress: (@Sendable (MigrationProgress) -> Void)?

    init(
        _ rewrites: [MigrationRun.Rewrite], old: Database, new: Database, context: WriteContext,
        progress: (@Sendable (MigrationProgress) -> Void)?
    ) {
        pending = rewrites
        self.old = old
        self.new = new
        self.context = context
        self.progress = progress
    }

    /// The class whose rows are being rewritten as its enumeration reaches them, if any.
    private var fused: FusedRewrite?

    /// Rewrites every pending class, and finishes a fused rewrite.
    func performAll() throws {
        try completeFused()
        while !pending.isEmpty {
            let change = pending.removeFirst()
            guard let info = new.classInfo(named: change.new.name), let oldInfo = old.classInfo(named: change.old.name) else { continue }
            try MigrationRun.rewrite(info, from: oldInfo, change, old: old, new: new, context, progress: progress)
        }
    }

    /// Makes the pending rewrite of `className` take property `to` from the old property
    /// `from`; `false` if the class is not pending (the caller copies the values instead).
    func rename(_ className: String, from: String, to: String) throws -> Bool {
        try completeFused()
        guard let index = pending.firstIndex(where: { $0.new.name == className }) else { return false }
        let change = pending[index]
        guard let source = change.old.properties.firstIndex(where: { $0.name == from }) else {
            throw ObjDBError(.unknownProperty, "renameProperty: the old schema of '\(className)' has no property '\(from)'", className: className, propertyName: from)
        }
        guard let target = change.new.properties.firstIndex(where: { $0.name == to }) else {
            throw ObjDBError(.unknownProperty, "renameProperty: the new schema of '\(className)' has no property '\(to)'", className: className, propertyName: to)
        }
        try MigrationRun.checkRename(className, from: change.old.properties[source], to: change.new.properties[target])
        var sources = change.sources
        sources[target] = source
        pending[index] = MigrationRun.Rewrite(old: change.old, new: change.new, sources: sources, rewritesRows: true)
        return true
    }

    /// Starts rewriting the rows of `className` as its enumeration reaches them
    /// (``FusedRewrite``), after every other pending class; `nil` if the class is not pending
    /// or cannot be fused (the caller rewrites every class first, with ``performAll()``).
    func beginFused(_ className: String) throws -> FusedRewrite? {
        #if OBJDB_INTERNAL_CHECKS
        guard new.configuration.fusesMigrationRewritesForTesting else { return nil }
        #endif
        guard fused == nil, let index = pending.firstIndex(where: { $0.new.name == className }),
            let info = new.classInfo(named: className), let oldInfo = old.classInfo(named: pending[index].old.name),
            FusedRewrite.canFuse(pending[index], info)
        else { return nil }
        let change = pending.remove(at: index)
        try performAll()
        let started = try FusedRewrite(
            change, info: info, oldInfo: oldInfo, old: old, new: new, context: context, progress: progress,
            complete: { [unowned self] in self.completeFusedForGuard() })
        fused = started
        return started
    }

    /// Appends the rows a fused rewrite has not reached yet (see ``FusedRewrite/complete()``).
    func completeFused() throws {
        guard let fused else { return }
        self.fused = nil
        try fused.complete()
    }

    /// ``completeFused()`` for the table guard, which cannot throw: a failure is the write
    /// transaction's, which the migration throws when the block returns.
    private func completeFusedForGuard() {
        do {
            try completeFused()
        } catch {
            context.transaction.doom(Database.objdbError(error, path: new.path))
        }
    }
}
