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
        let start = context.undo.steps.count
        context.undo.depth += 1
        defer {
            context.undo.depth -= 1
            if context.undo.depth == 0 {
                // Nothing can be undone any more: the objects attached for good let go of their
                // unmanaged links and collections.
                for case .attached(let object) in context.undo.steps { releaseUnmanagedRelationships(of: object) }
                context.undo.steps.removeAll(keepingCapacity: true)
            }
        }
        do {
            return try body()
        } catch {
            undo(context, back: start)
            throw error
        }
    }

    /// Undoes the steps recorded after position `start`, newest first.
    private func undo(_ context: WriteContext, back start: Int) {
        let steps = context.undo.removeSteps(from: start)
        // Undoing must not record new steps.
        let depth = context.undo.depth
        context.undo.depth = 0
        defer { context.undo.depth = depth }
        for step in steps {
            switch step {
            case .attached(let object):
                detach(object)
            case .inserted(let info, let key):
                _ = dooming(context) { try deleteRow(info, key: key, context) }
            case .replaced(let info, let key, let bytes):
                _ = dooming(context) {
                    guard let current = rows.fetch(info, key: key) else { return }
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
