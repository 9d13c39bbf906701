/// Entry points for tools that inspect files without the application's model classes, such as
/// the `objdb` command. Not part of the stable API.
extension Database {
    /// The file-format version of the file.
    @_spi(Inspection)
    public var fileFormatVersion: Int { Int(formatVersion) }

    /// The schema version stored in the file, as seen by the current version of this instance.
    @_spi(Inspection)
    public var storedSchemaVersion: UInt64 {
        guard let txn = readableTxn() else { return 0 }
        do {
            return try FileMeta.readUInt64(txn, metaTable, FileMeta.Key.schemaVersion) ?? 0
        } catch {
            reportReadFailure(error, while: "Reading the stored schema version")
            return 0
        }
    }

    /// The number of objects of the class named `className` (0 for an unknown class).
    /// - Complexity: O(1).
    @_spi(Inspection)
    public func objectCount(ofClassNamed className: String) -> Int {
        guard let info = catalog.byName[className] else { return 0 }
        return rows.count(info)
    }

    /// The object of the class named `className` with object key `key`, or `nil` when the class
    /// (not embedded) or the object does not exist: what a link by key (`objdb load`) names.
    @_spi(Inspection)
    public func dynamicObject(ofClassNamed className: String, key: UInt64) -> DynamicObject? {
        guard let info = catalog.byName[className], !info.isDiscarded, !info.stored.isEmbedded else { return nil }
        return object(DynamicObject.self, info, key: key)
    }

    /// The LMDB transaction id of the version this instance reads.
    @_spi(Inspection)
    public var transactionID: Int { readableTxn()?.id ?? 0 }

    /// The id of the newest committed LMDB transaction of the file.
    @_spi(Inspection)
    public var lastCommittedTransactionID: Int { environment.lastCommittedTransactionID() }
}

extension Database {
    /// LMDB's figures for the file and every table of the version this instance reads: the
    /// `meta` table, the change log, an encrypted file's row buckets, and each class's objects, primary keys, indexes, backlinks,
    /// full-text indexes and mixed-links tables, named by what they hold.
    ///
    /// - Complexity: O(t + f): one `mdb_stat` per table, and the free-page list.
    @_spi(Inspection)
    public func storageStatistics() throws -> (environment: EnvironmentStatistics, tables: [TableStatistics]) {
        // A table opened after a transaction began is not valid in it: open the change log
        // first, then read the newest version.
        let changes = try environment.existingTable(named: TableName.changes, flags: .objects)
        if !isInWriteTransaction { refresh() }
        guard let txn = readableTxn() else {
            throw ObjDBError(.storage, "No read transaction could be begun", path: path)
        }
        // Inside a write, the index entries an encrypted file keeps waiting are counted too.
        try txn.settleAllKeys()
        var tables = [try environment.statistics(of: metaTable.dbi, named: "meta", txn: txn.handle)]
        if let changes {
            tables.append(try environment.statistics(of: changes.dbi, named: "changes", txn: txn.handle))
        }
        // An encrypted file's short rows and log entries lie here (Docs/FileFormat.md, "Row buckets").
        if let buckets = environment.rowBuckets {
            tables.append(try environment.statistics(of: buckets.dbi, named: "row buckets", txn: txn.handle))
        }
        for info in catalog.byName.values.sorted(by: { $0.name < $1.name }) {
            let name = info.name
            tables.append(try environment.statistics(of: info.tables.objects.dbi, named: "\(name) objects", txn: txn.handle))
            if let primaryKeys = info.tables.primaryKeys {
                tables.append(try environment.statistics(of: primaryKeys.dbi, named: "\(name) primary keys", txn: txn.handle))
            }
            for (column, property) in info.stored.properties.enumerated() {
                if let index = info.tables.indexes[column] {
                    tables.append(try environment.statistics(of: index.dbi, named: "\(name) index \(property.name)", txn: txn.handle))
                }
                if let backlinks = info.tables.backlinks[column] {
                    tables.append(try environment.statistics(of: backlinks.dbi, named: "\(name) backlinks \(property.name)", txn: txn.handle))
                }
                if let fullText = info.tables.fullText[column] {
                    tables.append(try environment.statistics(of: fullText.dbi, named: "\(name) full-text \(property.name)", txn: txn.handle))
                }
                if let mixedLinks = info.tables.mixedLinks[column] {
                    tables.append(try environment.statistics(of: mixedLinks.dbi, named: "\(name) mixed links \(property.name)", txn: txn.handle))
                }
            }
        }
        return (try environment.environmentStatistics(txn: txn.handle), tables)
    }

    /// The reader table of the file's lock file, one line per reader after a header (as
    /// `mdb_stat -r` prints it).
    @_spi(Inspection)
    public func readerTable() -> [String] { environment.readerList() }

    /// Clears reader slots left by processes that no longer exist; the number cleared.
    @_spi(Inspection)
    public func clearStaleReaders() throws -> Int { try environment.clearStaleReaders() }
}

extension ObjectBase {
    /// The value of stored property number `column` (the order of ``ObjectSchema/properties``
    /// read from the file), as ``subscript(_:)`` gives it by name, without looking the name up:
    /// for tools that read every property of many objects. `nil` for a column out of range.
    /// ``value(forKey:)`` reads through it once it has the column.
    @_spi(Inspection)
    public func value(atColumn column: Int) -> Any? {
        guard let info = _objdbInfo, column >= 0, column < info.columnCount else { return nil }
        if info.columnKinds[column] != .value, let database = _objdbDatabase {
            return database.dynamicValue(of: self, column: column)
        }
        let read = _objdbRead(column)
        let type = info.valueType(column: column)
        let value = if let database = _objdbDatabase { database.anyValue(of: read, type) } else { type.anyValue(from: read) }
        return value ?? info.defaultValue(column: column)
    }

    /// The object's key in its class's table, `nil` for an unmanaged object: what `objdb`
    /// prints as `"$key"` for objects without a primary key.
    @_spi(Inspection)
    public var objectKey: UInt64? {
        guard _objdbDatabase != nil else { return nil }
        _objdbSettleInsert()
        return _objdbKey
    }
}
