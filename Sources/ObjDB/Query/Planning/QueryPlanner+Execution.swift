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
        var plan = ExecutionPlan(
            access: .table, test: .none, gathering: .all, mayRunInParallel: false,
            sort: sort.map { (path: $0.0, ascending: $0.1) }, distinct: query.distinct, limit: limit, className: info.name,
            filter: predicate)
        if case .table = query.source {} else { plan.readsElements = true }
        if limit == 0 && unordered { return plan.readingNothing }
        if let limit, unordered {
            plan.gathering = .first(limit)
        } else if !sort.isEmpty {
            // The heap needs a limit that distinct does not change afterwards.
            let heapLimit = query.distinct.isEmpty ? limit : nil
            plan.gathering = heapLimit != nil && WordColumn(sort) != nil ? .best(heapLimit ?? 0) : .sortValues
        }
        switch query.source {
        case .collection, .linkingObjects:
            plan.access = .elements
            plan.test = predicate.map { .general($0) } ?? .none
            return plan
        case .table:
            break
        }
        guard let predicate else {
            plan.test = .row(RowFilter())
            plan.mayRunInParallel = mayRunInParallel(plan)
            return plan
        }
        let access = self.plan(predicate, info, txn: txn)
        switch access.access {
        case .none:
            return plan.readingNothing
        case .scan:
            if let filter = RowFilter(predicate) {
                plan.test = .row(filter)
                plan.mayRunInParallel = mayRunInParallel(plan)
            } else {
                plan.test = .general(predicate)
            }
        case .lookup, .range, .prefix:
            plan.access = .index(access)
            plan.test = .general(predicate)
        }
        return plan
    }

    /// Whether a table scan with a row test may be split among threads: every match is needed,
    /// and what is kept of one is a key, a sort word, or a place in a heap.
    private static func mayRunInParallel(_ plan: ExecutionPlan) -> Bool {
        switch plan.gathering {
        case .all, .best: return true
        case .first: return false
        case .sortValues: return WordColumn(plan.sort.map { ($0.path, $0.ascending) }) != nil
        }
    }
}
