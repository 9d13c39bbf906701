#if OBJDB_INTERNAL_CHECKS
extension QueryExecutor {
    /// Internal check of a plan's answer against the slow twin of every fast path at once: every
    /// row of the table read with plain cursor steps (or every element of the collection),
    /// filtered, sorted, made distinct and cut to the limit by the reference interpreter
    /// (``ReferenceInterpreter``), which shares no code with the plan's tests, sorts and
    /// distinct. Index access, row kernels, the general test, leaf pages read in place, scans
    /// split among threads, branch-free gathering, the first matches of a scan that stops early
    /// and the best of a sorted prefix all must give exactly what it gives.
    func checkAgainstReference(_ plan: ExecutionPlan, _ keys: [UInt64]) {
        guard let expected = referenceKeys(plan) else { return }
        guard keys != expected else { return }
        let firstDifference = zip(keys, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? Swift.min(keys.count, expected.count)
        internalCheck(
            false,
            "the plan \"\(plan.description(of: info.name))\" found \(keys.count) objects, the reference interpreter \(expected.count); they differ first at position \(firstDifference)")
    }

    /// What the reference interpreter answers; `nil` when the table cannot be read or the
    /// distinct key paths bound (the plan's own run reported that).
    private func referenceKeys(_ plan: ExecutionPlan) -> [UInt64]? {
        var candidates: [UInt64] = []
        if plan.readsElements {
            candidates = elements?() ?? []
        } else {
            // Plain cursor steps: no leaf page read in place. A read that fails here failed for
            // the plan too, which reported it; the check is then skipped rather than made with
            // the rows read before the failure.
            do {
                let cursor = try Cursor(txn, info.objectsTable, readsLeafPages: false)
                var entry = try cursor.first()
                while let current = entry {
                    candidates.append(current.objectKey)
                    entry = try cursor.next()
                }
            } catch {
                return nil
            }
        }
        var distinct: [BoundPath] = []
        if !plan.distinct.isEmpty {
            // try?: binding failed for the plan too, which reported it; the check is then skipped.
            guard let paths = try? distinctPaths(plan.distinct) else { return nil }
            distinct = paths
        }
        let reference = ReferenceInterpreter(txn: txn, failure: evaluator.failure)
        return reference.answer(candidates, info, filter: plan.filter, sort: plan.sort, distinct: distinct, limit: plan.limit)
    }
}
#endif
