import Foundation

/// Reads a full-text index (``FullTextPostings``): the objects a ``FullTextQuery`` matches, and
/// how relevant each is.
struct FullTextIndexReader {
    /// The index table.
    let table: Table
    /// The transaction read.
    let txn: Txn

    /// The postings under `word`, ascending by object key.
    ///
    /// - Complexity: O(log n + k) for k postings, read a page at a time.
    func postings(of word: [UInt8]) throws -> [FullTextPostings.Posting] {
        try read(word, FullTextPostings.posting)
    }

    /// The object keys under `word`, ascending.
    func keys(of word: [UInt8]) throws -> [UInt64] {
        try read(word, FullTextPostings.objectKey)
    }

    /// What `decode` reads of each posting under `word` (given the page and the posting's
    /// offset), in the postings' order.
    @inline(__always)
    private func read<T>(_ word: [UInt8], _ decode: (UnsafeRawBufferPointer, Int) -> T) throws -> [T] {
        let cursor = try Cursor(txn, table)
        guard try word.withUnsafeBytes({ try cursor.seek(exactly: $0) }) != nil else { return [] }
        var result: [T] = []
        result.reserveCapacity(try cursor.duplicateCount())
        try cursor.forEachDuplicatePage { page in
            var offset = 0
            while offset + FullTextPostings.valueSize <= page.count {
                result.append(decode(page, offset))
                offset += FullTextPostings.valueSize
            }
            return true
        }
        return result
    }

    /// The words of the index that start with `prefix`, in byte order (not in an encrypted
    /// file, whose words are hashes).
    func words(startingWith prefix: [UInt8]) throws -> [[UInt8]] {
        let cursor = try Cursor(txn, table)
        var result: [[UInt8]] = []
        var entry = try prefix.withUnsafeBytes { try cursor.seek(atLeast: $0) }
        while let current = entry, current.key.starts(with: prefix) {
            result.append(Array(current.key))
            entry = try cursor.nextKey()
        }
        return result
    }

    /// The words a term stands for: itself, or every indexed word it is a prefix of.
    func words(of term: FullTextQuery.Term) throws -> [[UInt8]] {
        term.isPrefix ? try words(startingWith: term.word) : [term.word]
    }

    /// The object keys holding `term` (any of its words for a prefix), ascending.
    func keys(of term: FullTextQuery.Term) throws -> [UInt64] {
        let words = try words(of: term)
        if words.count == 1 { return try keys(of: words[0]) }
        var all: [UInt64] = []
        for word in words { all.append(contentsOf: try keys(of: word)) }
        return Self.sortedUnique(all)
    }

    /// The object keys a query matches, ascending. `allKeys` gives every object of the class,
    /// for a query that only excludes words.
    ///
    /// - Complexity: O(p log p) for the p postings of the query's words.
    func matches(_ query: FullTextQuery, allKeys: () throws -> [UInt64]) throws -> [UInt64] {
        if query.isEmpty { return [] }
        var result: [UInt64]
        if query.required.isEmpty {
            result = try allKeys()
        } else {
            var lists = try query.required.map { try keys(of: $0) }
            lists.sort { $0.count < $1.count }
            result = lists[0]
            for list in lists.dropFirst() where !result.isEmpty { result = Self.intersection(result, list) }
        }
        for group in query.excluded where !result.isEmpty {
            var lists = try group.map { try keys(of: $0) }
            lists.sort { $0.count < $1.count }
            var excluded = lists[0]
            for list in lists.dropFirst() where !excluded.isEmpty { excluded = Self.intersection(excluded, list) }
            result = Self.difference(result, excluded)
        }
        return result
    }

    /// The index's statistics record.
    func statistics() throws -> FullTextPostings.Statistics {
        let cursor = try Cursor(txn, table)
        guard let entry = try FullTextPostings.statisticsKey.withUnsafeBytes({ try cursor.seek(exactly: $0) }) else { return .init() }
        return FullTextPostings.statistics(entry.value) ?? .init()
    }

    /// The relevance of each of `keys` (ascending) to the query's required words, by Okapi
    /// BM25 (k1 = 1.2, b = 0.75, Lucene's idf, which stays positive): a word counts more the
    /// rarer it is among the texts and the more often it occurs in the text, relative to the
    /// text's length. A prefix counts each word it stands for (in an encrypted file, nothing).
    func scores(_ keys: [UInt64], _ query: FullTextQuery) throws -> [Double] {
        var scores = [Double](repeating: 0, count: keys.count)
        guard !keys.isEmpty else { return scores }
        let statistics = try statistics()
        let documents = Double(max(statistics.documents, 1))
        let averageLength = max(Double(statistics.words) / documents, 1)
        let k1 = 1.2
        let b = 0.75
        // An encrypted file's words are hashes: a prefix stands for no word it can find.
        for term in query.required where !(term.isPrefix && table.seal == .keys) {
            for word in try words(of: term) {
                let postings = try postings(of: word)
                let containing = Double(postings.count)
                let idf = log(1 + (documents - containing + 0.5) / (containing + 0.5))
                // Both ascending: one merge.
                var i = 0
                for posting in postings {
                    while i < keys.count && keys[i] < posting.objectKey { i += 1 }
                    guard i < keys.count else { break }
                    guard keys[i] == posting.objectKey else { continue }
                    let frequency = Double(posting.occurrences)
                    let norm = k1 * (1 - b + b * Double(posting.textLength) / averageLength)
                    scores[i] += idf * frequency * (k1 + 1) / (frequency + norm)
                }
            }
        }
        return scores
    }

    /// The keys of both ascending lists.
    static func intersection(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var result: [UInt64] = []
        result.reserveCapacity(min(a.count, b.count))
        var i = 0
        var j = 0
        while i < a.count && j < b.count {
            if a[i] < b[j] {
                i += 1
            } else if a[i] > b[j] {
                j += 1
            } else {
                result.append(a[i])
                i += 1
                j += 1
            }
        }
        return result
    }

    /// The keys of the ascending list `a` that are not in the ascending list `b`.
    static func difference(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var result: [UInt64] = []
        result.reserveCapacity(a.count)
        var j = 0
        for key in a {
            while j < b.count && b[j] < key { j += 1 }
            if j < b.count && b[j] == key { continue }
            result.append(key)
        }
        return result
    }

    /// `keys` ascending without repeats.
    static func sortedUnique(_ keys: [UInt64]) -> [UInt64] {
        var unique: [UInt64] = []
        unique.reserveCapacity(keys.count)
        for key in keys.sorted() where unique.last != key { unique.append(key) }
        return unique
    }
}
