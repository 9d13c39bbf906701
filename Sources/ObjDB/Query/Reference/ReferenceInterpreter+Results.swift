/// A whole query answered by the reference interpreter: filter, sort, distinct and limit, in
/// that order (Docs/Queries.md, "Sorting, distinct, limits").
extension ReferenceInterpreter {
    /// The answer of a query over `candidates`, objects of `info` in access order: those that
    /// exist and match `filter`, sorted by `sort` (ties in access order), the first of each
    /// combination of values at `distinct`, at most `limit` of them.
    func answer(
        _ candidates: [UInt64], _ info: ClassInfo, filter: BoundPredicate?, sort: [(path: BoundPath, ascending: Bool)], distinct: [BoundPath],
        limit: Int?
    ) -> [UInt64] {
        var objects = candidates.compactMap { fetch(info, $0) }
        if let filter { objects = objects.filter { holds(filter, $0) } }
        if !sort.isEmpty { objects = sorted(objects, by: sort) }
        if !distinct.isEmpty { objects = firstOfEach(objects, distinct) }
        if let limit { objects = Array(objects.prefix(limit)) }
        return objects.map(\.key)
    }

    /// `objects` sorted by the first value of each sort path (nil first, NaN after numbers),
    /// descending where asked, ties in their order in `objects`.
    private func sorted(_ objects: [StoredObject], by sort: [(path: BoundPath, ascending: Bool)]) -> [StoredObject] {
        let sortValues = objects.map { object in sort.map { values($0.path, from: object).first ?? .null } }
        let order = objects.indices.sorted { a, b in
            for (i, column) in sort.enumerated() {
                let order = ReferenceValue.sortOrder(sortValues[a][i], sortValues[b][i])
                if order != 0 { return column.ascending ? order < 0 : order > 0 }
            }
            return a < b
        }
        return order.map { objects[$0] }
    }

    /// The first of `objects` with each combination of first values at `paths`.
    private func firstOfEach(_ objects: [StoredObject], _ paths: [BoundPath]) -> [StoredObject] {
        var seen: [[ReferenceValue?]] = []
        return objects.filter { object in
            let identity = paths.map { values($0, from: object).first }
            if seen.contains(where: { Self.same($0, identity) }) { return false }
            seen.append(identity)
            return true
        }
    }

    /// Whether two objects' values at the distinct paths are the same.
    private static func same(_ a: [ReferenceValue?], _ b: [ReferenceValue?]) -> Bool {
        zip(a, b).allSatisfy { x, y in
            guard let x, let y else { return x == nil && y == nil }
            return ReferenceValue.sameForDistinct(x, y)
        }
    }
}
