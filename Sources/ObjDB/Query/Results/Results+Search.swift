/// Full-text search ordered by relevance.
extension Results {
    /// The objects whose full-text indexed property `keyPath` holds the words of `text`, the
    /// most relevant first (Okapi BM25: rarer words and more occurrences in shorter texts rank
    /// higher; ties keep the results' order: a sort made before the search, else object-key
    /// order).
    ///
    /// ```swift
    /// final class Note: Object {
    ///     @Persisted(primaryKey: true) var id: Int = 0
    ///     @Persisted(fullTextIndexed: true) var body: String = ""
    /// }
    /// let hits = db.objects(Note.self).search("swift data", in: \.body)
    /// let best = hits.prefix(10)                       // the ten most relevant
    /// ```
    ///
    /// `text` has the syntax of a `TEXT` predicate (`"swift -objc data*"`, see `Docs/FullTextSearch.md`);
    /// only its required words count for relevance. Filters added before or after apply to the
    /// search; a later `sorted(by:)` replaces the relevance order, and a `prefix(n)` then keeps
    /// the first `n` of that order, as a limit always applies after sorting.
    ///
    /// A property without a full-text index is a programmer error (a predicate string's `TEXT`
    /// throws instead).
    ///
    /// - Complexity: the postings of the search's words, read once to match and once to rank.
    public func search(_ text: String, in keyPath: KeyPath<Element, String>) -> Results<Element> {
        search(text, property: KeyPathNames.require(keyPath, "search(_:in:)"))
    }

    /// ``search(_:in:)`` over an optional string property.
    public func search(_ text: String, in keyPath: KeyPath<Element, String?>) -> Results<Element> {
        search(text, property: KeyPathNames.require(keyPath, "search(_:in:)"))
    }

    /// ``search(_:in:)`` with the property named.
    func search(_ text: String, property: String) -> Results<Element> {
        let path = QueryKeyPath(components: property.split(separator: ".").map(String.init))
        let comparison = QueryComparison(left: .keyPath(path), op: .text, right: .value(.string(text)))
        let results = with {
            $0.addFilter(.comparison(comparison))
            $0.later.removeAll { if case .rank = $0 { true } else { false } }
            $0.later.append(.rank(property: property, FullTextQuery(text)))
        }
        do {
            try results.checkPredicates()
        } catch {
            objdbFatal("Results.search(_:in:): \(error)")
        }
        return results
    }

    /// `keys` the most relevant first to `query` in the full-text index of `property` (stable:
    /// ties keep their order). Keys are left as they are when the class has no such index.
    func ranked(_ keys: [UInt64], property: String, _ query: FullTextQuery, txn: Txn) -> [UInt64] {
        guard keys.count > 1, let info = classInfo, let column = info.stored.column(of: property), let table = info.tables.fullText[column],
            info.stored.properties[column].fullTextIsCurrent
        else { return keys }
        let ascending = FullTextIndexReader.sortedUnique(keys)
        let scores: [Double]
        do {
            scores = try FullTextIndexReader(table: table, txn: txn).scores(ascending, query)
        } catch {
            database.reportReadFailure(error, while: "ranking the results of a full-text search")
            return keys
        }
        func score(_ key: UInt64) -> Double {
            var low = 0
            var high = ascending.count
            while low < high {
                let middle = (low + high) / 2
                if ascending[middle] < key { low = middle + 1 } else { high = middle }
            }
            return low < ascending.count && ascending[low] == key ? scores[low] : 0
        }
        let keyed = keys.enumerated().map { (index: $0.offset, key: $0.element, score: score($0.element)) }
        return keyed.sorted { $0.score != $1.score ? $0.score > $1.score : $0.index < $1.index }.map(\.key)
    }
}
