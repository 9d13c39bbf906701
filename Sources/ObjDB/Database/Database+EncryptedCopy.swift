import Foundation

extension Database {
    /// Writes a copy of the newest committed version to `fileURL`, encrypted with
    /// `encryptionKey` (64 bytes), or not encrypted when it is `nil`: to change a file's key, or
    /// add or remove its encryption. Open the copy with the new key.
    ///
    /// ```swift
    /// try db.writeCopy(toFile: url, encryptionKey: newKey)  // re-key; nil writes an unencrypted copy
    /// ```
    ///
    /// Every table is read in one snapshot and written again under the new key, primary-key and
    /// index tables rebuilt from the rows (their keys depend on the key). The copy is written to
    /// a temporary file beside `fileURL`, flushed to disk and only then linked to `fileURL`, so a
    /// crash leaves either no copy or a complete one (and at worst a temporary file whose name
    /// starts with the copy's and ends in `.partial`). ``writeCopy(toFile:compacting:)`` copies a
    /// file's pages as they are, and so keeps its key.
    ///
    /// - Throws: ``ObjDBError/Code/invalidValue`` if a file exists at `fileURL` (it is never
    ///   overwritten) or the key is not 64 bytes long, or the storage error that stopped the copy
    ///   (the partial copy is removed).
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data?) throws {
        let destination = try Configuration.canonicalPath(fileURL.path)
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw ObjDBError(.invalidValue, "writeCopy(toFile:encryptionKey:) never overwrites a file, and \(destination) exists; remove it or choose another path", path: path)
        }
        if let encryptionKey, encryptionKey.count != StoreCipher.keyLength {
            throw ObjDBError(.invalidValue, "The copy's encryptionKey has \(encryptionKey.count) bytes; it must have \(StoreCipher.keyLength)", path: path)
        }
        let temporary = destination + ".\(UUID().uuidString).partial"
        do {
            try ReKeyedCopy.write(from: lease, to: temporary, cipher: encryptionKey.map(StoreCipher.init(key:)))
            try Compaction.syncFile(temporary)
            // link(2) refuses an existing destination, where rename(2) would replace it.
            guard link(temporary, destination) == 0 else {
                throw ObjDBError(.invalidValue, "The copy could not be linked to \(destination): \(String(cString: strerror(errno)))", path: path)
            }
            try Compaction.syncFile(URL(fileURLWithPath: destination).deletingLastPathComponent().path)
        } catch {
            _ = try? Self.removeFiles(atPath: temporary)  // try?: the copy's own error is the one to report
            throw Self.objdbError(error, path: path)
        }
        // try?: the copy is complete at its destination; a temporary name left is only clutter.
        _ = try? Self.removeFiles(atPath: temporary)
    }
}

/// A copy of a file written table by table under another cipher (or none), for
/// ``Database/writeCopy(toFile:encryptionKey:)``.
enum ReKeyedCopy {
    static func write(from lease: EnvironmentLease, to path: String, cipher: StoreCipher?) throws {
        let source = lease.environment
        // The handles a snapshot uses must be open before it begins; a table created meanwhile
        // shows in the second listing, and the copy begins again.
        var tables: [String: Table] = [:]
        var pinned: ReadTransaction?
        for _ in 0..<10 {
            let read = try ReadTransaction(lease)
            // Tables of names ObjDB does not know are not copied: seen, not waited for.
            let names = try read.txn.tableNames().filter { TableName.flags(ofTable: $0) != nil }
            if names.allSatisfy({ tables[$0] != nil }) {
                pinned = read
                break
            }
            for name in names where tables[name] == nil {
                guard let flags = TableName.flags(ofTable: name) else { continue }
                tables[name] = try source.existingTable(named: name, flags: flags)
            }
        }
        guard let read = pinned else {
            throw ObjDBError(.storage, "The file's tables changed too fast to copy one version; try again", path: source.path)
        }
        guard let meta = tables[TableName.meta] else {
            throw ObjDBError(.notAnObjDBFile, "The file has no ObjDB meta table", path: source.path)
        }
        let schema = try FileMeta.read(read.txn, meta: meta, path: source.path).schema

        var options = source.options
        options.readOnly = false
        options.deleteOnClose = false
        options.cipher = cipher
        let target = try EnvironmentRegistry.shared.acquire(path: path, options: options)
        if cipher != nil {
            // The row buckets first, in a transaction of their own: the copy's transaction keeps
            // buckets only in a file that had the table when it began.
            let setup = try WriteTransaction(target.environment)
            _ = try setup.openTable(named: TableName.buckets, flags: .plain)
            try setup.commit()
        }
        let write = try WriteTransaction(target.environment)
        let from = read.txn
        let to = write.txn
        var targets: [String: Table] = [:]
        for (name, table) in tables.sorted(by: { $0.key < $1.key }) {
            let copy = try to.openTable(named: name, flags: table.flags)
            targets[name] = copy
            // Keys of key tables and the words of full-text indexes are hashes in an encrypted
            // file: rebuilt from the rows below.
            let rebuilt = (table.flags == .multimap || table.flags == .postings) && (table.seal == .keys || copy.seal == .keys)
            guard !rebuilt else { continue }
            // A value that does not authenticate stops the copy: written under the new key, it
            // would become a valid value.
            let cursor = try Cursor(from, table, readsLeafPages: false, tracksFailures: true)
            var entry = try cursor.first()
            while let current = entry {
                if let error = cursor.failure?.error { throw error }
                let isKeyCheck = name == TableName.meta
                    && (current.key.elementsEqual(FileMeta.Key.encryption.utf8) || current.key.elementsEqual(FileMeta.Key.checksum.utf8))
                if !isKeyCheck { try to.put(copy, key: current.key, value: current.value) }
                entry = try cursor.next()
            }
            if let error = cursor.failure?.error { throw error }
        }
        for stored in schema.classes {
            try rebuildKeyTables(stored, tables: tables, targets: targets, from: from, to: to)
            try rebuildFullTextIndexes(stored, tables: tables, targets: targets, to: to)
        }
        guard let targetMeta = targets[TableName.meta] else { throw ObjDBError(.storage, "The copy has no meta table", path: path) }
        if let cipher {
            try FileMeta.put(to, targetMeta, FileMeta.Key.encryption, try KeyCheck.record(cipher: cipher, tag: targetMeta.tag))
        }
        // Buckets are for encrypted files: the copy's format says whether it may hold them.
        let format = cipher == nil
            ? max(FileMeta.checksummedFormat, FileMeta.requiredFormat(for: schema)) : FileMeta.bucketsFormat
        try withUnsafeBytes(of: format.littleEndian) { try FileMeta.put(to, targetMeta, FileMeta.Key.format, Array($0)) }
        try FileMeta.seal(to, targetMeta)
        try write.commit()
        withExtendedLifetime(read) {}
    }

    /// Fills the full-text indexes of `stored` in the copy from the copy's rows, when their words
    /// cannot be copied (either file hashes them).
    private static func rebuildFullTextIndexes(_ stored: StoredClass, tables: [String: Table], targets: [String: Table], to: Txn) throws {
        for (column, property) in stored.properties.enumerated() where property.fullText != nil {
            let name = TableName.fullText(stored.id, property: property.id)
            guard let source = tables[name], let target = targets[name], source.seal == .keys || target.seal == .keys,
                let objects = targets[TableName.objects(stored.id)]
            else { continue }
            try FullTextIndexBuilder.fill(target, column: column, from: objects, txn: to)
        }
    }

    /// Fills the primary-key, index and mixed-links tables of `stored` in the copy from its rows,
    /// when their keys cannot be copied (either file keys hashes).
    private static func rebuildKeyTables(
        _ stored: StoredClass, tables: [String: Table], targets: [String: Table], from: Txn, to: Txn
    ) throws {
        var keyed: [(column: Int, property: StoredProperty, table: Table)] = []
        for (column, property) in stored.properties.enumerated() {
            let name = property.primaryKey ? TableName.primaryKeys(stored.id)
                : property.indexed ? TableName.index(stored.id, property: property.id) : nil
            guard let name, let source = tables[name], let target = targets[name],
                source.seal == .keys || target.seal == .keys
            else { continue }
            keyed.append((column, property, target))
        }
        var linking: [(column: Int, kind: ColumnKind, table: Table)] = []
        for (column, property) in stored.properties.enumerated() where property.type == .mixed {
            let name = TableName.mixedLinks(stored.id, property: property.id)
            guard let source = tables[name], let target = targets[name], source.seal == .keys || target.seal == .keys else { continue }
            linking.append((column, ColumnKind(property), target))
        }
        guard !keyed.isEmpty || !linking.isEmpty, let objects = tables[TableName.objects(stored.id)] else { return }
        let cursor = try Cursor(from, objects, readsLeafPages: false)
        var entry = try cursor.first()
        while let current = entry {
            guard let row = RowView(current.value) else {
                throw ObjDBError(.corruptFile, "The row of object key \(current.objectKey) of '\(stored.name)' is damaged; the copy stops", path: from.environment.path)
            }
            var objectKey = current.objectKey
            for (column, property, table) in keyed {
                let key = ClassVerifier.keyBytes(row.column(column), property)
                try key.withUnsafeBytes { k in try withUnsafeBytes(of: &objectKey) { _ = try to.put(table, key: k, value: $0) } }
            }
            for (column, kind, table) in linking {
                for target in Database.mixedLinkKeys(row.column(column), kind: kind) ?? [] {
                    try target.withUnsafeBytes { k in try withUnsafeBytes(of: &objectKey) { _ = try to.put(table, key: k, value: $0) } }
                }
            }
            entry = try cursor.next()
        }
    }
}
