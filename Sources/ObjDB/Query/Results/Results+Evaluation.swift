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
        withExecution(limitOverride: stoppingAfter(limitOverride)) { executor, plan in
            let keys = executor.run(plan)
            return query.later.isEmpty ? keys : applyLaterStages(keys, executor)
        } ?? []
    }

    /// The first match, read with the class information its evaluation looked up rather than
    /// looking it up again.
    func evaluateFirst() -> Element? {
        // The closure returns a concrete type, and calls no method of the results but on the rare
        // path: `Element?`, or a call to a helper, would make this unspecialized generic code look
        // up `Optional<Element>`'s or `Results<Element>`'s metadata at run time on every call.
        let found = withExecution(limitOverride: stoppingAfter(1)) { executor, plan -> ObjectBase? in
            var keys = executor.run(plan)
            if !query.later.isEmpty { keys = applyLaterStages(keys, executor) }
            guard let key = keys.first else { return nil }
            return database.object(Element.self, executor.info, key: key)
        }
        guard let found, let object = found else { return nil }
        return unsafeDowncast(object, to: Element.self)
    }

    /// `limit` unless the query has later stages: those apply to everything the query above
    /// them gives, so that one cannot stop early.
    private func stoppingAfter(_ limit: Int?) -> Int? { query.later.isEmpty ? limit : nil }

    /// `keys` through the query's later stages (``ResultsQuery/later``), in order.
    private func applyLaterStages(_ keys: [UInt64], _ executor: borrowing QueryExecutor) -> [UInt64] {
        var keys = keys
        for stage in query.later {
            switch stage {
            case .sort(let descriptors):
                guard let paths = sortPaths(binder(), descriptors) else { return [] }
                let values = executor.sortKeyValues(keys, paths)
                let order = QuerySort.order(count: keys.count, values, paths.map(\.1), limit: nil)
                keys = order.map { keys[$0] }
            case .distinct(let keyPaths):
                keys = executor.distinct(keys, keyPaths)
            case .limit(let count):
                if keys.count > count { keys.removeSubrange(count...) }
            case .rank(let property, let query):
                keys = ranked(keys, property: property, query, txn: executor.txn)
            }
        }
        return keys
    }

    /// `body` with the plan of an evaluation in the current version and the executor that runs
    /// it; `nil` when nothing can be evaluated: the class is not in the file (or was discarded),
    /// no read snapshot could be begun, or the schema changed so that the query no longer binds
    /// (both reported through the read-failure channel). Both are lent to `body`, not returned:
    /// returning them as a pair copied them and destroyed them twice for every evaluation.
    func withExecution<R>(limitOverride: Int?, _ body: (borrowing QueryExecutor, borrowing ExecutionPlan) -> R) -> R? {
        // Queries read collection columns from rows: write buffered collections back first.
        database.flushPendingWritesIfWriting()
        guard let info = classInfo, !info.isDiscarded, let txn = database.readableTxn() else { return nil }
        var predicate: BoundPredicate?
        if query.filter != nil {
            guard let bound = boundPredicate() else { return nil }
            predicate = bound
        }
        var sort: [(BoundPath, Bool)] = []
        if !query.sort.isEmpty {
            guard let paths = sortPaths(binder()) else { return nil }
            sort = paths
        }
        let plan = QueryPlanner.executionPlan(query, predicate: predicate, sort: sort, info: info, txn: txn, limitOverride: limitOverride)
        // A query on a table has no elements: no closure, whose context (a copy of the results)
        // would be allocated for every evaluation.
        var elements: (() -> [UInt64])?
        if case .table = query.source {} else { elements = { sourceKeys(txn) } }
        // The executor holds the database and `info` unretained: both live until it is done.
        return withExtendedLifetime(info) {
            body(QueryExecutor(database: database, info: info, txn: txn, elements: elements), plan)
        }
    }

    /// For results of a table in key order (no sort, distinct or limit) whose filter reads each
    /// object's own row alone — no links, collections, linking objects or object keys — the
    /// filter as a test of one row; `nil` otherwise. Observers use it to update the results from
    /// a commit's changes (``IncrementalKeys``).
    func ownRowTest() -> ((RowView) -> Bool)? {
        guard case .table = query.source, query.filter != nil, query.sort.isEmpty, query.distinct.isEmpty, query.limit == nil, query.later.isEmpty,
            let predicate = boundPredicate()
        else { return nil }
        return QueryEvaluator.compileForms(predicate).rowTest
    }

    /// Makes `keys` the results' keys of the current version, as an evaluation would have.
    func adoptKeys(_ keys: [UInt64]) {
        cache.keys = keys
        cache.stamp = database.resultsStamp
    }

    /// How the query runs in the current version: where its candidates come from, how each is
    /// tested, and what happens after (see `Docs/Queries.md`). The wording is for people and may
    /// change between releases.
    ///
    /// ```swift
    /// print(people.where { $0.age > 50 }.sorted(by: \.score).prefix(10).explain())
    /// // table scan of Person, row test: one integer comparison, may split among threads
    /// // then: keep the best 10 by score ascending (heap), limit 10
    /// ```
    public func explain() -> String {
        if query.isPlainTable { return "every object of \(query.className), in object-key order" }
        return withExecution(limitOverride: nil) { _, plan in plan.description(of: query.className) }
            ?? "nothing to evaluate: the class \(query.className) is not in the file, or the query no longer matches its schema"
    }

    /// The filters bound to the current schema, bound once per database generation; `nil` (and
    /// reported) if they no longer bind: they were checked when the query was built, so the
    /// schema changed since.
    func boundPredicate() -> BoundPredicate? {
        if let bound = cache.bound, cache.boundGeneration == database.generation { return bound }
        do {
            let bound = try binder().bind(query.predicate)
            cache.bound = bound
            cache.boundGeneration = database.generation
            return bound
        } catch {
            database.reportReadFailure(error, while: "Binding a query on '\(query.className)'")
            return nil
        }
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
                !target.isInvalidated
            else { return [] }
            do {
                return try originInfo.linkingKeys(to: target._objdbKey, through: column, txn: txn)
            } catch {
                database.reportReadFailure(error, while: "Reading the linking objects of '\(origin).\(property)'")
                return []
            }
        }
    }

    // MARK: Sorting

    /// The sort key paths, bound; `nil` (reported) if one no longer binds or is to-many: it was
    /// checked when the query was built, so the schema changed since.
    func sortPaths(_ binder: PredicateBinder, _ descriptors: [SortDescriptor]? = nil) -> [(BoundPath, Bool)]? {
        var paths: [(BoundPath, Bool)] = []
        for descriptor in descriptors ?? query.sort {
            do {
                let path = try binder.bindPath(QueryKeyPath(components: descriptor.keyPath.split(separator: ".").map(String.init)))
                guard !path.isToMany else {
                    throw ObjDBError(.invalidQuery, "Cannot sort by '\(descriptor.keyPath)': it is to-many", className: query.className)
                }
                paths.append((path, descriptor.ascending))
            } catch {
                database.reportReadFailure(error, while: "Binding the sort of a query on '\(query.className)'")
                return nil
            }
        }
        return paths
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
        // try?: a predicate that does not bind to the file's classes alone is bound again with the
        // models below, which throws the error if it does not bind at all.
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
        guard case .table = query.source, query.sort.isEmpty, query.distinct.isEmpty, query.limit == nil, query.later.isEmpty,
            query.filter != nil
        else { return nil }
        return withExecution(limitOverride: nil) { executor, plan in executor.countFromIndex(plan) } ?? nil
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
            // try?: models that cannot be described add no class; binding then reports the class
            // it cannot find.
            for layout in (try? SchemaDiscovery.layoutsLinked(from: [root])) ?? [] {
                var scratch = StoredSchema()
                found[layout.className] = scratch.addClass(layout.schema)
            }
            classes = found
        }
        return classes?[name]
    }
}
