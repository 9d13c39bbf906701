/// The objects of a class, or of a collection, that match a query: live and lazily evaluated.
///
/// ```swift
/// let people = db.objects(Person.self)
/// people.count                                   // O(1), no objects read
/// let adults = people.where { $0.age >= 18 }      // nothing evaluated yet
/// let named = try people.filter("name BEGINSWITH[c] %@", "a").sorted(byKeyPath: "age")
/// for person in named { … }                       // evaluated once for this version
/// ```
///
/// Results always reflect the current version of their ``Database``, including the changes of
/// its write transaction in progress. Filtering, sorting, `distinct` and `prefix` compose into
/// one query; it is evaluated on first access and its matching object keys are cached until the
/// database moves to another version. Iterating creates objects one at a time and keeps none.
public struct Results<Element: ObjectBase>: RandomAccessCollection, CustomStringConvertible {
    /// The database the results read.
    public let database: Database
    /// What the results are.
    let query: ResultsQuery
    /// The keys of the last evaluation and the bound filters. Results of every object of a class
    /// share their database's (``Database/tableResultsCache(_:)``): nothing in it depends on
    /// anything but the class and the version it is stamped with.
    let cache: ResultsCache

    init(database: Database, query: ResultsQuery) {
        self.database = database
        self.query = query
        cache = ResultsCache()
    }

    /// Every object of `Element`'s class.
    init(database: Database) {
        self.database = database
        query = ResultsQuery(className: database.className(of: Element.self))
        cache = database.tableResultsCache(Element.self)
    }

    /// The class's runtime information, `nil` while the file has no objects of the class yet.
    var classInfo: ClassInfo? {
        if query.isDynamic { return database.classInfo(named: query.className) }
        return database.classInfoForRead(Element.self, "Results")
    }

    /// `0`.
    public var startIndex: Int { 0 }

    /// The number of objects.
    public var endIndex: Int { count }

    /// The number of objects.
    ///
    /// - Complexity: O(1) for every object of a class; for one comparison an index answers
    ///   exactly, the number of matching index entries, without reading rows; otherwise the
    ///   first access after a change evaluates the query.
    public var count: Int {
        if query.isPlainTable {
            guard let info = classInfo else { return 0 }
            return database.rows.count(info)
        }
        if let keys = cachedKeys { return keys.count }
        if let counted = indexCount() { return counted }
        return objectKeys().count
    }

    /// Whether there are no objects.
    public var isEmpty: Bool {
        if query.isPlainTable { return count == 0 }
        if let keys = cachedKeys { return keys.isEmpty }
        return evaluateKeys(limitOverride: 1).isEmpty
    }

    /// The object at `position`.
    ///
    /// - Complexity: O(log n) once the keys of the current version are known; the first access
    ///   after a change evaluates the query.
    public subscript(position: Int) -> Element {
        let keys = objectKeys()
        objdbPrecondition(position >= 0 && position < keys.count, "Results index \(position) out of range 0..<\(keys.count)")
        guard let info = classInfo else {
            objdbFatal("Internal error: Results of a class the file does not have hold objects (an ObjDB bug; please report it)")
        }
        // A list or a set of a damaged file can name an object that does not exist.
        return database.object(Element.self, info, key: keys[position])
            ?? database.danglingObject(Element.self, className: info.name, key: keys[position], "The results of '\(info.name)'")
    }

    /// The first object; for unsorted results it stops at the first match.
    public var first: Element? {
        if query.isPlainTable { return edge(last: false) }
        guard let keys = cachedKeys else { return evaluateFirst() }
        guard let key = keys.first, let info = classInfo else { return nil }
        return database.object(Element.self, info, key: key)
    }

    /// The last object.
    public var last: Element? {
        if query.isPlainTable { return edge(last: true) }
        guard let key = objectKeys().last, let info = classInfo else { return nil }
        return database.object(Element.self, info, key: key)
    }

    /// The position of `object`, if it is one of these results.
    public func index(of object: Element) -> Int? {
        guard object._objdbDatabase === database, let info = classInfo, object._objdbInfo === info else { return nil }
        let keys = objectKeys()
        guard query.isPlainTable else { return keys.firstIndex(of: object._objdbKey) }
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < object._objdbKey { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == object._objdbKey ? low : nil
    }

    /// `Results<Person> (3 objects)`.
    public var description: String { "Results<\(query.className)> (\(count) objects)" }

    /// Iterates over the objects of the current version.
    public func makeIterator() -> Iterator {
        if query.isPlainTable { return Iterator(database: database, info: classInfo) }
        return Iterator(database: database, info: classInfo, keys: objectKeys())
    }

    /// The matching object keys of the current version, in result order, cached until it changes.
    func objectKeys() -> [UInt64] {
        if let keys = cachedKeys { return keys }
        let keys = query.isPlainTable ? tableKeys() : evaluateKeys(limitOverride: nil)
        cache.keys = keys
        cache.stamp = database.resultsStamp
        return keys
    }

    /// The cached keys, if they belong to the current version.
    var cachedKeys: [UInt64]? {
        guard let keys = cache.keys, cache.stamp == database.resultsStamp else { return nil }
        return keys
    }

    /// Every key of the class table.
    private func tableKeys() -> [UInt64] {
        var keys: [UInt64] = []
        guard let info = classInfo, let txn = database.readableTxn() else { return keys }
        do {
            let cursor = try Cursor(txn, info.tables.objects)
            keys.reserveCapacity(database.rows.count(info))
            var entry = try cursor.first()
            while let current = entry {
                keys.append(current.objectKey)
                entry = try cursor.next()
            }
        } catch {
            database.reportReadFailure(error, while: "Reading the objects of '\(info.name)'")
        }
        return keys
    }

    private func edge(last: Bool) -> Element? {
        guard let info = classInfo, let txn = database.readableTxn() else { return nil }
        do {
            let cursor = try Cursor(txn, info.tables.objects)
            guard let entry = try last ? cursor.last() : cursor.first() else { return nil }
            return database.materialize(Element.self, info, key: entry.objectKey, row: database.rows.checked(info, key: entry.objectKey, entry.value))
        } catch {
            database.reportReadFailure(error, while: "Reading the \(last ? "last" : "first") object of '\(info.name)'")
            return nil
        }
    }
}

/// Keys cached by a ``Results`` for one version of the data (``Database/resultsStamp``).
///
/// Used only in its `Results`' isolation domain, like the `Results` itself, and never while
/// another access to it is under way: the properties skip the run-time exclusivity checks,
/// which cost more than the reads they guard on an indexed lookup.
final class ResultsCache {
    @exclusivity(unchecked) var stamp: (UInt64, UInt64) = (0, 0)
    @exclusivity(unchecked) var keys: [UInt64]?
    /// The filters bound at `boundGeneration`.
    @exclusivity(unchecked) var bound: BoundPredicate?
    @exclusivity(unchecked) var boundGeneration: UInt64 = 0
}
