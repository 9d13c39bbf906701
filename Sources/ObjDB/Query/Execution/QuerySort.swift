/// Orders query matches by their sort values: stable, `nil` first, NaN after numbers (see
/// ``QueryOrder/sortCompare(_:_:)``), descending keys reversed except for ties.
enum QuerySort {
    /// The positions `0..<count` in sort order; with `limit`, only the first `limit`.
    ///
    /// `values` holds `ascending.count` values per position. When every value is a number, a
    /// date, a bool or `nil`, each is turned into one order-preserving word and the words are
    /// sorted directly; other values (strings, data, decimals, links) are compared as scalars.
    ///
    /// - Complexity: O(n log n), or O(n log limit) for a small limit.
    static func order(count: Int, _ values: [QueryScalar], _ ascending: [Bool], limit: Int?) -> [Int] {
        if let words = words(values, ascending) {
            let width = ascending.count
            if width == 1 { return orderSingle(words, limit: limit) }
            return order(count: count, limit: limit) { a, b in
                for i in 0..<width {
                    let (x, y) = (words[a * width + i], words[b * width + i])
                    if x != y { return x < y }
                }
                return a < b
            }
        }
        let width = ascending.count
        return order(count: count, limit: limit) { a, b in
            for i in 0..<width {
                let c = QueryOrder.sortCompare(values[a * width + i], values[b * width + i])
                if c != 0 { return ascending[i] ? c < 0 : c > 0 }
            }
            return a < b
        }
    }

    /// One sort word per value, in the order of its column's direction, or `nil` when a value has
    /// no word (a kind compared otherwise, or an integer whose word would equal `nil`'s).
    ///
    /// Ascending: `nil` is 0; integers are sign-flipped; doubles and dates use their bits with the
    /// sign bit set for non-negatives and every bit inverted for negatives (`-0.0` as `0.0`, NaN as
    /// the largest word, after `+infinity`); bools are 1 and 2. Descending inverts the word.
    static func words(_ values: [QueryScalar], _ ascending: [Bool]) -> [UInt64]? {
        let width = ascending.count
        var words = [UInt64](repeating: 0, count: values.count)
        // The kind of word each column holds: the words of two kinds do not order the values (a
        // mixed property's integers, doubles, dates and bools), which are then compared as scalars.
        var kinds = [UInt8](repeating: 0, count: width)
        for (index, value) in values.enumerated() {
            guard let word = word(value, ascending: ascending[index % width]) else { return nil }
            let kind = wordKind(value)
            if kind != 0 {
                let column = index % width
                if kinds[column] == 0 {
                    kinds[column] = kind
                } else if kinds[column] != kind {
                    return nil
                }
            }
            words[index] = word
        }
        return words
    }

    /// The kind of a value's sort word: 0 for `nil` (whose word orders with every kind), else one
    /// per kind of word.
    @inline(__always)
    static func wordKind(_ value: QueryScalar) -> UInt8 {
        switch value {
        case .int: 1
        case .double: 2
        case .date: 3
        case .bool: 4
        case .null, .decimal, .bytes, .object, .tagged: 0
        }
    }

    /// The sort word of one value (see ``words(_:_:)``).
    @inline(__always)
    static func word(_ value: QueryScalar, ascending: Bool) -> UInt64? {
        guard let word = ascendingWord(value) else { return nil }
        return directed(word, isNull: value.isNull, ascending: ascending)
    }

    /// The sort word in a direction, from the ascending word of a value; `nil` for `Int.min`,
    /// whose word is nil's.
    @inline(__always)
    static func directed(_ word: UInt64, isNull: Bool, ascending: Bool) -> UInt64? {
        if word == 0, !isNull { return nil }
        return ascending ? word : ~word
    }

    /// The ascending word of a value (see ``words(_:_:)``), where `Int.min` and `nil` share 0;
    /// `nil` for kinds compared as scalars (decimals, strings and other bytes, links).
    @inline(__always)
    static func ascendingWord(_ value: QueryScalar) -> UInt64? {
        switch value {
        case .null:
            return 0
        case .int(let v):
            return integerWord(v)
        case .double(let v), .date(let v):
            return doubleWord(v)
        case .bool(let v):
            return boolWord(v)
        case .decimal, .bytes, .object, .tagged:
            return nil
        }
    }

    /// The ascending word of an integer: its bits with the sign bit flipped (`Int.min` is 0,
    /// like nil).
    @inline(__always)
    static func integerWord(_ v: Int64) -> UInt64 { UInt64(bitPattern: v) ^ (1 << 63) }

    /// The ascending word of a bool, after nil's 0.
    @inline(__always)
    static func boolWord(_ v: Bool) -> UInt64 { v ? 2 : 1 }

    /// The ascending word of a double or date: NaN largest, `-0.0` as `0.0`.
    @inline(__always)
    static func doubleWord(_ v: Double) -> UInt64 {
        if v.isNaN { return .max }
        let bits = (v == 0 ? 0 : v).bitPattern
        return bits & (1 << 63) == 0 ? bits | (1 << 63) : ~bits
    }

    /// One word per position, in order of the words; equal words keep their positions' order
    /// (a stable radix sort, or a bounded insertion for a small limit).
    static func orderSingle(_ words: [UInt64], limit: Int?) -> [Int] {
        if let limit, limit < words.count / 4 {
            return order(count: words.count, limit: limit) { a, b in
                words[a] != words[b] ? words[a] < words[b] : a < b
            }
        }
        let order = RadixSort.order(words)
        guard let limit, limit < order.count else { return order }
        return Array(order.prefix(limit))
    }

    /// The positions `0..<count` ordered by `before`, a strict total order; with a small `limit`,
    /// only the best `limit` are kept while the positions are visited.
    private static func order(count: Int, limit: Int?, _ before: (Int, Int) -> Bool) -> [Int] {
        guard let limit, limit < count / 4 else {
            return Array((0..<count).sorted(by: before).prefix(limit ?? count))
        }
        // Top `limit`: keep the best ones seen so far, in order.
        var best: [Int] = []
        best.reserveCapacity(limit + 1)
        for position in 0..<count {
            if best.count == limit, let worst = best.last, !before(position, worst) { continue }
            var low = 0
            var high = best.count
            while low < high {
                let middle = (low + high) / 2
                if before(best[middle], position) { low = middle + 1 } else { high = middle }
            }
            best.insert(position, at: low)
            if best.count > limit { best.removeLast() }
        }
        return best
    }
}

/// The sort values of a query's matches, gathered while the query visits their rows: one order
/// word per match when it sorts by a single number, date or bool column of the class (no
/// scalars kept), otherwise every path's value as a scalar.
struct SortValues {
    private let paths: [(BoundPath, Bool)]
    /// The column and direction of a sort by words.
    private let wordColumn: WordColumn?
    private var words: [UInt64] = []
    private var scalars: [QueryScalar] = []
    /// A value had no word (an integer whose word is nil's): the values must be read again.
    private var wordless = false

    init(_ paths: [(BoundPath, Bool)]) {
        self.paths = paths
        wordColumn = WordColumn(paths)
    }

    /// Whether the values are order words (a sort by one ``WordColumn``): plain numbers, which
    /// parts of a split scan can gather on their own and ``append(_:)`` together.
    var sortsByWord: Bool { wordColumn != nil }

    /// Adds the values `other` gathered after this one's, for matches that come after.
    mutating func append(_ other: SortValues) {
        words.append(contentsOf: other.words)
        scalars.append(contentsOf: other.scalars)
        wordless = wordless || other.wordless
    }

    /// Records the values of the match `key`, whose row is `row`.
    mutating func add(_ key: UInt64, _ row: RowView, _ evaluator: QueryEvaluator) {
        if let wordColumn {
            if let word = wordColumn.word(row) { words.append(word) } else { wordless = true }
        } else {
            for (path, _) in paths { scalars.append(evaluator.firstValue(path, key, row)) }
        }
    }

    /// The matches' positions in sort order (see ``QuerySort/order(count:_:_:limit:)``), or `nil`
    /// when the values of all `matches` were not recorded and must be read again.
    func order(matches: Int, limit: Int?) -> [Int]? {
        if wordColumn != nil {
            guard !wordless, words.count == matches else { return nil }
            return QuerySort.orderSingle(words, limit: limit)
        }
        guard scalars.count == matches * paths.count else { return nil }
        return QuerySort.order(count: matches, scalars, paths.map(\.1), limit: limit)
    }
}
