/// Evaluating a query: candidates from the plan, the predicate on each row, then sorting,
/// distinct and the limit.
extension Results {
    /// A binder for this query's class against the file's current schema.
    func binder() -> PredicateBinder {
        PredicateBinder(rootClass: query.className, database: database, rootInfo: storedClassInfo)
    }

    /// The file's runtime information of the query's class (what ``Database/classInfo(named:)``
    /// gives for it), without hashing its name for a model class.
    var storedClassInfo: ClassInfo? {
        query.isDynamic ? database.classInfo(named: query.className) : database.boundClassInfo(of: Element.self)
    }

    /// Evaluates the query in the current version. With `limitOverride` (for `first` and
    /// `isEmpty`), unsorted results stop after that many matches.
    func evaluateKeys(limitOverride: Int?) -> [UInt64] {
        // Queries read collection columns from rows: write buffered collections back first.
        database.flushPendingWritesIfWriting()
        guard let info = classInfo, !info.isDiscarded, let txn = database.readableTxn() else { return [] }
        var predicate: BoundPredicate?
        if query.filter != nil {
            // Checked when the query was built; failing now means the schema changed since.
            guard let bound = boundPredicate() else { return [] }
            predicate = bound
        }
        let ordered = query.sort.isEmpty && query.distinct.isEmpty
        let smallest = Swift.min(query.limit ?? .max, limitOverride ?? .max)
        let limitAny: Int? = smallest == .max ? nil : smallest
        let earlyLimit = ordered ? limitAny : nil
        let evaluator = QueryEvaluator(txn: txn)
        var keys: [UInt64] = []
        // Sort keys are read from the rows as they are visited (they stay put while nothing is
        // written), instead of looking every match up again to sort it.
        let sortPaths = query.sort.isEmpty ? nil : sortPaths(binder())
        // A sorted prefix by one column keeps only its best matches; other sorts keep values.
        var top = sortPaths.flatMap { TopWords($0, limit: query.distinct.isEmpty ? limitAny : nil) }
        var sortValues = top == nil ? sortPaths.map(SortValues.init) : nil
        // Compiled when a row is first tested (an index that answers the query tests none), or
        // with the row test of a table scan.
        var compiled: QueryEvaluator.Compiled?
        func consider(_ key: UInt64, _ row: RowView) -> Bool {
            // Not `compiled ?? …`: passing a closure through a generic function wraps it in
            // conversion thunks, and storing the result back would nest one more pair per row.
            let test: QueryEvaluator.Compiled
            if let compiled {
                test = compiled
            } else {
                test = predicate.map { QueryEvaluator.compileForms($0).compiled } ?? { _, _, _ in true }
                compiled = test
            }
            if test(evaluator, key, row) {
                if top != nil {
                    top?.offer(key, row)
                } else {
                    keys.append(key)
                    sortValues?.add(key, row, evaluator)
                }
            }
            return earlyLimit.map { keys.count < $0 } ?? true
        }
        // A table scan split among threads (see `ParallelScan`): each part gathers its keys (with
        // their sort words for a full sort) or its best matches for a sorted prefix, joined in key
        // order. `false` if a part failed: the scan then runs on one thread.
        func split(_ scan: ParallelScan, _ filter: RowFilter) -> Bool {
            if let start = top {
                guard let parts = scan.map({ first, cursor, last in
                    var part = start
                    part.offerRows(from: first, cursor, through: last, passing: filter)
                    return part
                }) else { return false }
                top = parts.dropFirst().reduce(into: parts[0]) { $0.merge($1) }
            } else {
                let start = sortValues
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
                keys = joined
                if var merged = parts[0].values {
                    for part in parts.dropFirst() {
                        if let values = part.values { merged.append(values) }
                    }
                    sortValues = merged
                }
            }
            database.splitScanCount += 1
            return true
        }
        if earlyLimit == 0 { return [] }
        switch query.source {
        case .table:
            let plan = predicate.map { QueryPlanner.plan($0, info, txn: txn) } ?? .scan
            switch plan.access {
            case .none:
                break
            case .scan:
                // No filter, or a filter of the row alone (see `RowFilter`); else the general
                // form, compiled when the first row is tested.
                let filter: RowFilter? = if let predicate { RowFilter(predicate) } else { RowFilter() }
                // A large table is split among threads when every row must be read. Sort values
                // other than words may point into a part's snapshot: those scan on one thread.
                if let filter, earlyLimit == nil, sortValues?.sortsByWord ?? true, let scan = ParallelScan(database, info),
                    split(scan, filter)
                {
                    break
                }
                guard let cursor = try? Cursor(txn, info.objectsTable) else { break }
                let entry = try? cursor.first()
                if let filter, top != nil {
                    // A sorted prefix by one column.
                    top?.offerRows(from: entry, cursor, passing: filter)
                    break
                }
                if let filter, let earlyLimit {
                    keys = TableScan.firstKeys(database, info, from: entry, cursor, passing: filter, limit: earlyLimit)
                    break
                }
                if let filter, sortValues == nil {
                    // The common case, kept tight.
                    keys = TableScan.allKeys(from: entry, cursor, passing: filter)
                    break
                }
                if let filter {
                    keys = TableScan.keys(from: entry, cursor, passing: filter) { key, row in
                        sortValues?.add(key, row, evaluator)
                    }
                    break
                }
                cursor.forEachRow(from: entry, consider)
            default:
                guard let (candidates, exact) = try? QueryPlanner.candidates(plan, txn: txn, limit: earlyLimit) else { break }
                if plan.covers && exact && top == nil {
                    // The index answered the whole predicate: no row needs a look (a sorted
                    // prefix reads each candidate's sort value below).
                    keys = earlyLimit.map { candidates.count > $0 ? Array(candidates.prefix($0)) : candidates } ?? candidates
                    break
                }
                for key in candidates {
                    guard let row = evaluator.fetch(info, key) else { continue }
                    if !consider(key, row) { break }
                }
            }
        case .collection, .linkingObjects:
            for key in sourceKeys(txn) {
                guard let row = evaluator.fetch(info, key) else { continue }
                if !consider(key, row) { break }
            }
        }
        if let top {
            // Every match was offered to it while visiting.
            keys = top.keys()
        } else if let sortPaths {
            let limit = query.distinct.isEmpty ? limitAny : nil
            // Values gathered during the scan, or else read again from the rows.
            let order = sortValues?.order(matches: keys.count, limit: limit)
                ?? QuerySort.order(count: keys.count, sortKeyValues(keys, sortPaths, info, evaluator), sortPaths.map(\.1), limit: limit)
            keys = order.map { keys[$0] }
        }
        if !query.distinct.isEmpty { keys = distinct(keys, info, evaluator, binder()) }
        if let limit = limitAny, keys.count > limit { keys.removeSubrange(limit...) }
        return keys
    }

    /// The filters bound to the current schema, bound once per database generation.
    func boundPredicate() -> BoundPredicate? {
        if let bound = cache.bound, cache.boundGeneration == database.generation { return bound }
        guard let bound = try? binder().bind(query.predicate) else { return nil }
        cache.bound = bound
        cache.boundGeneration = database.generation
        return bound
    }

    /// The keys of a collection or of linking objects, in their order.
    private func sourceKeys(_ txn: Txn) -> [UInt64] {
        switch query.source {
        case .table:
            return []
        case .collection(let home):
            guard !home.isInvalidated else { return [] }
            return Database.linkedKeys(home.stored, kind: home.info.columnKinds[home.column])
        case .linkingObjects(let target, let origin, let property):
            guard let originInfo = database.classInfo(named: origin), let column = originInfo.stored.column(of: property),
                let table = originInfo.tables.backlinks[column], !target.isInvalidated
            else { return [] }
            return (try? txn.objectKeys(table, under: target._objdbKey)) ?? []
        }
    }

    // MARK: Sorting and distinct

    /// The sort key paths, bound; a key path that cannot be sorted by was rejected when the
    /// query was built, so failing here means the schema changed since.
    private func sortPaths(_ binder: PredicateBinder) -> [(BoundPath, Bool)]? {
        var paths: [(BoundPath, Bool)] = []
        for descriptor in query.sort {
            guard let path = try? binder.bindPath(QueryKeyPath(components: descriptor.keyPath.split(separator: ".").map(String.init))),
                !path.isToMany
            else { return nil }
            paths.append((path, descriptor.ascending))
        }
        return paths
    }

    /// The sort key values of `keys`, read from their rows, `paths.count` per key.
    private func sortKeyValues(_ keys: [UInt64], _ paths: [(BoundPath, Bool)], _ info: ClassInfo, _ evaluator: QueryEvaluator) -> [QueryScalar] {
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

    private func distinct(_ keys: [UInt64], _ info: ClassInfo, _ evaluator: QueryEvaluator, _ binder: PredicateBinder) -> [UInt64] {
        var paths: [BoundPath] = []
        for name in query.distinct {
            guard let path = try? binder.bindPath(QueryKeyPath(components: name.split(separator: ".").map(String.init))) else { return keys }
            paths.append(path)
        }
        var seen = Set<[UInt8]>()
        return keys.filter { key in
            guard let row = evaluator.fetch(info, key) else { return false }
            var identity: [UInt8] = []
            for path in paths {
                _ = evaluator.walk(path, 0, key, row) { read in
                    // Values equal for comparisons are one value for distinct: 0.0 and -0.0.
                    switch QueryScalar(read, path.leafType) {
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
            return seen.insert(identity).inserted
        }
    }

    // MARK: Checking

    /// A binder that also knows the model classes the file does not store yet, for checking a
    /// query when it is built.
    func checkingBinder() -> PredicateBinder {
        PredicateBinder(
            rootClass: query.className, database: database, models: query.isDynamic ? nil : ModelClasses(Element.self),
            rootInfo: storedClassInfo)
    }

    /// Checks the filters against the schema (throwing ``ObjDBError/Code/invalidQuery``) and, when
    /// the file has every class involved, keeps the bound form for the first evaluation.
    func checkPredicates() throws {
        // Bound against the file's classes alone, as most queries are, it is also checked: a
        // binding that finds every class in the file does not look at the models.
        let bound: BoundPredicate
        if let plain = try? binder().bind(query.predicate) {
            bound = plain
        } else {
            let binder = checkingBinder()
            bound = try binder.bind(query.predicate)
            // Bound with classes the file lacks: evaluation binds again once the file has them.
            if binder.models?.used ?? false { return }
        }
        cache.bound = bound
        cache.boundGeneration = database.generation
    }

    /// The plan the query uses in the current version (for tests and tools).
    var plan: QueryPlan {
        database.flushPendingWritesIfWriting()
        guard let info = classInfo, let txn = database.readableTxn() else { return .scan }
        guard case .table = query.source else { return .scan }
        guard query.filter != nil, let bound = boundPredicate() else { return .scan }
        return QueryPlanner.plan(bound, info, txn: txn)
    }

    /// The number of matches counted from an index alone, when the query is one comparison an
    /// index answers exactly; `nil` otherwise.
    func indexCount() -> Int? {
        guard case .table = query.source, query.sort.isEmpty, query.distinct.isEmpty, query.limit == nil,
            query.filter != nil, let info = classInfo, !info.isDiscarded
        else { return nil }
        database.flushPendingWritesIfWriting()
        guard let txn = database.readableTxn(), let bound = boundPredicate() else { return nil }
        return (try? QueryPlanner.count(QueryPlanner.plan(bound, info, txn: txn), txn: txn)) ?? nil
    }

    /// How the query finds its objects: `table scan`, `index lookup on name (1 value)`, … For
    /// tests and tools; the wording may change.
    @_spi(Inspection)
    public var queryPlan: String { plan.description }
}

/// The model classes linked from a class, described as the file would store them: what checks a
/// query on a class the file does not have yet. Computed on first need.
final class ModelClasses {
    /// The model class the others are linked from.
    private let root: ObjectBase.Type
    private var classes: [String: StoredClass]?
    /// Whether a class was looked up here (so a binding used classes the file lacks).
    private(set) var used = false

    /// The classes linked from `root`.
    init(_ root: ObjectBase.Type) { self.root = root }

    /// The stored description of the model class named `name`, if `root` links to it.
    func storedClass(named name: String) -> StoredClass? {
        used = true
        if classes == nil {
            var found: [String: StoredClass] = [:]
            for layout in (try? SchemaDiscovery.layoutsLinked(from: [root])) ?? [] {
                var scratch = StoredSchema()
                found[layout.className] = scratch.addClass(layout.schema)
            }
            classes = found
        }
        return classes?[name]
    }
}
