/// Linking objects, counted as Realm counts them: once per link.
extension ClassInfo {
    /// The keys of the objects of this class that link to the object `target` through the link
    /// column `column`, ascending, each repeated once per link: an object whose list holds the
    /// target twice appears twice, as it does in Realm (`dog.owners.count`, `owners.@count` and
    /// subqueries over linking objects count links, not objects).
    ///
    /// The backlink table stores each origin once, so for a list or map column the origin's row
    /// is read to count its links; a to-one link or a set links at most once and costs nothing
    /// more. A row that cannot be read counts once (``Database/verify()`` reports it).
    ///
    /// - Complexity: O(log n + k) for k origins of a to-one link or set column; O(log n + k·m)
    ///   for lists and maps of m elements.
    func linkingKeys(to target: UInt64, through column: Int, txn: Txn) throws -> [UInt64] {
        guard let table = tables.backlinks[column] else { return [] }
        let origins = try txn.objectKeys(table, under: target)
        let kind = columnKinds[column]
        guard kind == .list || kind == .map, !origins.isEmpty else { return origins }
        var keys: [UInt64] = []
        keys.reserveCapacity(origins.count)
        for origin in origins {
            var links = 1
            if let row = try RowReader.parsed(self, key: origin, txn: txn) {
                links = max(1, Self.links(to: target, in: row.column(column), kind: kind))
            }
            for _ in 0..<links { keys.append(origin) }
        }
        return keys
    }

    /// How many elements of the list or map value `read` hold the object key `target`.
    private static func links(to target: UInt64, in read: ColumnRead, kind: ColumnKind) -> Int {
        let view = kind == .map ? MapView(read).values : SequenceView(read)
        var count = 0
        for i in 0..<view.count {
            if case .value(let bytes) = view.element(i), bytes.count == 8, bytes.loadUnaligned(as: UInt64.self) == target { count += 1 }
        }
        return count
    }
}
