extension Database {
    /// The number of versions of the file this process keeps: from the oldest version that a
    /// live instance, frozen database, frozen object or frozen collection of this process reads,
    /// to the newest committed version, both included. 1 when everything reads the newest one.
    ///
    /// The file cannot reuse the pages that commits after the oldest of them freed, so a large
    /// count means a growing file. ``Configuration/maximumNumberOfActiveVersions`` bounds it.
    public var activeVersionCount: Int { environment.activeVersionCount }

    /// Throws ``ObjDBError/Code/tooManyActiveVersions`` if more versions are active than the
    /// configuration allows.
    func checkActiveVersions() throws {
        guard let limit = configuration.maximumNumberOfActiveVersions else { return }
        let active = environment.activeVersionCount
        guard active > Int(clamping: limit) else { return }
        throw ObjDBError(
            .tooManyActiveVersions,
            "\(active) versions of the file are active in this process, more than Configuration.maximumNumberOfActiveVersions (\(limit)); release frozen databases, objects and collections of old versions, or refresh() the Database instances that read them, before writing",
            path: path)
    }

    /// The read snapshot of the current version, begun if needed (observers pin it).
    func pinnedSnapshot() throws -> ReadTransaction {
        if let snapshot { return snapshot }
        let snapshot = try ReadTransaction(lease)
        self.snapshot = snapshot
        reloadCatalogIfChanged(snapshot.txn)
        return snapshot
    }

    /// The version the database reads, if it has begun reading.
    var currentVersion: Int? { snapshot?.id }

    /// The change log's table, if the file has one yet.
    func changesTable() throws -> Table? {
        if let table = changesTableHandle { return table }
        let table = try environment.existingTable(named: TableName.changes, flags: .objects)
        changesTableHandle = table
        return table
    }
}
