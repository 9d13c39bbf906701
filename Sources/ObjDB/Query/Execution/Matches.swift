/// What an evaluation keeps of its matches as its access visits them (``ExecutionPlan/Gathering``):
/// their keys, with their sort values for a sort after the access, or only the best of a sort by
/// one word column.
struct Matches {
    /// The matches' keys, in access order (unused with ``best``).
    var keys: [UInt64] = []
    /// The sort values of ``keys``, for ``ExecutionPlan/Gathering/sortValues``.
    var values: SortValues?
    /// The best matches, for ``ExecutionPlan/Gathering/best(_:)``.
    var best: TopWords?
    /// The number of matches after which the access stops, for ``ExecutionPlan/Gathering/first(_:)``.
    let stopAfter: Int?

    /// An empty set of matches for `plan` (borrowed: an initializer takes its arguments owned,
    /// which copied the whole plan for every evaluation).
    init(_ plan: borrowing ExecutionPlan) {
        switch plan.gathering {
        case .all:
            stopAfter = nil
        case .first(let n):
            stopAfter = n
        case .sortValues:
            stopAfter = nil
            values = SortValues(plan.sort.map { ($0.path, $0.ascending) })
        case .best(let n):
            stopAfter = nil
            best = TopWords(plan.sort.map { ($0.path, $0.ascending) }, limit: n)
        }
    }

    /// Keeps the match `key`, whose row is `row`; returns whether the access should go on.
    @inline(__always)
    mutating func add(_ key: UInt64, _ row: RowView, _ evaluator: QueryEvaluator) -> Bool {
        if best != nil {
            best?.offer(key, row)
            return true
        }
        keys.append(key)
        values?.add(key, row, evaluator)
        return stopAfter.map { keys.count < $0 } ?? true
    }
}
