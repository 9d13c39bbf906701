extension QueryPlanner {
    /// How a query runs this time: the one place that decides it (``ExecutionPlan``).
    ///
    /// - The access: nothing for an always-false filter or a limit of 0; the collection's
    ///   elements; else the index or primary-key access ``plan(_:_:txn:)`` picks, or a scan of
    ///   the table.
    /// - The test: none without a filter (or for an index that answers it exactly); for a table
    ///   scan, the row test compiled for the filter's shape when the filter reads the row alone
    ///   (``RowFilter``), else the general test.
    /// - What is kept: for unsorted results without distinct, the first `limit` matches (the
    ///   access stops there); for a sort by one number, date or bool column with a limit, the
    ///   best `limit` in a heap; for another sort, each match's sort values; else every match.
    /// - A table scan with a row test may be split among threads unless it stops early or keeps
    ///   sort values other than one word per match (which may point into a thread's snapshot).
    static func executionPlan(
        _ query: ResultsQuery, predicate: BoundPredicate?, sort: [(BoundPath, Bool)], info: ClassInfo, txn: Txn, limitOverride: Int?
    ) -> ExecutionPlan {
        let smallest = Swift.min(query.limit ?? .max, limitOverride ?? .max)
        let limit: Int? = smallest == .max ? nil : smallest
        let unordered = query.sort.isEmpty && query.distinct.isEmpty
        let readsNothing = limit == 0 && unordered
        var readsElements = true
        if case .table = query.source { readsElements = false }
        var gathering = ExecutionPlan.Gathering.all
        if let limit, unordered, !readsNothing {
            gathering = .first(limit)
        } else if !sort.isEmpty {
            // The heap needs a limit that distinct does not change afterwards.
            let heapLimit = query.distinct.isEmpty ? limit : nil
            gathering = heapLimit != nil && WordColumn(sort) != nil ? .best(heapLimit ?? 0) : .sortValues
        }
        // Each part is decided first and the plan built once at the end: it runs for every
        // evaluation, and a plan built and then changed field by field was copied on its way out.
        var access = ExecutionPlan.Access.table
        var test = ExecutionPlan.Test.none
        var mayRunInParallel = false
        if readsNothing {
            access = .nothing
        } else if readsElements {
            access = .elements
            test = predicate == nil ? .none : .general
        } else if let predicate {
            let chosen = self.plan(predicate, info, txn: txn)
            // Tested without binding payloads, so that the index case moves the plan into the
            // access: a switch on `chosen.access` borrows it, and the plan was copied.
            if case .none = chosen.access {
                access = .nothing
            } else if case .scan = chosen.access {
                if let filter = RowFilter(predicate) {
                    test = .row(filter)
                    mayRunInParallel = Self.mayRunInParallel(gathering, sort)
                } else {
                    test = .general
                }
            } else {
                // Every other access reads an index (a lookup, range or prefix).
                #if OBJDB_INTERNAL_CHECKS
                if internalChecksEnabled { internalCheck(chosen.usesIndex, "the plan \(chosen) reads no index") }
                #endif
                access = .index(chosen)
                test = .general
            }
        } else {
            test = .row(RowFilter())
            mayRunInParallel = Self.mayRunInParallel(gathering, sort)
        }
        return ExecutionPlan(
            access: access, test: test, gathering: gathering, mayRunInParallel: mayRunInParallel,
            sort: sort.map { (path: $0.0, ascending: $0.1) }, distinct: query.distinct, limit: limit,
            filter: predicate, readsElements: readsElements, hasEncryptedIndexes: info.objectsTable.seal != .none)
    }

    /// Whether a table scan with a row test may be split among threads: every match is needed,
    /// and what is kept of one is a key, a sort word, or a place in a heap.
    private static func mayRunInParallel(_ gathering: ExecutionPlan.Gathering, _ sort: [(BoundPath, Bool)]) -> Bool {
        switch gathering {
        case .all, .best: return true
        case .first: return false
        case .sortValues: return WordColumn(sort) != nil
        }
    }
}
