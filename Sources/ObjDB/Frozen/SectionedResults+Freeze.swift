extension SectionedResults {
    /// Whether the sections read a frozen database.
    public var isFrozen: Bool { results.isFrozen }

    /// The same sections frozen at the version their database reads now: they never change,
    /// and read through a frozen database confined to the caller, like a frozen object.
    ///
    /// ```swift
    /// let frozen = sections.freeze()
    /// try db.write { db.add(person(9, "Zoe")) }
    /// frozen.allKeys                     // still without "Z"
    /// frozen.thaw()?.allKeys             // with "Z"
    /// ```
    ///
    /// Freezing frozen sections returns them; freezing inside a write transaction, or the
    /// sections of a deleted object's list, is a programmer error. O(1): the sections are
    /// computed on the first read of the frozen copy (the layout already computed for this
    /// version is shared).
    public func freeze() -> SectionedResults {
        if isFrozen { return self }
        objdbPrecondition(!isInvalidated, "freeze() was called on the SectionedResults of a deleted object's collection")
        let source = results._objdbFrozenSource
        guard let frozen = Results<SectionElement>._objdbLive(source, in: source.version.makeView()) else {
            objdbFatal("freeze() was called on the SectionedResults of a deleted object's collection")
        }
        let copy = SectionedResults(results: frozen, keyProperty: keyProperty, sectionKey: sectionKey)
        if let layout = cache.layout, cache.stamp == results.database.resultsStamp { copy.adopt(layout) }
        return copy
    }

    /// The same sections in the live database of the calling context, at its newest version
    /// (see ``Database/thaw()``); `nil` if the object whose collection they divide was deleted
    /// since. Live sections return themselves.
    public func thaw(isolation: isolated (any Actor)? = #isolation) -> SectionedResults? {
        guard isFrozen else { return self }
        guard let live = results.thaw(isolation: isolation) else { return nil }
        return SectionedResults(results: live, keyProperty: keyProperty, sectionKey: sectionKey)
    }
}

extension ResultsSection {
    /// Whether the section reads a frozen database.
    public var isFrozen: Bool { parent.isFrozen }

    /// The section frozen at the version its database reads now (see
    /// ``SectionedResults/freeze()``): it keeps the objects it has now.
    public func freeze() -> ResultsSection { ResultsSection(parent: parent.freeze(), key: key) }

    /// The section with the same key in the live database of the calling context, at its
    /// newest version; `nil` if its results' object was deleted since. It may be empty there.
    public func thaw(isolation: isolated (any Actor)? = #isolation) -> ResultsSection? {
        guard isFrozen else { return self }
        return parent.thaw(isolation: isolation).map { ResultsSection(parent: $0, key: key) }
    }
}
