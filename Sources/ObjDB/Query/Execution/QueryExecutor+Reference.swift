#if OBJDB_INTERNAL_CHECKS
extension QueryExecutor {
    /// Internal check of a plan's answer against the slow twin of every fast path at once: every
    /// row of the table read with plain cursor steps (or every element of the collection),
    /// tested by the reference interpreter (``QueryEvaluator/matches(_:key:row:)``), sorted by
    /// values read again from the rows, then distinct and the limit. Index access, row kernels,
    /// leaf pages read in place, scans split among threads, branch-free gathering, the first
    /// matches of a scan that stops early and the best of a sorted prefix all must give exactly
    /// what it gives.
    func checkAgainstReference(_ plan: ExecutionPlan, _ keys: [UInt64]) {
        guard let expected = referenceKeys(plan) else { return }
        guard keys != expected else { return }
        let firstDifference = zip(keys, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? Swift.min(keys.count, expected.count)
        internalCheck(
            false,
            "the plan \"\(plan.description(of: info.name))\" found \(keys.count) objects, the reference interpreter \(expected.count); they differ first at position \(firstDifference)")
    }

    /// What the reference evaluation gives; `nil` when it cannot read the table (the plan's own
    /// run reported that).
    private func referenceKeys(_ plan: ExecutionPlan) -> [UInt64]? {
        var candidates: [UInt64] = []
        if plan.readsElements {
            candidates = elements?() ?? []
        } else {
            // Plain cursor steps: no leaf page read in place. try?: a read that fails here failed
            // for the plan too, which reported it; the check is then skipped.
            guard let cursor = try? Cursor(txn, info.objectsTable, readsLeafPages: false) else { return nil }
            var entry = try? cursor.first()
            while let current = entry {
                candidates.append(current.objectKey)
                entry = try? cursor.next()
            }
        }
        var keys = candidates.filter { key in
            guard let row = evaluator.fetch(info, key) else { return false }
            return plan.filter.map { evaluator.matches($0, key: key, row: row) } ?? true
        }
        if !plan.sort.isEmpty {
            let paths = plan.sort.map { ($0.path, $0.ascending) }
            let order = QuerySort.order(count: keys.count, sortKeyValues(keys, paths), paths.map(\.1), limit: nil)
            keys = order.map { keys[$0] }
        }
        if !plan.distinct.isEmpty { keys = distinct(keys, plan.distinct) }
        if let limit = plan.limit, keys.count > limit { keys.removeSubrange(limit...) }
        return keys
    }
}
#endif
