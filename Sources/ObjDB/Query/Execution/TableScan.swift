/// Table scans: the keys of the rows of a class's table that pass a row test, in key order.
///
/// Not part of the generic `Results`, so that each loop is compiled for the concrete shape of its
/// test with the test inlined: one string equality, one or two integer or double comparisons
/// (see ``RowFilter/specialized(_:_:)``), or else the general ``RowFilter``.
enum TableScan {
    /// The keys of the rows from `entry` on through `cursor` (a table scan), up to the key `last`,
    /// that pass `filter`, through a loop compiled for the filter's shape
    /// (``RowFilter/specialized(_:_:)``) that does not branch on each row's outcome
    /// (``MatchingKeys``).
    static func allKeys(from entry: CursorEntry?, _ cursor: borrowing Cursor, through last: UInt64 = .max, passing filter: RowFilter) -> [UInt64] {
        filter.specialized(AllKeys(entry: entry, last: last), cursor)
    }

    /// ``allKeys(from:_:through:passing:)`` for one shape of filter.
    private struct AllKeys: RowPredicateVisitor {
        let entry: CursorEntry?
        let last: UInt64

        func visit<Predicate: RowPredicate>(_ predicate: Predicate, _ cursor: borrowing Cursor) -> [UInt64] {
            guard FastPaths.enabled.contains(.branchFreeScans) else {
                return TableScan.keys(from: entry, cursor, through: last, passing: predicate)
            }
            var keys = MatchingKeys(predicate)
            cursor.forEachRow(from: entry, through: last, into: &keys)
            return keys.finish()
        }
    }

    /// The keys of the rows from `entry` on through `cursor` (a table scan), up to the key `last`
    /// or `limit` matches, that pass `filter`; `match` sees each one.
    @inline(__always)
    static func keys(
        from entry: CursorEntry?, _ cursor: borrowing Cursor, through last: UInt64 = .max, passing filter: some RowPredicate,
        limit: Int = .max, match: (UInt64, RowView) -> Void = { _, _ in }
    ) -> [UInt64] {
        var keys: [UInt64] = []
        cursor.forEachRow(from: entry, through: last) { key, row in
            guard filter.matches(row) else { return true }
            keys.append(key)
            match(key, row)
            return keys.count < limit
        }
        return keys
    }

    /// The first `limit` keys of a table scan of `info`'s table from `entry` on through
    /// `cursor` whose rows pass `filter`.
    ///
    /// The first ``ParallelScan/rowsPerChunk`` keys are read on this thread: most queries that
    /// stop early find their matches there, with no thread or transaction to start. The rest is
    /// split among threads by ``ParallelScan/firstKeys(from:limit:_:)`` when the table is large
    /// enough, and read on this thread otherwise.
    static func firstKeys(
        _ database: Database, _ info: ClassInfo, from entry: CursorEntry?, _ cursor: borrowing Cursor, passing filter: RowFilter, limit: Int
    ) -> [UInt64] {
        filter.specialized(FirstKeys(database: database, info: info, entry: entry, limit: limit), cursor)
    }

    /// ``firstKeys(_:_:from:_:passing:limit:)`` for one shape of filter.
    private struct FirstKeys: RowPredicateVisitor {
        let database: Database
        let info: ClassInfo
        let entry: CursorEntry?
        let limit: Int

        func visit<Predicate: RowPredicate>(_ predicate: Predicate, _ cursor: borrowing Cursor) -> [UInt64] {
            TableScan.scanFirstKeys(database, info, from: entry, cursor, passing: predicate, limit: limit)
        }
    }

    /// ``firstKeys(_:_:from:_:passing:limit:)`` with the filter's shape known to the compiler.
    fileprivate static func scanFirstKeys<Filter: RowPredicate>(
        _ database: Database, _ info: ClassInfo, from entry: CursorEntry?, _ cursor: borrowing Cursor, passing filter: Filter, limit: Int
    ) -> [UInt64] {
        guard let firstKey = entry?.objectKey else { return [] }
        // Keys near the top of the range: the first part reaches the end of the table.
        let (rest, overflow) = firstKey.addingReportingOverflow(UInt64(ParallelScan.rowsPerChunk))
        let found = keys(from: entry, cursor, through: overflow ? .max : rest - 1, passing: filter, limit: limit)
        guard found.count < limit, !overflow else { return found }
        let wanted = limit - found.count
        if let scan = ParallelScan(database, info),
            let more = scan.firstKeys(from: rest, limit: wanted, { first, cursor, last, limit, isAbandoned in
                var keys: [UInt64] = []
                var visited = 0
                cursor.forEachRow(from: first, through: last) { key, row in
                    if filter.matches(row) {
                        keys.append(key)
                        if keys.count >= limit { return false }
                    }
                    visited &+= 1
                    return visited & 255 != 0 || !isAbandoned()
                }
                return keys
            })
        {
            database.noteSplitScan()
            return found + more
        }
        guard let next = RowWalk.step(cursor, { try $0.seek(atLeast: rest) }) else { return found }
        return found + keys(from: next, cursor, passing: filter, limit: wanted)
    }
}
