/// The key paths of a class's value properties, bound once by column: they depend on the
/// stored class alone, and a query binds its paths again for every `where`. Kept in
/// ``ClassInfo/queryCache``, which the catalog holds without knowing what it is.
final class BoundPathCache: ClassDerivedCache {
    /// By column; `nil` until bound.
    var paths: [BoundPath?]

    init(columns: Int) { paths = Array(repeating: nil, count: columns) }

    func copy() -> any ClassDerivedCache {
        let copy = BoundPathCache(columns: 0)
        copy.paths = paths
        return copy
    }
}

extension ClassInfo {
    /// This class's bound key paths, created on first use. Information that frozen instances
    /// share across threads (``isShared``) gets none created and is never written: it only
    /// reads the paths its live original had bound when it was copied.
    var boundPaths: BoundPathCache? {
        if let cache = queryCache { return unsafeDowncast(cache, to: BoundPathCache.self) }
        guard !isShared else { return nil }
        let cache = BoundPathCache(columns: columnNames.count)
        queryCache = cache
        return cache
    }
}
