extension PredicateBinder {
    /// Binds `body TEXT 'words'`: the left side must be a full-text indexed string property of
    /// the class itself, the right side a string (realm-core refuses `TEXT` on a property
    /// without a full-text index too).
    func bindText(_ c: QueryComparison) throws -> BoundComparison {
        guard case .keyPath(let keyPath) = c.left else {
            throw error(c.position, "TEXT needs a full-text indexed property on its left, found \(describe(c.left))")
        }
        if c.quantifier != .any || c.listFirst {
            throw error(c.position, "TEXT takes no ANY, ALL or NONE: it searches one full-text indexed property")
        }
        if !c.options.isEmpty {
            throw error(c.position, "TEXT takes no [c] or [d]: it ignores case and diacritics already")
        }
        let (left, type, toMany, _, _) = try bindLeft(c)
        guard case .path(let path) = left, let column = path.directValueColumn, !toMany, type == .string else {
            throw error(
                c.position,
                "TEXT applies to a full-text indexed String property of '\(rootClass)' itself, and \(keyPath) is not one")
        }
        guard let stored = lookup(rootClass), stored.properties.indices.contains(column), stored.properties[column].fullText != nil else {
            throw error(
                c.position,
                "'\(rootClass).\(keyPath)' has no full-text index; declare it @Persisted(fullTextIndexed: true) to search it with TEXT")
        }
        guard case .value(.string(let text)) = c.right else {
            throw error(c.position, "TEXT needs a string of words to search for, found \(describe(c.right))")
        }
        let bound = BoundComparison(
            left: left, op: .text, right: .constant(.bytes(Array(text.utf8))), options: [], quantifier: .any, type: .string)
        bound.fullText = FullTextQuery(text)
        return bound
    }
}
