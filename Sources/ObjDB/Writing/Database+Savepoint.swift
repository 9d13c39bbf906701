/// One row-level change made inside a savepoint, with what it takes to undo it.
enum UndoStep {
    /// A row was inserted: undo by deleting it.
    case inserted(ClassInfo, key: UInt64)
    /// A row was replaced: undo by writing the old bytes back.
    case replaced(ClassInfo, key: UInt64, row: [UInt8])
    /// A row was deleted: undo by inserting the old bytes again under the same key.
    case deleted(ClassInfo, key: UInt64, row: [UInt8])
    /// An unmanaged object became managed: undo by making it unmanaged again.
    case attached(ObjectBase)
}

extension Database {
    /// Runs `body` so that it either completes or leaves the transaction as it found it.
    ///
    /// Compound operations — adding a sequence, or an object together with the unmanaged
    /// objects it links to — write several rows; if a later one fails (a duplicate primary key),
    /// the rows already written are restored and the objects already attached become unmanaged
    /// again. Savepoints nest: an inner one undoes only its own steps.
    ///
    /// If undoing itself fails (LMDB refused a write), the transaction is doomed and
    /// ``commitWrite()`` rolls it back entirely.
    func withSavepoint<R>(_ context: WriteContext, _ body: () throws -> R) throws -> R {
        let start = context.undo.count
        context.savepointDepth += 1
        defer {
            context.savepointDepth -= 1
            if context.savepointDepth == 0 {
                // Nothing can be undone any more: the objects attached for good let go of their
                // unmanaged links and collections.
                for case .attached(let object) in context.undo { releaseUnmanagedRelationships(of: object) }
                context.undo.removeAll(keepingCapacity: true)
            }
        }
        do {
            return try body()
        } catch {
            undo(context, back: start)
            throw error
        }
    }

    /// Records a step if a savepoint is active.
    @inline(__always)
    func recordUndo(_ context: WriteContext, _ step: @autoclosure () -> UndoStep) {
        if context.savepointDepth > 0 { context.undo.append(step()) }
    }

    /// Undoes the steps recorded after position `start`, newest first.
    private func undo(_ context: WriteContext, back start: Int) {
        let steps = context.undo[start...].reversed()
        context.undo.removeSubrange(start...)
        // Undoing must not record new steps.
        let depth = context.savepointDepth
        context.savepointDepth = 0
        defer { context.savepointDepth = depth }
        for step in steps {
            switch step {
            case .attached(let object):
                detach(object)
            case .inserted(let info, let key):
                _ = dooming(context) { try deleteRow(info, key: key, context) }
            case .replaced(let info, let key, let bytes):
                _ = dooming(context) {
                    guard let current = fetchRow(info, key: key) else { return }
                    try bytes.withUnsafeBytes { raw in
                        let old = RowView(raw) ?? .damaged
                        _ = try replaceRow(info, key: key, old: current, encoded: old, changed: Array(0..<info.columnCount), context)
                    }
                }
            case .deleted(let info, let key, let bytes):
                _ = dooming(context) {
                    try bytes.withUnsafeBytes { raw in try reinsertRow(info, key: key, encoded: RowView(raw) ?? .damaged, context) }
                }
            }
        }
    }
}
