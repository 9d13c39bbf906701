extension Database {
    /// Whether this is a frozen database: one version of the file, read for ever, never
    /// written, never refreshed.
    public var isFrozen: Bool { frozenVersion != nil }

    /// A frozen database reading the version this one reads now.
    ///
    /// ```swift
    /// let frozenDB = db.freeze()
    /// frozenDB.objects(Person.self).count    // the same count, whatever is written later
    /// ```
    ///
    /// Every frozen database, object and collection of one version shares one read transaction
    /// (one reader slot), released with the last of them; until then the file keeps that
    /// version's pages (see ``activeVersionCount``). Freezing the same version again returns the
    /// same frozen database while it lives. A frozen database is itself confined to the caller
    /// like any `Database`; to hand a version to other threads, freeze a collection
    /// (`results.freeze()`), which is `Sendable`. Calling `freeze()` inside a write transaction
    /// is a programmer error: the uncommitted changes belong to no version.
    ///
    /// - Complexity: O(number of classes) the first time for a version; no object is read.
    public func freeze() -> Database {
        if isFrozen { return self }
        objdbPrecondition(
            writeContext == nil,
            "freeze() was called inside a write transaction; its uncommitted changes belong to no version. Freeze after commitWrite() (or before beginWrite())")
        if let view = frozen.view, let version = view.frozenVersion, version.id == snapshot?.id { return view }
        // Without a snapshot (every reader slot taken, reported as a read failure) the frozen
        // database reads as empty, as this one does.
        _ = readableTxn()
        let version: FrozenVersion
        if let pinned = frozen.version, let snapshot, pinned.id == snapshot.id {
            version = pinned
        } else {
            version = FrozenVersion(self, transaction: snapshot)
            frozen.version = version
        }
        let view = version.makeView()
        frozen.view = view
        return view
    }

    /// A live database for the calling context, at least at this version: the instance on the
    /// same file that this actor or the main actor opened, if there is one (refreshed if it
    /// reads an older version), else a new instance at the newest version. Code outside any
    /// actor and off the main queue (a `DispatchQueue`, a nonisolated task) always gets a new
    /// instance: nothing tells which of its instances it may use. A live database returns itself.
    ///
    /// ```swift
    /// let live = frozenDB.thaw()
    /// try live.write { … }
    /// ```
    public func thaw(isolation: isolated (any Actor)? = #isolation) -> Database {
        guard let frozenVersion else { return self }
        return Database.liveInstance(of: frozenVersion, isolation: isolation)
    }

    /// The live instance of the calling context for the file of `version` (see ``thaw()``).
    static func liveInstance(of version: FrozenVersion, isolation: isolated (any Actor)?) -> Database {
        if let context = IsolationContext(isolation), let live = LiveInstances.shared.instance(path: version.path, context: context) {
            // It sees at least what was frozen.
            if !live.isInWriteTransaction, (live.currentVersion ?? -1) < version.id { live.refresh() }
            return live
        }
        let live = Database(
            configuration: version.configuration, path: version.path, lease: version.lease,
            meta: version.metaTable, formatVersion: version.formatVersion, catalog: version.catalog.copy(shared: false),
            frozen: nil)
        live.belong(to: isolation)
        live.refresh()
        return live
    }
}
