import Foundation

/// How a query finds its candidate objects. Every candidate is then checked against the whole
/// predicate on its row — unless the plan ``QueryPlan/covers`` a predicate of one comparison and
/// its index keys are exact, in which case the candidates are the matches.
struct QueryPlan: CustomStringConvertible {
    /// One end of an index range.
    struct Bound {
        /// The encoded key.
        var key: [UInt8]
        /// Whether keys equal to it are in the range.
        var inclusive: Bool
    }

    /// Where the candidates come from.
    enum Access {
        /// Nothing can match (`FALSEPREDICATE`).
        case none
        /// Every row of the class.
        case scan
        /// The entries of the primary-key table (`primary`) or an index under each key.
        case lookup(primary: Bool, property: String, table: Table, keys: LookupKeys)
        /// The index entries between two bounds (`nil` for an open end).
        case range(property: String, table: Table, low: Bound?, high: Bound?)
        /// The index entries whose keys start with `prefix`.
        case prefix(property: String, table: Table, prefix: [UInt8])
        /// The objects a full-text index finds for a `TEXT` query (``FullTextIndexReader``);
        /// `objects` is the class's table, read for a query that only excludes words.
        case fullText(property: String, table: Table, objects: Table, query: FullTextQuery)
    }

    /// The access.
    var access: Access
    /// Whether the access serves the whole predicate (a single comparison), so that exact
    /// candidates need no further check.
    var covers = false

    static let none = QueryPlan(access: .none)
    static let scan = QueryPlan(access: .scan)

    /// `primary key lookup on id (2 values)`, `index range on age`, `table scan`, …
    var description: String {
        switch access {
        case .none: "no candidates (the predicate is always false)"
        case .scan: "table scan"
        case .lookup(let primary, let property, _, let keys):
            "\(primary ? "primary key" : "index") lookup on \(property) (\(keys.count) value\(keys.count == 1 ? "" : "s"))"
        case .range(let property, _, _, _): "index range on \(property)"
        case .prefix(let property, _, _): "index prefix scan on \(property)"
        case .fullText(let property, _, _, let query): "full-text index lookup on \(property) for \(query)"
        }
    }

    /// Whether the plan reads an index or the primary-key table.
    var usesIndex: Bool {
        switch access {
        case .lookup, .range, .prefix, .fullText: true
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
        switch predicate {
        case .constant(false):
            return .none
        case .comparison(let c):
            // A single comparison: nothing to rank.
            return access(c, info).map { QueryPlan(access: $0.access, covers: true) } ?? .scan
        default:
            break
        }
        let parts = conjuncts(predicate)
        var candidates: [(rank: Int, access: QueryPlan.Access)] = []
        for conjunct in parts {
            guard case .comparison(let c) = conjunct, let candidate = access(c, info) else { continue }
            candidates.append(candidate)
        }
        // Several equalities on indexes: count their entries to pick the most selective.
        if candidates.filter({ $0.rank == Rank.indexEquality }).count > 1 {
            candidates = candidates.map { candidate in
                guard candidate.rank == Rank.indexEquality, case .lookup(_, _, let table, let keys) = candidate.access else { return candidate }
                var entries = 0
                keys.forEach { key in
                    entries += duplicates(table, key, txn: txn)
                    return true
                }
                return (Rank.indexEquality + entries, candidate.access)
            }
        }
        guard let best = candidates.min(by: { $0.rank < $1.rank }) else { return .scan }
        return QueryPlan(access: best.access, covers: parts.count == 1)
    }

    /// Ranks of accesses; lower is better.
    enum Rank {
        static let primaryKey = 0
        static let indexEquality = 1
        static let indexIn = 1 << 41
        static let fullText = (1 << 41) - 1
        static let between = (1 << 42) - 1
        static let range = 1 << 42
    }

    private static func conjuncts(_ predicate: BoundPredicate) -> [BoundPredicate] {
        if case .and(let operands) = predicate { return operands.flatMap(conjuncts) }
        return [predicate]
    }

    /// An index access for one comparison, ranked; `nil` if none applies.
    private static func access(_ c: BoundComparison, _ info: ClassInfo) -> (rank: Int, access: QueryPlan.Access)? {
        if c.op == .text { return fullTextAccess(c, info) }
        guard case .path(let path) = c.left, let column = path.directColumn, c.quantifier == .any,
            c.options.isEmpty, info.columnKinds[column] == .value
        else { return nil }
        // The comparison's type is the column's (its left side is the column); the name and the
        // type are read apart, without copying the stored property.
        let type = c.type
        let name = info.columnNames[column]
        let kind = info.scalarKinds[column]
        guard keyEncodable(type) || type == .mixed else { return nil }
        func key(_ comparand: Comparand) -> [UInt8]? { encodedKey(comparand, type: type, kind: kind) }
        let isPrimary = column == info.primaryKeyColumn
        let table = isPrimary ? info.primaryKeyTable : info.tables.indexes[column]
        guard let table else { return nil }
        if type == .mixed { return mixedAccess(c, name: name, table: table) }
        // An encrypted file's index keys are keyed hashes: equal values find each other, but the
        // keys have no order, so ranges and prefixes read the rows (Docs/Encryption.md).
        if table.seal == .keys, c.op != .equal, c.op != .in { return nil }
        switch (c.op, c.right) {
        case (.equal, .constant(let comparand)):
            guard let k = key(comparand) else { return nil }
            return (isPrimary ? Rank.primaryKey : Rank.indexEquality, .lookup(primary: isPrimary, property: name, table: table, keys: .one(k)))
        case (.in, .list(let comparands)):
            let lookup: LookupKeys
            if type == .int, let integers = integers(comparands) {
                lookup = .integers(integers)
            } else {
                let keys = comparands.compactMap(key)
                guard keys.count == comparands.count else { return nil }
                lookup = .encoded(sortedUnique(keys))
            }
            return (isPrimary ? Rank.primaryKey : Rank.indexIn + lookup.count, .lookup(primary: isPrimary, property: name, table: table, keys: lookup))
        case (.less, .constant(let comparand)), (.lessOrEqual, .constant(let comparand)):
            guard let k = key(comparand), !comparand.isNull else { return nil }
            let high = QueryPlan.Bound(key: k, inclusive: c.op == .lessOrEqual)
            // Dates: NaN keys sort outside ±infinity and match no comparison.
            let low = type == .date ? key(.date(-.infinity)) : [KeyEncoding.valueTag]
            return (Rank.range, .range(property: name, table: table, low: low.map { QueryPlan.Bound(key: $0, inclusive: true) }, high: high))
        case (.greater, .constant(let comparand)), (.greaterOrEqual, .constant(let comparand)):
            guard let k = key(comparand), !comparand.isNull else { return nil }
            let high = type == .date ? key(.date(.infinity)).map { QueryPlan.Bound(key: $0, inclusive: true) } : nil
            return (Rank.range, .range(property: name, table: table, low: QueryPlan.Bound(key: k, inclusive: c.op == .greaterOrEqual), high: high))
        case (.between, .list(let bounds)) where bounds.count == 2, (.betweenHalfOpen, .list(let bounds)) where bounds.count == 2:
            guard let low = key(bounds[0]), let high = key(bounds[1]), !bounds[0].isNull, !bounds[1].isNull else { return nil }
            return (Rank.between, .range(
                property: name, table: table,
                low: QueryPlan.Bound(key: low, inclusive: true), high: QueryPlan.Bound(key: high, inclusive: c.op == .between)))
        case (.beginsWith, .constant(.bytes(let prefix))) where type == .string:
            let cut = Array(prefix.prefix(KeyEncoding.maxLength - 1))
            return (Rank.range, .prefix(property: name, table: table, prefix: [KeyEncoding.valueTag] + cut))
        default:
            return nil
        }
    }

    /// An index access for `==` and `IN` on a mixed property, whose index keys are the stored
    /// bytes (a type tag, then the value): the keys of every stored form equal to the constants
    /// (``mixedKeys(_:)``). `nil` for numbers, which equal values of other types and encodings,
    /// and for other operators: those comparisons scan.
    private static func mixedAccess(_ c: BoundComparison, name: String, table: Table) -> (rank: Int, access: QueryPlan.Access)? {
        var keys: [[UInt8]] = []
        switch (c.op, c.right) {
        case (.equal, .constant(let comparand)):
            guard let found = mixedKeys(comparand) else { return nil }
            keys = found
        case (.in, .list(let comparands)):
            for comparand in comparands {
                guard let found = mixedKeys(comparand) else { return nil }
                keys += found
            }
        default:
            return nil
        }
        if c.op == .equal, keys.count == 1 {
            return (Rank.indexEquality, .lookup(primary: false, property: name, table: table, keys: .one(keys[0])))
        }
        let lookup = LookupKeys.encoded(sortedUnique(keys))
        return (Rank.indexIn + lookup.count, .lookup(primary: false, property: name, table: table, keys: lookup))
    }

    /// The values of a list of integer constants, ascending and without repeats; `nil` if one of
    /// them is not an integer.
    private static func integers(_ comparands: [Comparand]) -> [Int64]? {
        var values: [Int64] = []
        values.reserveCapacity(comparands.count)
        for comparand in comparands {
            guard case .int(let v) = comparand else { return nil }
            values.append(v)
        }
        var unique: [Int64] = []
        unique.reserveCapacity(values.count)
        for v in RadixSort.sorted(values) where unique.last != v { unique.append(v) }
        return unique
    }

    /// `keys` in byte order without repeats: looked up in that order, neighbouring keys share
    /// B-tree pages, which LMDB's cursor finds without descending from the root again.
    ///
    /// - Complexity: O(n log n) comparisons of keys.
    private static func sortedUnique(_ keys: [[UInt8]]) -> [[UInt8]] {
        let sorted = keys.sorted { a, b in
            a.withUnsafeBytes { a in b.withUnsafeBytes { b in compareBytes(a, b) < 0 } }
        }
        var unique: [[UInt8]] = []
        unique.reserveCapacity(sorted.count)
        for key in sorted where unique.last != key { unique.append(key) }
        return unique
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
            return KeyEncoding.integerKey(v)
        case (.bool(let v), .bool):
            column = [v ? 1 : 0]
        case (.date(let v), .date):
            guard !v.isNaN else { return nil }
            ColumnCodec.appendDouble(v, to: &column)
        case (.bytes(let bytes), .string), (.bytes(let bytes), .uuid), (.bytes(let bytes), .objectId):
            column = bytes
        default:
            return nil
        }
        var key: [UInt8] = []
        key.reserveCapacity(min(column.count, KeyEncoding.maxLength) + 9)
        let ok = column.withUnsafeBytes { KeyEncoding.append(.value($0), kind: kind, to: &key) }
        return ok ? key : nil
    }

    /// The number of entries under `key` in a multimap.
    private static func duplicates(_ table: Table, _ key: UnsafeRawBufferPointer, txn: Txn) -> Int {
        // try?: the count only ranks the indexes a plan may use; reading the chosen index reports
        // any error.
        guard let cursor = try? Cursor(txn, table), (try? cursor.seek(exactly: key)) != nil else { return 0 }
        return (try? cursor.duplicateCount()) ?? 0
    }

    /// Positions a cursor on the first entry of each index key a plan selects, in key order,
    /// calling `body` with the cursor, the entry and whether the key was possibly cut (so its
    /// values must be checked on the rows); `body` returns `false` to stop.
    ///
    /// - Complexity: O(log n) per key visited; the entries under a key are left to `body`.
    private static func forEachKey(_ plan: QueryPlan, txn: Txn, _ body: (borrowing Cursor, CursorEntry, Bool) throws -> Bool) throws {
        func cut(_ entry: CursorEntry, boundCut: Bool = false) -> Bool {
            boundCut || KeyEncoding.mayBeTruncated(count: entry.key.count)
        }
        switch plan.access {
        case .none, .scan, .fullText:
            return
        case .lookup(_, _, let table, let values):
            let cursor = try Cursor(txn, table)
            try values.forEach { value in
                guard let entry = try cursor.seek(exactly: value) else { return true }
                // The key looked up, which equals the entry's unless the file keys hashes.
                return try body(cursor, entry, KeyEncoding.mayBeTruncated(count: value.count))
            }
        case .range(_, let table, let low, let high):
            let cursor = try Cursor(txn, table)
            var entry = try low.map { low in try low.key.withUnsafeBytes { try cursor.seek(atLeast: $0) } } ?? cursor.first()
            while let current = entry {
                // Cutting keys keeps their order, so a key past the (cut) bound holds only larger values.
                let aboveHigh = high.map { bound in bound.key.withUnsafeBytes { compareBytes(current.key, $0) } } ?? -1
                if aboveHigh > 0 { break }
                let atLow = low.map { bound in bound.key.withUnsafeBytes { compareBytes(current.key, $0) } == 0 } ?? false
                // An exclusive bound skips keys equal to it, unless the bound itself was cut.
                let boundCut = (aboveHigh == 0 && high.map { KeyEncoding.mayBeTruncated(count: $0.key.count) } ?? false)
                    || (atLow && low.map { KeyEncoding.mayBeTruncated(count: $0.key.count) } ?? false)
                let excluded = !boundCut && ((aboveHigh == 0 && high?.inclusive == false) || (atLow && low?.inclusive == false))
                if !excluded, try !body(cursor, current, cut(current, boundCut: boundCut)) { return }
                entry = try cursor.nextKey()
            }
        case .prefix(_, let table, let prefix):
            let cursor = try Cursor(txn, table)
            var entry = try prefix.withUnsafeBytes { try cursor.seek(atLeast: $0) }
            let prefixCut = KeyEncoding.mayBeTruncated(count: prefix.count)
            while let current = entry, prefix.withUnsafeBytes({ QueryText.hasPrefix(current.key, $0) }) {
                if try !body(cursor, current, cut(current, boundCut: prefixCut)) { return }
                entry = try cursor.nextKey()
            }
        }
    }

    /// Walks the index entries a plan selects, calling `body` with each object key and whether
    /// its key was possibly cut (so its value must be checked on the row); `body` returns `false`
    /// to stop. Returns whether every entry's key was exact.
    @discardableResult
    static func walk(_ plan: QueryPlan, txn: Txn, _ body: (UInt64, Bool) -> Bool) throws -> Bool {
        var exact = true
        try forEachKey(plan, txn: txn) { cursor, first, cut in
            if cut { exact = false }
            var entry: CursorEntry? = first
            while let current = entry {
                if !body(current.valueObjectKey, cut) { return false }
                entry = try cursor.nextDuplicate()
            }
            return true
        }
        return exact
    }

    /// The object keys a plan yields, ascending and without repeats, and whether they are all
    /// exact matches of the served comparison.
    ///
    /// With a `limit`, a plan that seeks one key and answers its whole predicate stops after the
    /// first `limit` entries of an uncut key: those come ascending, so they are the answer.
    /// (`where { $0.age == 30 }.first` reads one index entry, not every object aged 30.)
    static func candidates(_ plan: QueryPlan, txn: Txn, limit: Int? = nil) throws -> (keys: [UInt64], exact: Bool) {
        if let first = try firstKeyOfPointLookup(plan, txn: txn, limit: limit) { return (first, true) }
        if case .fullText(_, let table, let objects, let query) = plan.access {
            return (try fullTextMatches(table: table, objects: objects, query: query, txn: txn), true)
        }
        var keys: [UInt64] = []
        var stopAt = Int.max
        if let limit, plan.covers, case .lookup(_, _, _, .one) = plan.access { stopAt = limit }
        // The entries under one index key come ascending: often nothing is left to sort.
        var ascending = true
        let exact = try walk(plan, txn: txn) { key, cut in
            if let last = keys.last, key <= last { ascending = false }
            keys.append(key)
            // A cut key's entries are checked on their rows afterwards: all of them are needed.
            return cut || keys.count < stopAt
        }
        if ascending { return (keys, exact) }
        keys.sort()
        var unique: [UInt64] = []
        unique.reserveCapacity(keys.count)
        for key in keys where unique.last != key { unique.append(key) }
        return (unique, exact)
    }

    /// The number of matches of a plan that covers its predicate with exact keys, counted from the
    /// index alone; `nil` when that is not possible.
    ///
    /// - Complexity: O(k log n) for k distinct index keys in the range: LMDB keeps the number of
    ///   entries under each key, so the entries themselves are not visited.
    static func count(_ plan: QueryPlan, txn: Txn) throws -> Int? {
        guard plan.covers, plan.usesIndex else { return nil }
        if case .fullText(_, let table, let objects, let query) = plan.access {
            return try fullTextMatches(table: table, objects: objects, query: query, txn: txn).count
        }
        var count = 0
        var exact = true
        try forEachKey(plan, txn: txn) { cursor, _, cut in
            if cut {
                exact = false
                return false
            }
            count += try cursor.duplicateCount()
            return true
        }
        return exact ? count : nil
    }
}

/// The keys a lookup seeks, in byte order without repeats.
enum LookupKeys {
    /// One encoded key: an equality, the most common lookup, without a list around it.
    case one([UInt8])
    /// Encoded keys.
    case encoded([[UInt8]])
    /// Integers, ascending, each encoded (``KeyEncoding/integerKey(_:)``) only when it is sought:
    /// a long `IN` list needs no array per value.
    case integers([Int64])

    /// The number of keys.
    var count: Int {
        switch self {
        case .one: 1
        case .encoded(let keys): keys.count
        case .integers(let values): values.count
        }
    }

    /// Calls `body` with each encoded key in order until it returns `false`.
    func forEach(_ body: (UnsafeRawBufferPointer) throws -> Bool) rethrows {
        switch self {
        case .one(let key):
            _ = try key.withUnsafeBytes(body)
        case .encoded(let keys):
            for key in keys where try !key.withUnsafeBytes(body) { return }
        case .integers(let values):
            for value in values {
                var key = KeyEncoding.IntegerKey(value)
                if try !withUnsafeBytes(of: &key, body) { return }
            }
        }
    }
}

extension Comparand {
    /// Whether the constant is `nil`.
    var isNull: Bool { if case .null = self { true } else { false } }
}
