extension Database {
    /// All objects of a class, as live, lazily evaluated results.
    ///
    /// ```swift
    /// let people = db.objects(Person.self)
    /// people.count          // O(1)
    /// for person in people { print(person.name) }
    /// ```
    ///
    /// Using a class that the file stores differently from the model, or that is not in
    /// ``Configuration/objectTypes`` when those are listed, is a programmer error.
    public func objects<Element: Object>(_ type: Element.Type) -> Results<Element> {
        _ = classInfoForRead(type, "Database.objects(_:)")
        return Results(database: self)
    }

    /// The cache for results of every object of `type`, shared by every such results of this
    /// live instance: what it holds (the object keys of a version, stamped with it) is the same
    /// for all of them, and most are built only to be filtered (`objects(T.self).where { … }`),
    /// which then paid for a cache nobody read. A frozen instance, whose results may be read on
    /// several threads at once, gives each results its own. The cost: the keys such results last
    /// read by position (8 bytes an object) stay cached until whole-table results of another
    /// class are asked for or the schema changes.
    func tableResultsCache(_ type: ObjectBase.Type) -> ResultsCache {
        let id = ObjectIdentifier(type)
        if let last = caches.lastTableResultsCache, last.type == id { return unsafeDowncast(last.cache, to: ResultsCache.self) }
        let cache = ResultsCache()
        if !isFrozen { caches.lastTableResultsCache = (id, cache) }
        return cache
    }
}
