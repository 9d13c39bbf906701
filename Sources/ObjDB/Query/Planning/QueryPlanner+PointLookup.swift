extension QueryPlanner {
    /// The first object key under the one index key an equality seeks, read with one `mdb_get`
    /// (``Txn/getOnPage(_:key:)``, which gives a multimap's first entry) instead of a cursor
    /// opened, positioned and closed; `nil` when this fast path does not apply and
    /// ``candidates(_:txn:limit:)`` walks the index. (`where { $0.name == x }.first`, Realm's most
    /// common query, reads one entry either way: the cursor cost LMDB a `malloc` and a `free`.)
    ///
    /// It applies to a plan that covers its predicate with one key that cannot have been cut, when
    /// only the first match is wanted (`first`, `isEmpty`, `prefix(1)`, `LIMIT(1)`): that key's
    /// entries are exact matches and come ascending, so the first is the answer. Left to the
    /// walk: a value that is not one object key (a damaged index), which the walk handles as it
    /// handles every entry, and the first entry of a key with many (LMDB keeps them on pages of
    /// their own, and checking where such a value lies needs a cursor anyway). The
    /// ``FastPaths/indexPointLookups`` switch turns it off; under the internal checks, the walk's
    /// answer is compared with it, found or not.
    static func firstKeyOfPointLookup(_ plan: QueryPlan, txn: Txn, limit: Int?) throws -> [UInt64]? {
        guard limit == 1, plan.covers, case .lookup(_, _, let table, .one(let key)) = plan.access,
            !KeyEncoding.mayBeTruncated(count: key.count), FastPaths.enabled.contains(.indexPointLookups)
        else { return nil }
        let first: UInt64?
        switch try key.withUnsafeBytes({ try txn.getOnPage(table, key: $0) }) {
        case .absent:
            first = nil
        case .value(let value):
            guard value.count == MemoryLayout<UInt64>.size else { return nil }
            first = value.loadUnaligned(as: UInt64.self)
        case .mayLieOffPage:
            // A key with many entries keeps them on pages of their own; a value past a page
            // header needs the cursor's check, so the walk answers (no dearer than before).
            return nil
        }
        #if OBJDB_INTERNAL_CHECKS
        // Tests only: a wrong answer for the check to catch.
        let answer = FastPaths.broken.contains(.indexPointLookups) ? first.map { $0 &+ 1 } : first
        if internalChecksEnabled { checkPointLookup(answer, plan, txn: txn) }
        return answer.map { [$0] } ?? []
        #else
        return first.map { [$0] } ?? []
        #endif
    }

    #if OBJDB_INTERNAL_CHECKS
    /// Stops with "Internal check failed" unless the index walk's first entry is `first` (`nil`
    /// when the key is absent).
    private static func checkPointLookup(_ first: UInt64?, _ plan: QueryPlan, txn: Txn) {
        var walked: UInt64?
        // try?: an error is a disagreement, reported by the check below.
        _ = try? walk(plan, txn: txn) { key, _ in
            walked = key
            return false
        }
        guard case .lookup(let primary, let property, _, _) = plan.access else { return }
        internalCheck(
            walked == first,
            "the point lookup's object key \(String(describing: first)) for \(property) (\(primary ? "primary key" : "index")) is not the index walk's first, \(String(describing: walked))")
    }
    #endif
}
