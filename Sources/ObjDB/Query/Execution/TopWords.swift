/// The best `limit` matches of a sort by one column (``WordColumn``), kept in a bounded heap while
/// the query visits rows, so that a sorted prefix neither keeps every match nor sorts them all.
/// Matches with equal values keep the order they were visited in.
///
/// - Complexity: O(n log limit) for n matches, O(min(n, limit)) memory.
struct TopWords {
    /// One kept match. Ties of `word` are broken by `late`, which orders `nil` against `Int.min`
    /// (whose words are equal), then by the match's visit position.
    private typealias Entry = (word: UInt64, late: Bool, position: UInt64, key: UInt64)

    private let column: WordColumn
    private let limit: Int
    /// A max-heap: the root is the worst match kept.
    private var heap: [Entry] = []
    private var visited: UInt64 = 0

    /// Keeps the best `limit` matches of a sort by `paths`; `nil` if the sort is not by one
    /// ``WordColumn`` or no limit is given.
    init?(_ paths: [(BoundPath, Bool)], limit: Int?) {
        guard let limit, let column = WordColumn(paths) else { return nil }
        self.column = column
        self.limit = limit
        heap.reserveCapacity(Swift.min(limit, 1024))
    }

    @inline(__always)
    private static func before(_ a: Entry, _ b: Entry) -> Bool {
        a.word != b.word ? a.word < b.word : a.late != b.late ? !a.late : a.position < b.position
    }

    /// Offers the match `key`, whose row is `row`; its visit position is the number of matches
    /// offered before it.
    @inline(__always)
    mutating func offer(_ key: UInt64, _ row: RowView) {
        let position = visited
        visited += 1
        offer(key, row, position: position)
    }

    /// Offers the match `key`, whose row is `row`, with `position` breaking ties.
    @inline(__always)
    private mutating func offer(_ key: UInt64, _ row: RowView, position: UInt64) {
        let (ascendingWord, isNull) = column.ascendingWord(row)
        let word = column.ascending ? ascendingWord : ~ascendingWord
        // Most matches lose to the worst one kept on the word alone.
        if heap.count == limit, limit == 0 || word > heap[0].word { return }
        // Ascending: nil, then Int.min (same word). Descending reverses both.
        keep((word, isNull != column.ascending, position, key))
    }

    /// Offers the row of `entry` and of every entry after it through `cursor` (a table scan) up
    /// to the key `last`, if it passes `filter`.
    ///
    /// A table scan visits keys in ascending order, so the key itself is the visit position:
    /// heaps of scans over separate key ranges can be merged (``merge(_:)``) into the heap of one
    /// scan over all of them.
    mutating func offerRows(from entry: CursorEntry?, _ cursor: borrowing Cursor, through last: UInt64 = .max, passing filter: RowFilter) {
        // Fast path (``FastPaths/rowKernels``): a filter that every row passes (a sorted prefix
        // of the whole table) is not called for each row.
        if filter.passesEveryRow && FastPaths.enabled.contains(.rowKernels) {
            offerMatches(from: entry, cursor, through: last, of: EveryRow())
        } else {
            offerMatches(from: entry, cursor, through: last, of: filter)
        }
    }

    /// ``offerRows(from:_:through:passing:)`` with a test whose type the compiler knows, through
    /// a sink (``Offers``) that it inlines into the walk's loop, where a closure doing this much
    /// per row was called for each row, with the test and ``offer(_:_:position:)`` not inlined.
    private mutating func offerMatches<Predicate: RowPredicate>(
        from entry: CursorEntry?, _ cursor: borrowing Cursor, through last: UInt64, of predicate: Predicate
    ) {
        var sink = Offers(top: self, predicate: predicate)
        // The sink holds the only reference to the heap's storage, so it grows it in place.
        heap = []
        cursor.forEachRow(from: entry, through: last, into: &sink)
        self = sink.top
    }

    /// Offers each row that passes `predicate` to `top`, its key as its visit position.
    private struct Offers<Predicate: RowPredicate>: RowSink {
        var top: TopWords
        let predicate: Predicate

        @inline(__always)
        mutating func take(_ key: UInt64, _ row: RowView) -> Bool {
            if predicate.matches(row) { top.offer(key, row, position: key) }
            return true
        }
    }

    /// Adds the matches kept by `other`, a heap of the same sort and limit over a range of
    /// keys disjoint from this one's (see ``offerRows(from:_:through:passing:)``).
    mutating func merge(_ other: TopWords) {
        for entry in other.heap { keep(entry) }
    }

    private mutating func keep(_ entry: Entry) {
        if heap.count < limit {
            heap.append(entry)
            siftUp(heap.count - 1)
        } else if Self.before(entry, heap[0]) {
            heap[0] = entry
            siftDown(0)
        }
    }

    /// The kept matches' keys, best first.
    func keys() -> [UInt64] {
        heap.sorted(by: Self.before).map(\.key)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[parent], heap[child]) else { return }
            heap.swapAt(parent, child)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            var worst = parent
            let left = 2 * parent + 1
            if left < heap.count && Self.before(heap[worst], heap[left]) { worst = left }
            if left + 1 < heap.count && Self.before(heap[worst], heap[left + 1]) { worst = left + 1 }
            if worst == parent { return }
            heap.swapAt(parent, worst)
            parent = worst
        }
    }
}
