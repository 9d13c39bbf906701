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

    /// A word of at most 16 bytes held in the dictionary's own storage, so that a look-up
    /// compares two integers instead of following a pointer to the word's array (with 50k
    /// words logged, each such step missed the cache).
    private struct ShortWord: Hashable {
        /// Bytes 0–7 of the word, zero-padded.
        var low: UInt64 = 0
        /// Bytes 8–15 of the word, zero-padded.
        var high: UInt64 = 0
        /// The word's length.
        var count: Int = 0

        /// `bytes` held inline; `nil` if longer than 16 bytes.
        @inline(__always)
        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count <= 16 else { return nil }
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: bytes) }
            (low, high, count) = (words.0, words.1, bytes.count)
        }
    }

    /// A logged posting and the slot of its word.
    private struct LoggedPosting {
        /// The word's index in ``TableEntries/words``.
        var slot: UInt32
        /// The posting.
        var posting: FullTextPostings.Posting
    }

    /// The logged postings of one table.
    ///
    /// Each distinct word gets a slot; postings go into one array with their slot, in the order
    /// they are logged, and ``grouped()`` puts them in order by word at the end (a counting sort
    /// by slot, which keeps their order within a word). One array of postings per word, grown
    /// as they come, cost a cache miss per posting. Under internal checks the postings are also
    /// logged the plain way, by word in a dictionary, and the two compared.
    private struct TableEntries {
        /// The full-text index.
        let table: Table
        /// The slot of each word of at most 16 bytes.
        var shortSlots: [ShortWord: UInt32] = [:]
        /// The slot of each longer word.
        var longSlots: [Word: UInt32] = [:]
        /// The words, by slot, in the order they were first logged.
        var words: [[UInt8]] = []
        /// Every posting, in the order logged.
        var logged: [LoggedPosting] = []
        /// The change of the statistics' number of documents.
        var documents: Int64 = 0
        /// The change of the statistics' number of words.
        var wordCount: Int64 = 0
        #if OBJDB_INTERNAL_CHECKS
        /// The slow twin: the postings by word.
        var plain: [[UInt8]: [FullTextPostings.Posting]] = [:]
        #endif

        /// The slot of `word`, made if new.
        @inline(__always)
        mutating func slot(_ word: [UInt8]) -> UInt32 {
            let short = word.withUnsafeBytes { ShortWord($0) }
            if let short {
                if let slot = shortSlots[short] { return slot }
                let slot = UInt32(words.count)
                shortSlots[short] = slot
                words.append(word)
                return slot
            }
            let key = Word(bytes: word)
            if let slot = longSlots[key] { return slot }
            let slot = UInt32(words.count)
            longSlots[key] = slot
            words.append(word)
            return slot
        }

        /// Logs `posting` under `word`.
        @inline(__always)
        mutating func add(_ word: [UInt8], _ posting: FullTextPostings.Posting) {
            logged.append(LoggedPosting(slot: slot(word), posting: posting))
            #if OBJDB_INTERNAL_CHECKS
            if internalChecksEnabled { plain[word, default: []].append(posting) }
            #endif
        }

        /// Logs one posting per word of `words`, of the object `objectKey` whose text has
        /// `length` words.
        mutating func addAll(_ words: [(word: [UInt8], occurrences: UInt32)], objectKey: UInt64, length: UInt32) {
            for (word, occurrences) in words {
                add(word, FullTextPostings.Posting(objectKey: objectKey, occurrences: occurrences, textLength: length))
            }
        }

        /// The words in byte order, each with its postings ascending by object key.
        func grouped() -> [([UInt8], ArraySlice<FullTextPostings.Posting>)] {
            // Where each slot's postings start in `all`.
            var starts = [Int](repeating: 0, count: words.count + 1)
            for entry in logged { starts[Int(entry.slot) + 1] += 1 }
            for index in words.indices { starts[index + 1] += starts[index] }
            var next = starts
            var all = [FullTextPostings.Posting](repeating: .init(objectKey: 0, occurrences: 0, textLength: 0), count: logged.count)
            for entry in logged {
                let slot = Int(entry.slot)
                all[next[slot]] = entry.posting
                next[slot] += 1
            }
            var order = Array(words.indices)
            order.sort { words[$0].lexicographicallyPrecedes(words[$1]) }
            var result: [([UInt8], ArraySlice<FullTextPostings.Posting>)] = []
            result.reserveCapacity(words.count)
            for slot in order {
                var postings = all[starts[slot]..<starts[slot + 1]]
                if !PendingFullText.isAscending(postings) { postings.sort { $0.objectKey < $1.objectKey } }
                result.append((words[slot], postings))
            }
            #if OBJDB_INTERNAL_CHECKS
            if internalChecksEnabled {
                var twin = plain.map { ($0.key, $0.value) }
                twin.sort { $0.0.lexicographicallyPrecedes($1.0) }
                for index in twin.indices where !PendingFullText.isAscending(twin[index].1[...]) {
                    twin[index].1.sort { $0.objectKey < $1.objectKey }
                }
                internalCheck(
                    result.elementsEqual(twin) { $0.0 == $1.0 && $0.1.elementsEqual($1.1) },
                    "full-text postings grouped by slot differ from the postings logged by word")
            }
            #endif
            return result
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
        tables.values.contains { $0.logged.contains { $0.posting.objectKey == objectKey } }
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
    func drain(_ body: (Table, [([UInt8], ArraySlice<FullTextPostings.Posting>)], _ documents: Int64, _ words: Int64) throws -> Void) rethrows {
        defer { removeAll() }
        for entries in tables.values.sorted(by: { $0.table.dbi < $1.table.dbi }) {
            try body(entries.table, entries.grouped(), entries.documents, entries.wordCount)
        }
    }

    /// Forgets everything (after it was written, or with the transaction).
    func removeAll() {
        tables.removeAll()
        loggedObjects.removeAll()
        lowestObjectKey = .max
        highestObjectKey = .min
    }

    /// Whether the postings' object keys ascend strictly.
    private static func isAscending(_ postings: ArraySlice<FullTextPostings.Posting>) -> Bool {
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
