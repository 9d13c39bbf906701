extension DerivedTableVerifier {
    /// Checks a full-text index: exactly the postings the rows' texts give, and their
    /// statistics record.
    func checkFullTextTable(
        _ table: NamedTree?, name: String, property: StoredProperty, expected: [FullTextEntry], _ statistics: FullTextPostings.Statistics
    ) {
        guard let table else {
            problem(.table, "The full-text index of '\(stored.name).\(property.name)' is missing", table: name)
            return
        }
        checkFlags(table, .postings)
        // An encrypted file keys the table by hashes of the words, in the hashes' order.
        let statisticsKey = walk.storedIndexKey(FullTextPostings.statisticsKey, table: name)
        let expected = (walk.cipher == nil ? expected
            : expected.map { FullTextEntry(word: walk.storedIndexKey($0.word, table: name), posting: $0.posting) }).sorted()
        var missing = 0
        var extra = 0
        var next = 0
        var foundStatistics = false
        walk.walk(table) { key, value in
            if key.elementsEqual(statisticsKey) {
                foundStatistics = true
                if FullTextPostings.statistics(value) != statistics {
                    problem(.index, "The statistics of the full-text index of '\(property.name)' do not match its texts", table: name)
                }
                return
            }
            guard value.count == FullTextPostings.valueSize else {
                problem(.index, "A posting has \(value.count) bytes instead of \(FullTextPostings.valueSize)", table: name)
                return
            }
            let actual = FullTextEntry(word: Array(key), posting: Array(value))
            let objectKey = FullTextPostings.objectKey(value, at: 0)
            if facts.unreadable.contains(objectKey) { return }
            while next < expected.count && expected[next] < actual {
                missing += 1
                if missing <= Self.reportedEntries {
                    let key = expected[next].posting.withUnsafeBytes { FullTextPostings.objectKey($0, at: 0) }
                    problem(.index, "A word of the text of '\(property.name)' of object \(key) is missing from its full-text index", table: name, key: key)
                }
                next += 1
            }
            if next < expected.count && expected[next] == actual {
                next += 1
            } else {
                extra += 1
                if extra <= Self.reportedEntries {
                    problem(.index, "The full-text index of '\(property.name)' has a posting for object \(objectKey) that its text does not give", table: name, key: objectKey)
                }
            }
        }
        missing += expected.count - next
        if !foundStatistics && statistics != FullTextPostings.Statistics() {
            problem(.index, "The full-text index of '\(property.name)' has no statistics record", table: name)
        }
        summarize(.index, missing: missing, extra: extra, table: name)
    }
}
