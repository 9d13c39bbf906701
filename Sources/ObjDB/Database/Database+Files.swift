import Foundation

extension Database {
    /// Deletes the database file and its lock file.
    ///
    /// - Returns: whether the database file existed.
    /// - Throws: ``ObjDBError/Code/fileInUse`` if a `Database` in this process still has the file
    ///   open, ``ObjDBError/Code/incompatibleConfiguration`` if the file URL names a directory
    ///   (which is left alone), or a file-system error as ``ObjDBError/Code/permissionDenied``.
    @discardableResult
    public static func deleteFiles(for configuration: Configuration) throws -> Bool {
        if configuration.inMemoryIdentifier != nil { return false }
        let path = try configuration.resolvedPath()
        try Configuration.checkIsFileOrMissing(path)
        guard !EnvironmentRegistry.shared.isOpen(path: path) else {
            throw ObjDBError(.fileInUse, "The database is still open in this process; release every Database instance first", path: path)
        }
        return try removeFiles(atPath: path)
    }

    /// Whether the database file of `configuration` exists (a directory at its path is no
    /// database file).
    public static func fileExists(for configuration: Configuration) -> Bool {
        // try?: a path whose directory does not exist has no file.
        guard configuration.inMemoryIdentifier == nil, let path = try? configuration.resolvedPath() else { return false }
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    /// The schema version stored in the file at `fileURL`, without opening it for writing. An
    /// encrypted file needs its `encryptionKey` (its records are encrypted too).
    ///
    /// - Throws: ``ObjDBError/Code/fileNotFound``, ``ObjDBError/Code/notAnObjDBFile``,
    ///   ``ObjDBError/Code/encryptionKeyRequired`` and the other open errors;
    ///   ``ObjDBError/Code/invalidValue`` for a key that is not 64 bytes long.
    public static func schemaVersion(at fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
        let path = try Configuration.canonicalPath(fileURL.path)
        if let encryptionKey, encryptionKey.count != StoreCipher.keyLength {
            throw ObjDBError(.invalidValue, "The encryptionKey has \(encryptionKey.count) bytes; it must have \(StoreCipher.keyLength)", path: path)
        }
        let options = EnvironmentOptions(
            readOnly: true, mapSize: Configuration.defaultMaximumSize, cipher: encryptionKey.map(StoreCipher.init(key:)))
        let lease = try EnvironmentRegistry.shared.acquire(path: path, options: options)
        guard let meta = try lease.environment.existingTable(named: TableName.meta, flags: .plain) else {
            throw ObjDBError(.notAnObjDBFile, "The file has no ObjDB meta table", path: path)
        }
        let read = try ReadTransaction(lease)
        return try FileMeta.read(read.txn, meta: meta, path: path).schemaVersion
    }

    /// The size of the database file in bytes.
    public var fileSize: Int {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let error = ObjDBError(.storage, "Cannot read the size of the database file: \(String(cString: strerror(errno)))", path: path)
            reportReadFailure(error, while: "Reading the size of the database file")
            return 0
        }
        return Int(info.st_size)
    }

    /// Removes a data file and its lock file; returns whether the data file existed.
    static func removeFiles(atPath path: String) throws -> Bool {
        let manager = FileManager.default
        let existed = manager.fileExists(atPath: path)
        do {
            if existed { try manager.removeItem(atPath: path) }
            if manager.fileExists(atPath: path + "-lock") { try manager.removeItem(atPath: path + "-lock") }
        } catch {
            throw ObjDBError(.permissionDenied, "Could not delete the database files: \(error.localizedDescription)", path: path)
        }
        return existed
    }
}

extension Database {
    /// Writes a copy of the newest committed version to `fileURL`, compacted by default: only
    /// the pages in use, so the copy is as small as the data allows. The copy is consistent while other
    /// instances and processes write (it reads one version), and flushed to disk when this
    /// returns. Open it like any database file.
    ///
    /// ```swift
    /// try db.writeCopy(toFile: URL(fileURLWithPath: "backup.objdb"))
    /// ```
    ///
    /// With `compacting` false, every page is copied as it is, free pages included: faster for
    /// a file with few free pages, and the copy is the same size as the file.
    ///
    /// - Throws: ``ObjDBError/Code/invalidValue`` if a file exists at `fileURL` (it is never
    ///   overwritten), or the storage error that stopped the copy (a partial copy is removed).
    public func writeCopy(toFile fileURL: URL, compacting: Bool = true) throws {
        let destination = try Configuration.canonicalPath(fileURL.path)
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw ObjDBError(.invalidValue, "writeCopy(toFile:) never overwrites a file, and \(destination) exists; remove it or choose another path", path: path)
        }
        do {
            try environment.writeCopy(to: destination, compacting: compacting)
        } catch {
            // LMDB creates the copy exclusively: a file that appeared meanwhile is someone else's.
            if (error as? ObjDBError)?.lmdbCode != EEXIST {
                // try?: the copy's own error is the one to report.
                try? FileManager.default.removeItem(atPath: destination)
            }
            throw Self.objdbError(error, path: path)
        }
    }
}
