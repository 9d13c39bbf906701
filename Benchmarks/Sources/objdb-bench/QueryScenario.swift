/// A timed scenario of `--queries`, in table order.
enum QueryScenario: String, CaseIterable, Sendable {
    /// ``QueryWorkload/lookups`` equality lookups on an indexed name, at every lookup size.
    case indexedLookup = "lookup-index"
    /// The same lookups; GRDB through one cached prepared statement.
    case indexedLookupStatement = "lookup-index-stmt"
    /// ``QueryWorkload/scanLookups`` equality lookups on an unindexed name.
    case scanLookup = "lookup-scan"
    /// One `IN` query with n / 2 primary keys, every match read.
    case inQuery = "in"
    /// `count` of `age > 50 && score < 0.5` with no index on either.
    case countScan = "count-scan"
    /// `count` of `age > 50` with the age index.
    case countIndex = "count-index"
    /// Sort every object by score, count, read the first ``QueryWorkload/sortPrefix``; GRDB
    /// fetches every record sorted.
    case sort
    /// The same; GRDB fetches the first records with `LIMIT` and counts separately.
    case sortLimit = "sort-limit"

    /// Whether the database has the secondary indexes (name and age): the scenarios that need
    /// an index get them, the others run on tables with the primary key only.
    var indexed: Bool {
        switch self {
        case .indexedLookup, .indexedLookupStatement, .countIndex: return true
        case .scanLookup, .inQuery, .countScan, .sort, .sortLimit: return false
        }
    }

    /// How many timed operations a run makes, for per-operation times (lookups; 1 otherwise).
    var operations: Int {
        switch self {
        case .indexedLookup, .indexedLookupStatement: return QueryWorkload.lookups
        case .scanLookup: return QueryWorkload.scanLookups
        default: return 1
        }
    }

    /// The row title in the main query table, for `n` objects.
    func title(n: Int) -> String {
        let count = formatCount(n)
        let lookups = formatCount(QueryWorkload.lookups)
        switch self {
        case .indexedLookup: return "\(lookups) equality lookups on an indexed String, \(count) objects"
        case .indexedLookupStatement: return "same lookups (GRDB: cached prepared statement)"
        case .scanLookup:
            return "\(lookups) equality lookups on an unindexed String, \(count) objects "
                + "(\(QueryWorkload.scanLookups) measured, × \(QueryWorkload.lookups / QueryWorkload.scanLookups))"
        case .inQuery: return "IN with \(formatCount(n / 2)) primary keys over \(count) objects, read every match"
        case .countScan: return "count `age > 50 && score < 0.5` over \(count) objects (no index)"
        case .countIndex: return "count `age > 50` over \(count) objects (age index)"
        case .sort:
            return "sort \(count) by score, count + read first \(QueryWorkload.sortPrefix) (GRDB: `fetchAll` of all \(count))"
        case .sortLimit: return "same sort (GRDB: `limit(\(QueryWorkload.sortPrefix)).fetchAll` + `fetchCount`)"
        }
    }
}
