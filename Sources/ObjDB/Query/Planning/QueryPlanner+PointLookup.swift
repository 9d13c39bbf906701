extension QueryPlanner {
    /// The first object key under the one index key an equality seeks, read with one `mdb_get`
    /// (``Txn/get(_:key:)``, which gives a multimap's first entry) instead of a cursor opened,
    /// positioned and closed; `nil` when this fast path does not apply and ``candidates(_:txn:limit:)``
    /// walks the index. (`where { $0.name == x }.first`, Realm's most common query, reads one
    /// entry either way: the cursor cost LMDB a `malloc` and a `free` per query.)
    ///
    /// It applies to a plan that covers its predicate with one key that cannot have been cut, when
    /// only the first match is wanted: that key's entries are exact matches and come ascending, so
    /// the first is the answer. A value that is not one object key (a damaged index) is left to
    /// the walk, which handles it as it handles every entry. The ``FastPaths/indexPointLookups``
    /// switch turns it off; under the internal checks, the walk's answer is compared with it.
    static func firstKeyOfPointLookup(_ plan: QueryPlan, txn: Txn, limit: Int?) throws -> [UInt64]? {
        guard limit == 1, plan.covers, case .lookup(let primary, let property, let table, .one(let key)) = plan.access,
            !KeyEncoding.mayBeTruncated(count: key.count), FastPaths.enabled.contains(.indexPointLookups)
        else { return nil }
        guard let value = try key.withUnsafeBytes({ try txn.get(table, key: $0) }) else { return [] }
        guard value.count == MemoryLayout<UInt64>.size else { return nil }
        var first = value.loadUnaligned(as: UInt64.self)
        if FastPaths.broken.contains(.indexPointLookups) { first &+= 1 }
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled {
            var walked: UInt64?
            try walk(plan, txn: txn) { key, _ in
                walked = key
                return false
            }
            internalCheck(
                walked == first,
                "the point lookup's object key \(first) for \(property) (\(primary ? "primary key" : "index")) is not the index walk's first, \(String(describing: walked))")
        }
        #endif
        return [first]
    }
}
