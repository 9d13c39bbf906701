/// Runs an ``ExecutionPlan``: one method per access, then the steps after it (sort, distinct,
/// limit). Every query a ``Results`` evaluates goes through ``run(_:)``.
struct QueryExecutor {
    /// Not retained, nor is ``info``: an executor lives only inside `Results.withExecution`,
    /// which holds both for as long as the executor runs (a retain and a release of each per
    /// evaluation otherwise).
    unowned(unsafe) let database: Database
    unowned(unsafe) let info: ClassInfo
    let txn: Txn
    let evaluator: QueryEvaluator
    /// The keys of a collection or of linking objects, for ``ExecutionPlan/Access/elements``;
    /// `nil` for a query on a table.
    let elements: (() -> [UInt64])?

    init(database: Database, info: ClassInfo, txn: Txn, elements: (() -> [UInt64])?) {
        self.database = database
        self.info = info
        self.txn = txn
        evaluator = QueryEvaluator(txn: txn, failure: database.queryReadFailures)
        self.elements = elements
    }

    /// The matching object keys, in result order.
    func run(_ plan: ExecutionPlan) -> [UInt64] {
        let keys = runPlan(plan)
        if let failure = evaluator.failure.take() { database.reportReadFailure(failure) }
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled {
            checkAgainstReference(plan, keys)
            // A read that failed for the reference failed for the plan too, which reported it.
            _ = evaluator.failure.take()
        }
        #endif
        return keys
    }

    /// ``run(_:)`` without the internal check.
    private func runPlan(_ plan: ExecutionPlan) -> [UInt64] {
        switch plan.access {
        case .nothing:
            return []
        case .table:
            var matches = Matches(plan)
            scanTable(plan, &matches)
            return finish(&matches, plan)
        case .index(let access):
            return readIndex(access, plan)
        case .elements:
            var matches = Matches(plan)
            readKeys(elements?() ?? [], plan, &matches)
            return finish(&matches, plan)
        }
    }

    /// The number of matches counted from an index alone, when the plan reads an exact index
    /// that answers the whole predicate and keeps every match; `nil` otherwise.
    func countFromIndex(_ plan: ExecutionPlan) -> Int? {
        guard case .index(let access) = plan.access, access.covers, case .all = plan.gathering,
            plan.distinct.isEmpty, plan.limit == nil
        else { return nil }
        do {
            return try QueryPlanner.count(access, txn: txn)
        } catch {
            database.reportReadFailure(error, while: "Counting matches in an index of '\(info.name)'")
            return nil
        }
    }

    // MARK: Accesses

    /// Every row of the table: through the loop compiled for a row test's shape (split among
    /// threads when the plan allows it), or through the general test.
    private func scanTable(_ plan: ExecutionPlan, _ matches: inout Matches) {
        guard case .row(let filter) = plan.test else {
            guard case .general = plan.test, let predicate = plan.filter else { return }
            let test = QueryEvaluator.compileForms(predicate).compiled
            withTableCursor { cursor, entry in
                cursor.forEachRow(from: entry) { key, row in
                    !test(evaluator, key, row) || matches.add(key, row, evaluator)
                }
            }
            return
        }
        if plan.mayRunInParallel, let scan = ParallelScan(database, info), runInParallel(scan, filter, &matches) {
            database.noteSplitScan()
            return
        }
        withTableCursor { cursor, entry in
            if matches.best != nil {
                matches.best?.offerRows(from: entry, cursor, passing: filter)
            } else if let limit = matches.stopAfter {
                matches.keys = TableScan.firstKeys(database, info, from: entry, cursor, passing: filter, limit: limit)
            } else if var values = matches.values {
                matches.keys = TableScan.keys(from: entry, cursor, passing: filter) { key, row in values.add(key, row, evaluator) }
                matches.values = values
            } else {
                matches.keys = TableScan.allKeys(from: entry, cursor, passing: filter)
            }
        }
    }

    /// Runs `body` with a cursor on the class's table and its first entry; a cursor that cannot
    /// be opened or positioned is reported (the access then finds nothing).
    private func withTableCursor(_ body: (borrowing Cursor, CursorEntry?) -> Void) {
        do {
            let cursor = try Cursor(txn, info.objectsTable, tracksFailures: true)
            body(cursor, try cursor.first())
            if let failure = cursor.failure?.error { throw failure }
        } catch {
            database.reportReadFailure(error, while: "Scanning the objects of '\(info.name)'")
        }
    }

    /// The table scan split among threads: each part gathers its keys (with their sort words
    /// for a full sort) or its best matches, joined in key order. `false` if a part failed: the
    /// scan then runs on one thread.
    private func runInParallel(_ scan: ParallelScan, _ filter: RowFilter, _ matches: inout Matches) -> Bool {
        if let start = matches.best {
            guard let parts = scan.map({ first, cursor, last in
                var part = start
                part.offerRows(from: first, cursor, through: last, passing: filter)
                return part
            }) else { return false }
            matches.best = parts.dropFirst().reduce(into: parts[0]) { $0.merge($1) }
            return true
        }
        let start = matches.values
        let evaluator = self.evaluator
        guard let parts = scan.map({ first, cursor, last in
            // Without sort values the loop calls no closure per match.
            guard var values = start else {
                return (keys: TableScan.allKeys(from: first, cursor, through: last, passing: filter), values: start)
            }
            let keys = TableScan.keys(from: first, cursor, through: last, passing: filter) { key, row in
                values.add(key, row, evaluator)
            }
            return (keys: keys, values: values)
        }) else { return false }
        // Part by part (a copy of memory each), not key by key through `joined()`.
        var joined: [UInt64] = []
        joined.reserveCapacity(parts.reduce(0) { $0 + $1.keys.count })
        for part in parts { joined.append(contentsOf: part.keys) }
        matches.keys = joined
        if var merged = parts[0].values {
            for part in parts.dropFirst() {
                if let values = part.values { merged.append(values) }
            }
            matches.values = merged
        }
        return true
    }

    /// The candidates an index selects: the results themselves when it answers the whole
    /// predicate with exact keys and nothing sorts or picks distinct values (no ``Matches`` is
    /// made: an indexed lookup is mostly this), else each tested on its row.
    private func readIndex(_ access: QueryPlan, _ plan: ExecutionPlan) -> [UInt64] {
        var stopAfter: Int?
        if case .first(let n) = plan.gathering { stopAfter = n }
        let candidates: [UInt64]
        let exact: Bool
        do {
            (candidates, exact) = try QueryPlanner.candidates(access, txn: txn, limit: stopAfter)
        } catch {
            database.reportReadFailure(error, while: "Reading an index of '\(info.name)'")
            return []
        }
        if access.covers && exact {
            switch plan.gathering {
            case .all, .first:
                // `.first` has no distinct (it needs unordered results); the limit is cut here as
                // `finish` cuts it.
                var keys = stopAfter.map { candidates.count > $0 ? Array(candidates.prefix($0)) : candidates } ?? candidates
                if plan.distinct.isEmpty {
                    if let limit = plan.limit, keys.count > limit { keys.removeSubrange(limit...) }
                    return keys
                }
                var matches = Matches(plan)
                matches.keys = keys
                return finish(&matches, plan)
            case .sortValues, .best:
                break
            }
        }
        // An index that answers the whole predicate exactly still offers each match's row to a
        // sort; otherwise the candidates are tested in full.
        var matches = Matches(plan)
        readKeys(candidates, access.covers && exact ? plan.withoutTest : plan, &matches)
        return finish(&matches, plan)
    }

    /// The objects `keys`, in that order, each tested on its row (a key without a row is skipped).
    private func readKeys(_ keys: [UInt64], _ plan: ExecutionPlan, _ matches: inout Matches) {
        let test: QueryEvaluator.Compiled?
        switch plan.test {
        case .none: test = nil
        case .row(let filter): test = { _, _, row in filter.matches(row) }
        case .general: test = plan.filter.map { QueryEvaluator.compileForms($0).compiled }
        }
        for key in keys {
            guard let row = evaluator.fetch(info, key) else { continue }
            if let test, !test(evaluator, key, row) { continue }
            if !matches.add(key, row, evaluator) { return }
        }
    }

    // MARK: After the access

    /// The matches in result order: the best kept, or sorted by the values gathered (or read
    /// again), then distinct, then cut to the limit.
    /// (`inout`, the keys taken out: passing the matches by value copied every field of them.)
    private func finish(_ matches: inout Matches, _ plan: ExecutionPlan) -> [UInt64] {
        var keys: [UInt64] = []
        swap(&keys, &matches.keys)
        let limit = plan.distinct.isEmpty ? plan.limit : nil
        if let best = matches.best {
            keys = best.keys()
        } else if !plan.sort.isEmpty {
            let paths = plan.sort.map { ($0.path, $0.ascending) }
            let order = matches.values?.order(matches: keys.count, limit: limit)
                ?? QuerySort.order(count: keys.count, sortKeyValues(keys, paths), paths.map(\.1), limit: limit)
            keys = order.map { keys[$0] }
        }
        if !plan.distinct.isEmpty { keys = distinct(keys, plan.distinct) }
        if let limit = plan.limit, keys.count > limit { keys.removeSubrange(limit...) }
        return keys
    }

    /// The sort key values of `keys`, read from their rows, `paths.count` per key.
    func sortKeyValues(_ keys: [UInt64], _ paths: [(BoundPath, Bool)]) -> [QueryScalar] {
        var values: [QueryScalar] = []
        values.reserveCapacity(keys.count * paths.count)
        for key in keys {
            if let row = evaluator.fetch(info, key) {
                for (path, _) in paths { values.append(evaluator.firstValue(path, key, row)) }
            } else {
                values.append(contentsOf: repeatElement(.null, count: paths.count))
            }
        }
        return values
    }

    /// `keys` without those whose values at `names` equal an earlier key's.
    func distinct(_ keys: [UInt64], _ names: [String]) -> [UInt64] {
        let paths: [BoundPath]
        do {
            paths = try distinctPaths(names)
        } catch {
            // Checked when the query was built: failing now means the schema changed since.
            database.reportReadFailure(error, while: "Binding distinct(by: \(names.joined(separator: ", "))) of '\(info.name)'")
            return keys
        }
        var seen = Set<[UInt8]>()
        return keys.filter { key in
            guard let row = evaluator.fetch(info, key) else { return false }
            return seen.insert(identity(of: row, key: key, at: paths)).inserted
        }
    }

    /// The key paths `names` of `distinct(by:)`, bound.
    func distinctPaths(_ names: [String]) throws -> [BoundPath] {
        let binder = PredicateBinder(rootClass: info.name, database: database, rootInfo: info)
        return try names.map { try binder.bindPath(QueryKeyPath(components: $0.split(separator: ".").map(String.init))) }
    }

    /// The bytes that make two objects the same for `distinct`: their values at `paths`, with
    /// the values equal for comparisons (0.0 and -0.0) made one.
    private func identity(of row: RowView, key: UInt64, at paths: [BoundPath]) -> [UInt8] {
        var identity: [UInt8] = []
        for path in paths {
            _ = evaluator.walk(path, 0, key, row) { read in
                switch path.scalar(read) {
                case .double(let v), .date(let v):
                    identity.append(2)
                    identity.appendLittleEndian((v == 0 ? 0 : v).bitPattern, count: 8)
                default:
                    switch read {
                    case .value(let bytes):
                        identity.append(1)
                        identity.appendLittleEndian(UInt64(bytes.count), count: 4)
                        identity.append(contentsOf: bytes)
                    case .null, .absent:
                        identity.append(0)
                    }
                }
                return false
            }
        }
        return identity
    }
}

extension ExecutionPlan {
    /// The plan with its candidates taken as matches (an index answered the predicate exactly).
    var withoutTest: ExecutionPlan {
        var plan = self
        plan.test = .none
        return plan
    }
}
