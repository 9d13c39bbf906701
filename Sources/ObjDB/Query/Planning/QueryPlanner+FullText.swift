extension QueryPlanner {
    /// The full-text index access for `body TEXT 'words'`; `nil` when the index cannot answer:
    /// in an encrypted file, whose index words are keyed hashes, a prefix (`data*`) reads the
    /// rows, and so does an index filled by another tokenizer version or folding.
    static func fullTextAccess(_ c: BoundComparison, _ info: ClassInfo) -> (rank: Int, access: QueryPlan.Access)? {
        guard let query = c.fullText, case .path(let path) = c.left, let column = path.directValueColumn,
            info.tables.fullText.indices.contains(column), let table = info.tables.fullText[column]
        else { return nil }
        if table.seal == .keys && query.hasPrefixes { return nil }
        // An index filled by another tokenizer (a read-only open, which cannot rebuild it)
        // may not hold the words this process finds: the rows answer.
        guard info.stored.properties[column].fullTextIsCurrent else { return nil }
        // A query of excluded words only reads every object key: any range is better.
        let rank = query.required.isEmpty ? Rank.range + 1 : Rank.fullText
        return (rank, .fullText(property: info.columnNames[column], table: table, objects: info.objectsTable, query: query))
    }

    /// The object keys a full-text index finds for `query`, ascending.
    static func fullTextMatches(table: Table, objects: Table, query: FullTextQuery, txn: Txn) throws -> [UInt64] {
        try FullTextIndexReader(table: table, txn: txn).matches(query) { try Cursor(txn, objects).allObjectKeys() }
    }
}
