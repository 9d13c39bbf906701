/// Full-text postings added in a write transaction and not written to their tables yet, and
/// the change to each index's statistics record.
///
/// A text adds one posting per distinct word. Put one by one, each would search the index's
/// B-tree and then the word's own tree of postings; grouped by word and written with
/// `MDB_MULTIPLE` at the end, the postings of an insert loop go in where the previous ones went.
/// So inserts and changed texts log their postings here, and
/// ``Database/flushPendingFullText(_:_:)`` writes them at commit, before anything reads a
/// full-text index, and before a posting of an object that may have logged postings is
/// deleted (as ``PendingIndexEntries`` does for ordinary indexes).
final class PendingFullText {
    /// A word as a dictionary key, hashed as one run of bytes (`[UInt8]`'s own hashing feeds
    /// the hasher byte by byte, which made a fifth of an insert's cost).
    private struct Word: Hashable {
        /// The folded word.
        let bytes: [UInt8]

        /// Feeds the bytes to `hasher` in one call.
        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }

        /// Whether the bytes are equal.
        static func == (a: Word, b: Word) -> Bool { a.bytes == b.bytes }
    }

    /// The logged postings of one table, by word.
    private struct TableEntries {
        let table: Table
        /// The slot of each word in ``words`` and ``postings``.
        var slots: [Word: Int] = [:]
        /// The words, in the order they were first logged.
        var words: [[UInt8]] = []
        /// The postings of each word of ``words``, in the order they were logged.
        var postings: [[FullTextPostings.Posting]] = []
        var documents: Int64 = 0
        var wordCount: Int64 = 0

        /// Logs `posting` under `word`.
        @inline(__always)
        mutating func add(_ word: [UInt8], _ posting: FullTextPostings.Posting) {
            let key = Word(bytes: word)
            if let slot = slots[key] {
                postings[slot].append(posting)
            } else {
                slots[key] = words.count
                words.append(word)
                postings.append([posting])
            }
        }

        /// Logs one posting per word of `words`, of the object `objectKey` whose text has
        /// `length` words.
        mutating func addAll(_ words: [(word: [UInt8], occurrences: UInt32)], objectKey: UInt64, length: UInt32) {
            for (word, occurrences) in words {
                add(word, FullTextPostings.Posting(objectKey: objectKey, occurrences: occurrences, textLength: length))
            }
        }
    }

    /// By table handle.
    @exclusivity(unchecked) private var tables: [UInt32: TableEntries] = [:]
    /// The lowest and highest object key with a logged posting.
    @exclusivity(unchecked) private var lowestObjectKey = UInt64.max
    @exclusivity(unchecked) private var highestObjectKey = UInt64.min

    /// The objects with a logged posting. Only the range above once decided: with texts
    /// changed in random order the range soon spanned every key, and each change wrote out
    /// everything logged before it (one put per word), which grouping is meant to avoid.
    @exclusivity(unchecked) private var loggedObjects = Set<UInt64>()

    /// Whether nothing waits.
    var isEmpty: Bool { tables.isEmpty }

    /// Whether a posting of `objectKey` is logged.
    @inline(__always)
    func mayHoldPostings(of objectKey: UInt64) -> Bool {
        guard objectKey >= lowestObjectKey && objectKey <= highestObjectKey else { return false }
        let held = loggedObjects.contains(objectKey)
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled && !held {
            internalCheck(!holdsPosting(of: objectKey), "an object with logged full-text postings is missing from the set of logged objects")
        }
        #endif
        return held
    }

    #if OBJDB_INTERNAL_CHECKS
    /// Whether some logged posting is of `objectKey`, by looking at every one (the slow twin
    /// of ``mayHoldPostings(of:)``).
    private func holdsPosting(of objectKey: UInt64) -> Bool {
        tables.values.contains { $0.postings.contains { $0.contains { $0.objectKey == objectKey } } }
    }
    #endif

    /// Logs the posting of `word` in `table`.
    func add(_ table: Table, word: [UInt8], _ posting: FullTextPostings.Posting) {
        tables[table.dbi, default: TableEntries(table: table)].add(word, posting)
        loggedObjects.insert(posting.objectKey)
        lowestObjectKey = min(lowestObjectKey, posting.objectKey)
        highestObjectKey = max(highestObjectKey, posting.objectKey)
    }

    /// Logs the postings of every word of `document`, the text of the object `objectKey`, in
    /// `table` (one look-up of the table for all of them).
    func add(_ table: Table, _ document: FullTextDocument, objectKey: UInt64) {
        guard !document.words.isEmpty else { return }
        let length = document.length
        tables[table.dbi, default: TableEntries(table: table)].addAll(document.words, objectKey: objectKey, length: length)
        loggedObjects.insert(objectKey)
        lowestObjectKey = min(lowestObjectKey, objectKey)
        highestObjectKey = max(highestObjectKey, objectKey)
    }

    /// Changes `table`'s statistics by `documents` objects and `words` words.
    func adjust(_ table: Table, documents: Int64, words: Int64) {
        guard documents != 0 || words != 0 else { return }
        tables[table.dbi, default: TableEntries(table: table)].documents += documents
        tables[table.dbi, default: TableEntries(table: table)].wordCount += words
    }

    /// Calls `body` for each table with its words in byte order, each with its postings
    /// ascending by object key, then its statistics change; forgets everything afterwards.
    func drain(_ body: (Table, [([UInt8], [FullTextPostings.Posting])], _ documents: Int64, _ words: Int64) throws -> Void) rethrows {
        defer { removeAll() }
        for entries in tables.values.sorted(by: { $0.table.dbi < $1.table.dbi }) {
            var words = Array(zip(entries.words, entries.postings))
            words.sort { $0.0.lexicographicallyPrecedes($1.0) }
            for index in words.indices where !isAscending(words[index].1) {
                words[index].1.sort { $0.objectKey < $1.objectKey }
            }
            try body(entries.table, words, entries.documents, entries.wordCount)
        }
    }

    /// Forgets everything (after it was written, or with the transaction).
    func removeAll() {
        tables.removeAll()
        loggedObjects.removeAll()
        lowestObjectKey = .max
        highestObjectKey = .min
    }

    private func isAscending(_ postings: [FullTextPostings.Posting]) -> Bool {
        var previous: UInt64?
        for posting in postings {
            if let previous, posting.objectKey <= previous { return false }
            previous = posting.objectKey
        }
        return true
    }

    /// Writes the logged postings into `txn`, each word's in one `MDB_MULTIPLE` put, and the
    /// statistics records they change; forgets them afterwards.
    func write(_ txn: Txn) throws {
        var buffer: [UInt8] = []
        try drain { table, words, documents, wordCount in
            let cursor = try Cursor(txn, table)
            for (word, postings) in words {
                buffer.removeAll(keepingCapacity: true)
                buffer.append(contentsOf: repeatElement(0, count: postings.count * FullTextPostings.valueSize))
                buffer.withUnsafeMutableBytes { raw in
                    for (index, posting) in postings.enumerated() {
                        FullTextPostings.write(posting, to: raw.baseAddress.unsafelyUnwrapped + index * FullTextPostings.valueSize)
                    }
                }
                try word.withUnsafeBytes { w in
                    try buffer.withUnsafeBytes { try cursor.putAll(key: w, values: $0, size: FullTextPostings.valueSize) }
                }
            }
            if documents != 0 || wordCount != 0 {
                try Self.adjustStatistics(cursor, documents: documents, words: wordCount)
            }
        }
    }

    /// Adds `documents` and `words` to the statistics record of the full-text index `cursor`
    /// walks.
    private static func adjustStatistics(_ cursor: borrowing Cursor, documents: Int64, words: Int64) throws {
        var statistics = FullTextPostings.Statistics()
        let key = FullTextPostings.statisticsKey
        if let entry = try key.withUnsafeBytes({ try cursor.seek(exactly: $0) }) {
            statistics = FullTextPostings.statistics(entry.value) ?? statistics
            try cursor.deleteCurrent()
        }
        statistics.documents = UInt64(max(0, Int64(clamping: statistics.documents) + documents))
        statistics.words = UInt64(max(0, Int64(clamping: statistics.words) + words))
        _ = try key.withUnsafeBytes { k in
            try FullTextPostings.bytes(statistics).withUnsafeBytes { try cursor.put(key: k, value: $0) }
        }
    }
}
