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
    /// The logged postings of one table, by word.
    private struct TableEntries {
        /// The full-text index.
        let table: Table
        /// The postings to add, by word.
        var words: [[UInt8]: [FullTextPostings.Posting]] = [:]
        /// The change of the statistics' number of documents.
        var documents: Int64 = 0
        /// The change of the statistics' number of words.
        var wordCount: Int64 = 0
    }

    /// By table handle.
    @exclusivity(unchecked) private var tables: [UInt32: TableEntries] = [:]
    /// The lowest and highest object key with a logged posting.
    @exclusivity(unchecked) private var lowestObjectKey = UInt64.max
    @exclusivity(unchecked) private var highestObjectKey = UInt64.min

    /// Whether nothing waits.
    var isEmpty: Bool { tables.isEmpty }

    /// Whether a posting of `objectKey` may be logged: `false` means surely not.
    @inline(__always)
    func mayHoldPostings(of objectKey: UInt64) -> Bool {
        objectKey >= lowestObjectKey && objectKey <= highestObjectKey
    }

    /// Logs the posting of `word` in `table`.
    func add(_ table: Table, word: [UInt8], _ posting: FullTextPostings.Posting) {
        tables[table.dbi, default: TableEntries(table: table)].words[word, default: []].append(posting)
        lowestObjectKey = min(lowestObjectKey, posting.objectKey)
        highestObjectKey = max(highestObjectKey, posting.objectKey)
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
            var words = entries.words.map { ($0.key, $0.value) }
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
