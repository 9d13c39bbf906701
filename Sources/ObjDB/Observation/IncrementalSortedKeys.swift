/// The fast path of notifications for sorted results: their new keys from the old ones and a
/// commit's change set, without evaluating and sorting the query again.
///
/// It applies to results of a table sorted by columns of the class itself (no key path through
/// a link), without distinct or limit, whose filter — if any — reads each object's own row
/// (``Results/ownRowSort()``). Only the objects the commit inserted, deleted or modified can then
/// join, leave or move. Each is found in the old keys by a binary search on its sort values in
/// the old version, and placed in the new keys by a binary search on the new version's; the
/// others keep their order. Objects with equal sort values are in ascending key order, as every
/// evaluation leaves them (its candidates come in key order and the sort is stable, also when
/// descending), so the key ends every comparison. A delivery costs O(k log n) row reads for k
/// changed objects among n results, plus a few passes over the n keys to copy and diff them,
/// where evaluating again costs the query, a sort of n values and the diff.
///
/// Its slow twin is the evaluation: internal checks compare both on every delivery that takes
/// the fast path, and `OBJDB_DISABLE_FAST_PATHS=incrementalSortedResults` switches it off.
enum IncrementalSortedKeys {
    /// Commits that change more objects than this are evaluated again.
    static let largestChange = 64

    /// What orders the results: the sort's paths (each one column of the class) and directions.
    struct Order {
        /// The column of each sort key.
        let columns: [Int]
        /// The bound path of each sort key, which decodes its column.
        let paths: [BoundPath]
        /// The direction of each sort key.
        let ascending: [Bool]

        /// The sort values of `row`.
        func values(_ row: RowView) -> [QueryScalar] {
            var values: [QueryScalar] = []
            values.reserveCapacity(columns.count)
            for (index, column) in columns.enumerated() { values.append(paths[index].scalar(row.column(column))) }
            return values
        }

        /// Whether object `a` (its sort values and key) sorts before (-1) or after (1) object
        /// `b`, as the query's sort orders them: by the values, then by key ascending. 0 only
        /// for the same object.
        func compare(_ a: [QueryScalar], _ aKey: UInt64, _ b: [QueryScalar], _ bKey: UInt64) -> Int {
            for index in a.indices {
                let c = QueryOrder.sortCompare(a[index], b[index])
                if c != 0 { return ascending[index] ? c : -c }
            }
            return aKey < bKey ? -1 : (aKey > bKey ? 1 : 0)
        }

        /// Whether `a` and `b` are equal sort values (an object whose values did not change stays).
        func same(_ a: [QueryScalar], _ b: [QueryScalar]) -> Bool {
            a.indices.allSatisfy { QueryOrder.sortCompare(a[$0], b[$0]) == 0 }
        }
    }

    /// Why the fast path gives up: the caller evaluates the results again.
    private struct GiveUp: Error {}

    /// The keys after `changes` and their diff from `old` (the keys in `oldTxn`'s version), or
    /// `nil` when the results must be evaluated again: modifications not listed one by one, too
    /// many changed objects, or a row that could not be read or is damaged (the evaluation
    /// reports it). `watched` tells whether a modification of the given columns counts.
    static func update(
        _ old: [UInt64], _ changes: ClassChangeSet, rowTest: ((RowView) -> Bool)?, order: Order, table: Table,
        oldTxn: Txn, newTxn: Txn, watched: (ColumnSet) -> Bool
    ) -> (keys: [UInt64], diff: CollectionDiff)? {
        guard changes.unlistedModifications == nil else { return nil }
        let changed = changes.inserted.count + changes.deleted.count + UInt64(changes.modified.count)
        guard changed <= UInt64(largestChange) else { return nil }
        let modified = changes.modified.compactMap { key, columns in watched(columns) ? key : nil }.sorted()
        var candidates = changes.inserted.keys + changes.deleted.keys + changes.modified.keys
        candidates.sort()
        do {
            var gone: [Int] = []  // old indices of objects that left
            var added: [Placed] = []  // objects that joined or moved
            var previous: UInt64?
            for key in candidates where key != previous {
                previous = key
                let before = try row(key, table, oldTxn).map(order.values)
                let oldIndex = try before.flatMap { try index(of: key, values: $0, in: old, order: order, table: table, txn: oldTxn) }
                var after: [QueryScalar]?
                if !changes.deleted.contains(key), let row = try row(key, table, newTxn), rowTest?(row) ?? true {
                    after = order.values(row)
                }
                switch (oldIndex, after) {
                case (let index?, let values?):
                    if let before, order.same(before, values) { continue }  // stays where it was
                    added.append(Placed(key: key, values: values, oldIndex: index))
                case (let index?, nil): gone.append(index)
                case (nil, let values?): added.append(Placed(key: key, values: values, oldIndex: nil))
                case (nil, nil): break
                }
            }
            guard !gone.isEmpty || !added.isEmpty else {
                let inPlace = modified.isEmpty ? [] : old.indices.filter { CollectionDiff.sortedContains(modified, old[$0]) }
                return (old, CollectionDiff(modifications: inPlace))
            }
            let moved = added.compactMap { $0.oldIndex }
            let left = (gone + moved).sorted()
            var base: [UInt64] = []
            base.reserveCapacity(old.count - left.count)
            var next = 0
            for (index, key) in old.enumerated() {
                if next < left.count && left[next] == index { next += 1 } else { base.append(key) }
            }
            let (keys, placed) = try insert(added, into: base, order: order, table: table, txn: newTxn)
            let diff: CollectionDiff
            if CollectionDiff.ascending(old) && CollectionDiff.ascending(keys) {
                diff = CollectionDiff.between(old, keys, inKeyOrder: true, modified: modified)
            } else {
                let movedTo = placed.filter { $0.oldIndex != nil }.sorted { $0.oldIndex ?? 0 < $1.oldIndex ?? 0 }
                let arrived = placed.map(\.newIndex)  // ascending: placed in new order
                diff = CollectionDiff.reordered(old, keys, modified: modified) { prefix, oldEnd, newEnd in
                    survivors(prefix, oldEnd, newEnd, left: left, arrived: arrived, moved: movedTo)
                }
            }
            // Broken on purpose for the check's own test (never outside internal checks).
            if FastPaths.broken.contains(.incrementalSortedResults) { return (keys.reversed(), diff) }
            return (keys, diff)
        } catch {
            return nil  // a row that could not be read or is damaged: evaluating again reports it
        }
    }

    /// An object that joins the results or moves in them: its sort values, and its index in the
    /// old keys if it moves.
    private struct Placed {
        let key: UInt64
        let values: [QueryScalar]
        let oldIndex: Int?
    }

    /// The objects in both middles, for ``CollectionDiff/reordered(_:_:modified:survivors:)``,
    /// without hashing: the objects that stayed untouched keep their order, so the n-th of them in
    /// the old middle is the n-th in the new one. `left` lists the old indices of objects that
    /// left or moved, `arrived` the new indices of those that joined or moved (both ascending),
    /// `moved` the old and new indices of those that moved, by old index.
    ///
    /// - Complexity: O(w) for middles of w objects.
    private static func survivors(
        _ prefix: Int, _ oldEnd: Int, _ newEnd: Int, left: [Int], arrived: [Int], moved: [(oldIndex: Int?, newIndex: Int)]
    ) -> CollectionDiff.Survivors {
        var survivors = CollectionDiff.Survivors()
        var nextLeft = 0, nextArrived = 0, nextMoved = 0
        while nextLeft < left.count && left[nextLeft] < prefix { nextLeft += 1 }
        while nextMoved < moved.count && (moved[nextMoved].oldIndex ?? 0) < prefix { nextMoved += 1 }
        var newIndex = prefix
        for oldIndex in prefix..<oldEnd {
            if nextLeft < left.count && left[nextLeft] == oldIndex {
                nextLeft += 1
                if nextMoved < moved.count && moved[nextMoved].oldIndex == oldIndex {
                    survivors.old.append(oldIndex - prefix)
                    survivors.new.append(moved[nextMoved].newIndex - prefix)
                    nextMoved += 1
                }
                continue
            }
            while nextArrived < arrived.count && arrived[nextArrived] < newIndex { nextArrived += 1 }
            while nextArrived < arrived.count && arrived[nextArrived] == newIndex {
                nextArrived += 1
                newIndex += 1
            }
            guard newIndex < newEnd else {
                // Both middles hold the same untouched objects, so this cannot happen.
                internalCheck(false, "incremental sorted results: more untouched objects in the old middle than in the new")
                break
            }
            survivors.old.append(oldIndex - prefix)
            survivors.new.append(newIndex - prefix)
            newIndex += 1
        }
        return survivors
    }

    /// `added` placed in `base` (in `txn`'s sort order) by binary search: the new keys, and each
    /// object placed with its new index, in new order.
    private static func insert(
        _ added: [Placed], into base: [UInt64], order: Order, table: Table, txn: Txn
    ) throws -> (keys: [UInt64], placed: [(oldIndex: Int?, newIndex: Int)]) {
        var sorted = added
        sorted.sort { order.compare($0.values, $0.key, $1.values, $1.key) < 0 }
        var positions: [Int] = []
        for item in sorted {
            positions.append(try lowerBound(item.values, item.key, in: base, order: order, table: table, txn: txn))
        }
        var keys: [UInt64] = []
        keys.reserveCapacity(base.count + sorted.count)
        var placed: [(oldIndex: Int?, newIndex: Int)] = []
        var next = 0
        for (index, key) in base.enumerated() {
            while next < sorted.count && positions[next] == index {
                placed.append((sorted[next].oldIndex, keys.count))
                keys.append(sorted[next].key)
                next += 1
            }
            keys.append(key)
        }
        while next < sorted.count {
            placed.append((sorted[next].oldIndex, keys.count))
            keys.append(sorted[next].key)
            next += 1
        }
        return (keys, placed)
    }

    /// The index of `key`, whose sort values are `values`, in `keys` (sorted in `txn`'s version);
    /// `nil` if it is not there.
    private static func index(
        of key: UInt64, values: [QueryScalar], in keys: [UInt64], order: Order, table: Table, txn: Txn
    ) throws -> Int? {
        let index = try lowerBound(values, key, in: keys, order: order, table: table, txn: txn)
        return index < keys.count && keys[index] == key ? index : nil
    }

    /// The first position in `keys` whose object does not sort before the object `key` with
    /// sort values `values`.
    private static func lowerBound(
        _ values: [QueryScalar], _ key: UInt64, in keys: [UInt64], order: Order, table: Table, txn: Txn
    ) throws -> Int {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            let other = keys[middle]
            guard let row = try row(other, table, txn) else { throw GiveUp() }
            if order.compare(order.values(row), other, values, key) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The row of the object `key` in `txn`'s version, `nil` if it does not exist; throws if it
    /// cannot be read or is damaged (not a row, or not matching its checksum).
    private static func row(_ key: UInt64, _ table: Table, _ txn: Txn) throws -> RowView? {
        guard let bytes = try txn.get(table, key: key) else { return nil }
        guard let row = RowReader.sound(key: key, bytes) else { throw GiveUp() }
        return row
    }
}

extension Results {
    /// For results of a table sorted by columns of the class itself, without distinct or limit,
    /// whose filter (if any) reads each object's own row alone: the filter as a test of one row
    /// (`nil` without a filter) and the sort's order; `nil` otherwise. Observers use them to
    /// update sorted results from a commit's changes (``IncrementalSortedKeys``).
    func ownRowSort() -> (rowTest: ((RowView) -> Bool)?, order: IncrementalSortedKeys.Order)? {
        guard case .table = query.source, !query.sort.isEmpty, query.distinct.isEmpty, query.limit == nil, query.later.isEmpty
        else { return nil }
        var rowTest: ((RowView) -> Bool)?
        if query.filter != nil {
            guard let predicate = boundPredicate(), let test = QueryEvaluator.compileForms(predicate).rowTest else { return nil }
            rowTest = test
        }
        guard let sort = sortPaths(binder()) else { return nil }
        var columns: [Int] = []
        for (path, _) in sort {
            guard let column = path.directValueColumn else { return nil }
            columns.append(column)
        }
        return (rowTest, IncrementalSortedKeys.Order(columns: columns, paths: sort.map(\.0), ascending: sort.map(\.1)))
    }
}
