import Foundation

/// How a query finds its candidate objects. Every candidate is then checked against the whole
/// predicate on its row, so a plan only has to find a superset of the matches.
enum QueryPlan: CustomStringConvertible {
    /// Nothing can match (`FALSEPREDICATE`).
    case none
    /// Walk every row of the class.
    case scan
    /// Look the values up in the primary-key table.
    case primaryKey(property: String, table: Table, keys: [[UInt8]])
    /// Look the values up in an index.
    case indexEquals(property: String, table: Table, keys: [[UInt8]])
    /// Walk an index from `low` to `high` (encoded keys, inclusive; `nil` for open ends).
    case indexRange(property: String, table: Table, low: [UInt8]?, high: [UInt8]?)
    /// Walk the index keys that start with `prefix`.
    case indexPrefix(property: String, table: Table, prefix: [UInt8])

    /// `primary key lookup on id (2 values)`, `index range on age`, `table scan`, …
    var description: String {
        switch self {
        case .none: "no candidates (the predicate is always false)"
        case .scan: "table scan"
        case .primaryKey(let property, _, let keys): "primary key lookup on \(property) (\(keys.count) value\(keys.count == 1 ? "" : "s"))"
        case .indexEquals(let property, _, let keys): "index lookup on \(property) (\(keys.count) value\(keys.count == 1 ? "" : "s"))"
        case .indexRange(let property, _, _, _): "index range on \(property)"
        case .indexPrefix(let property, _, _): "index prefix scan on \(property)"
        }
    }

    /// Whether the plan reads an index or the primary-key table.
    var usesIndex: Bool {
        switch self {
        case .primaryKey, .indexEquals, .indexRange, .indexPrefix: true
        case .none, .scan: false
        }
    }
}

/// Chooses a ``QueryPlan`` for a predicate on a class and produces its candidate keys.
///
/// Equality or `IN` on the primary key uses the primary-key table; equality, `IN`, ranges
/// (`<`, `<=`, `>`, `>=`, `BETWEEN`) and case-sensitive `BEGINSWITH` on an indexed property use
/// its index. Among the conjuncts of an `AND`, the primary key wins, then the equality with the
/// fewest entries, then `IN`, then ranges and prefixes. Anything else scans the table.
enum QueryPlanner {
    /// The plan for `predicate` on `info`.
    static func plan(_ predicate: BoundPredicate, _ info: ClassInfo, txn: Txn) -> QueryPlan {
        if case .constant(false) = predicate { return .none }
        var best: (rank: Int, plan: QueryPlan)?
        for conjunct in conjuncts(predicate) {
            guard case .comparison(let c) = conjunct, let candidate = plan(c, info, txn: txn) else { continue }
            if best == nil || candidate.rank < best?.rank ?? .max { best = candidate }
        }
        return best?.plan ?? .scan
    }

    private static func conjuncts(_ predicate: BoundPredicate) -> [BoundPredicate] {
        if case .and(let operands) = predicate { return operands.flatMap(conjuncts) }
        return [predicate]
    }

    /// An index access for one comparison, ranked (lower is better); `nil` if none applies.
    private static func plan(_ c: BoundComparison, _ info: ClassInfo, txn: Txn) -> (rank: Int, plan: QueryPlan)? {
        guard case .path(let path) = c.left, let column = path.directColumn, c.quantifier == .any,
            c.options.isEmpty, info.columnKinds[column] == .value
        else { return nil }
        let property = info.stored.properties[column]
        let kind = property.type.scalarKind
        guard keyEncodable(property.type) else { return nil }
        func key(_ comparand: Comparand) -> [UInt8]? { encodedKey(comparand, type: property.type, kind: kind) }
        let isPrimary = column == info.primaryKeyColumn
        let table = isPrimary ? info.primaryKeyTable : info.tables.indexes[column]
        guard let table else { return nil }
        switch (c.op, c.right) {
        case (.equal, .constant(let comparand)):
            guard let k = key(comparand) else { return nil }
            if isPrimary { return (0, .primaryKey(property: property.name, table: table, keys: [k])) }
            return (1 + min(duplicates(table, k, txn: txn), 1 << 40), .indexEquals(property: property.name, table: table, keys: [k]))
        case (.in, .list(let comparands)):
            let keys = comparands.compactMap(key)
            guard keys.count == comparands.count else { return nil }
            if isPrimary { return (0, .primaryKey(property: property.name, table: table, keys: keys)) }
            return ((1 << 41) + keys.count, .indexEquals(property: property.name, table: table, keys: keys))
        case (.less, .constant(let comparand)), (.lessOrEqual, .constant(let comparand)):
            guard let k = key(comparand), !comparand.isNull else { return nil }
            return (1 << 42, .indexRange(property: property.name, table: table, low: [KeyEncoding.valueTag], high: k))
        case (.greater, .constant(let comparand)), (.greaterOrEqual, .constant(let comparand)):
            guard let k = key(comparand), !comparand.isNull else { return nil }
            return (1 << 42, .indexRange(property: property.name, table: table, low: k, high: nil))
        case (.between, .list(let bounds)) where bounds.count == 2:
            guard let low = key(bounds[0]), let high = key(bounds[1]), !bounds[0].isNull, !bounds[1].isNull else { return nil }
            return ((1 << 42) - 1, .indexRange(property: property.name, table: table, low: low, high: high))
        case (.beginsWith, .constant(.bytes(let prefix))) where property.type == .string:
            let cut = Array(prefix.prefix(KeyEncoding.maxLength - 1))
            return (1 << 42, .indexPrefix(property: property.name, table: table, prefix: [KeyEncoding.valueTag] + cut))
        default:
            return nil
        }
    }

    /// Types whose comparison order is the index key order.
    private static func keyEncodable(_ type: PropertyType) -> Bool {
        switch type {
        case .int, .bool, .string, .date, .uuid, .objectId: true
        default: false
        }
    }

    /// The index key of a constant compared with a property of `type`; `nil` when the constant's
    /// type is not the property's own (then the index order may not be the comparison's).
    private static func encodedKey(_ comparand: Comparand, type: PropertyType, kind: ScalarKind) -> [UInt8]? {
        var column: [UInt8] = []
        switch (comparand, type) {
        case (.null, _):
            return [KeyEncoding.nullTag]
        case (.int(let v), .int):
            ColumnCodec.appendInteger(v, to: &column)
        case (.bool(let v), .bool):
            column = [v ? 1 : 0]
        case (.date(let v), .date):
            ColumnCodec.appendDouble(v, to: &column)
        case (.bytes(let bytes), .string), (.bytes(let bytes), .uuid), (.bytes(let bytes), .objectId):
            column = bytes
        default:
            return nil
        }
        var key: [UInt8] = []
        let ok = column.withUnsafeBytes { KeyEncoding.append(.value($0), kind: kind, to: &key) }
        return ok ? key : nil
    }

    /// The number of entries under `key` in a multimap.
    private static func duplicates(_ table: Table, _ key: [UInt8], txn: Txn) -> Int {
        guard let cursor = try? Cursor(txn, table),
            (try? key.withUnsafeBytes { try cursor.seek(exactly: $0) }) != nil
        else { return 0 }
        return (try? cursor.duplicateCount()) ?? 0
    }

    /// The object keys a plan yields, ascending and without repeats.
    static func candidates(_ plan: QueryPlan, txn: Txn) throws -> [UInt64] {
        var keys: [UInt64] = []
        switch plan {
        case .none, .scan:
            return []
        case .primaryKey(_, let table, let values), .indexEquals(_, let table, let values):
            let cursor = try Cursor(txn, table)
            for value in values {
                var entry = try value.withUnsafeBytes { try cursor.seek(exactly: $0) }
                while let current = entry {
                    keys.append(current.valueObjectKey)
                    entry = try cursor.nextDuplicate()
                }
            }
        case .indexRange(_, let table, let low, let high):
            let cursor = try Cursor(txn, table)
            var entry = try low.map { low in try low.withUnsafeBytes { try cursor.seek(atLeast: $0) } } ?? cursor.first()
            while let current = entry {
                // Cutting keys keeps their order, so a key past the (cut) bound holds only larger values.
                if let high, high.withUnsafeBytes({ compareBytes(current.key, $0) }) > 0 { break }
                keys.append(current.valueObjectKey)
                entry = try cursor.next()
            }
        case .indexPrefix(_, let table, let prefix):
            let cursor = try Cursor(txn, table)
            var entry = try prefix.withUnsafeBytes { try cursor.seek(atLeast: $0) }
            while let current = entry, prefix.withUnsafeBytes({ QueryText.hasPrefix(current.key, $0) }) {
                keys.append(current.valueObjectKey)
                entry = try cursor.next()
            }
        }
        keys.sort()
        var unique: [UInt64] = []
        unique.reserveCapacity(keys.count)
        for key in keys where unique.last != key { unique.append(key) }
        return unique
    }
}

extension Comparand {
    /// Whether the constant is `nil`.
    var isNull: Bool { if case .null = self { true } else { false } }
}
