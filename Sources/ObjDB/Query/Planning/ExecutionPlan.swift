/// How one evaluation of a query runs: where its candidates come from, how each is tested, what
/// is kept of the matches, and what happens after. ``QueryPlanner/executionPlan(_:)`` chooses it,
/// in one place; ``QueryExecutor`` runs it; ``Results/explain()`` prints it.
///
/// ```text
/// table scan of Person, row test: two number tests (branch-free), may split among threads
/// then: keep the best 10 by score (heap), limit 10
/// ```
struct ExecutionPlan {
    /// Where the candidates come from.
    enum Access {
        /// Nothing can match: the predicate is always false, or the limit is 0.
        case nothing
        /// Every row of the class's table, in object-key order.
        case table
        /// The object keys an index or the primary-key table selects (``QueryPlan``), ascending.
        case index(QueryPlan)
        /// The objects of a list or set, or the origins of linking objects, in their order.
        case elements
    }

    /// How a candidate is tested.
    enum Test {
        /// Every candidate matches: there is no filter, or an index answers it whole (an exact
        /// index's candidates are the matches; a cut key's are tested in full).
        case none
        /// The filter reads the row alone: a loop compiled for its shape (``RowFilter``).
        case row(RowFilter)
        /// The filter follows links, collections or linking objects, or reads the object key:
        /// ``filter`` compiled into closures once per evaluation (``QueryEvaluator/compileForms(_:)``).
        /// The filter is not repeated here: each counted reference the plan holds is one more
        /// retain and release for every evaluation.
        case general
    }

    /// What is kept of the matches as the access visits them.
    enum Gathering {
        /// Every match's key, in access order.
        case all
        /// The first `n` matches' keys, in access order; the access stops there (unsorted
        /// results with a limit, `first`, `isEmpty`).
        case first(Int)
        /// Every match's key and sort values (``SortValues``), for a sort after the access.
        case sortValues
        /// The best `n` of a sort by one number, date or bool column of the class, in a bounded
        /// heap (``TopWords``): a sorted prefix neither keeps every match nor sorts them all.
        case best(Int)
    }

    /// Where the candidates come from.
    var access: Access
    /// How each candidate is tested.
    var test: Test
    /// What is kept of the matches.
    var gathering: Gathering
    /// Whether a table scan may be split among threads (``ParallelScan``), which happens when
    /// the table is large enough, the database reads a snapshot and reader slots are free.
    var mayRunInParallel: Bool
    /// The sort, bound: empty for access order.
    var sort: [(path: BoundPath, ascending: Bool)]
    /// The key paths of `distinct(by:)`, applied after sorting.
    var distinct: [String]
    /// The most matches returned, after sorting and distinct.
    var limit: Int?
    /// The whole filter, bound (`nil` without one): what ``Test/general`` compiles, and what the
    /// reference interpreter evaluates when internal checks compare the plan's answer with it.
    var filter: BoundPredicate?
    /// Whether the candidates come from a collection or linking objects (even when the plan
    /// reads nothing).
    var readsElements = false
    /// Whether the class's indexes are an encrypted file's, which answer equality only.
    var hasEncryptedIndexes = false

    /// The plan, one step per line, for a query on `className` (not kept in the plan: the
    /// executor knows the class, and a name in the plan is one more reference to count).
    func description(of className: String) -> String {
        var first: String
        var covers = false
        switch access {
        case .nothing: return "no candidates: nothing can match"
        case .table: first = "table scan of \(className)"
        case .index(let plan):
            covers = plan.covers
            first = "\(plan) of \(className)" + (covers ? " (answers the whole filter)" : "")
        case .elements: first = "the elements of a collection of \(className) objects, in their order"
        }
        // An index that answers the filter leaves the test to keys it had to cut (long strings).
        let onlyWhereCut = covers ? " only where an index key was cut" : ""
        switch test {
        case .none: first += ", no test"
        case .row(let filter): first += ", row test\(onlyWhereCut): \(filter.shape)"
        case .general: first += ", compiled test of the whole filter\(onlyWhereCut)"
        }
        if mayRunInParallel { first += ", may split among threads" }
        if hasEncryptedIndexes {
            first += " (indexes of an encrypted file answer equality and IN only; ranges, prefixes and sorts read the rows)"
        }
        var then: [String] = []
        switch gathering {
        case .all: break
        case .first(let n): then.append("stop at the first \(n) match\(n == 1 ? "" : "es")")
        case .sortValues: then.append("sort by \(sortDescription)")
        case .best(let n): then.append("keep the best \(n) by \(sortDescription) (heap)")
        }
        if !distinct.isEmpty { then.append("distinct by \(distinct.joined(separator: ", "))") }
        if let limit { then.append("limit \(limit)") }
        return then.isEmpty ? first : first + "\nthen: " + then.joined(separator: ", ")
    }

    private var sortDescription: String {
        sort.map { "\($0.path.text) \($0.ascending ? "ascending" : "descending")" }.joined(separator: ", ")
    }
}
