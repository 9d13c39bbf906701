/// A timed scenario of the default run, in table order.
enum Scenario: String, CaseIterable, Sendable {
    case insert
    case readAll = "read-all"
    case lookup
    case lookupStatement = "lookup-stmt"
    case count
    case countIndex = "count-index"
    case update
    case updateSQL = "update-sql"
    case delete
    case singleWrites = "single-writes"
    case coldStart = "cold-start"

    /// The row title in the table.
    func title(n: Int, singles: Int) -> String {
        let count = formatCount(n)
        switch self {
        case .insert: return "insert \(count) (1 txn)"
        case .readAll: return "read all \(count), touch every property"
        case .lookup: return "\(count) random pk lookups, read age (GRDB: `fetchOne(db, key:)`)"
        case .lookupStatement: return "same lookups (GRDB: cached prepared statement)"
        case .count: return "count age > 50 (ObjDB: iterate all objects, LMDB: scan)"
        case .countIndex: return "count age > 50 (ObjDB: `where { $0.age > 50 }.count`, LMDB: age index walk)"
        case .update: return "update age += 1 on all \(count), 1 txn (GRDB: `update` per record)"
        case .updateSQL: return "same update (GRDB: one `UPDATE … SET age = age + 1`)"
        case .delete: return "delete all \(count) (1 txn)"
        case .singleWrites: return "\(formatCount(singles)) single-object durable write txns"
        case .coldStart: return "cold start: open \(count)-object file + 1 pk lookup"
        }
    }

    /// Whether the database holds the N people before the timed part.
    var needsData: Bool {
        switch self {
        case .insert, .singleWrites: return false
        default: return true
        }
    }
}

/// `100000` as `100k`, `1000000` as `1M`, others with thousands separators.
func formatCount(_ n: Int) -> String {
    if n >= 1_000_000, n % 1_000_000 == 0 { return "\(n / 1_000_000)M" }
    if n >= 1_000, n % 1_000 == 0 { return "\(n / 1_000)k" }
    return "\(n)"
}
