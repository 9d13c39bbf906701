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

    /// The schema version stored in the file at `fileURL`, without opening it for writing.
    ///
    /// - Throws: ``ObjDBError/Code/fileNotFound``, ``ObjDBError/Code/notAnObjDBFile`` and the
    ///   other open errors.
    public static func schemaVersion(at fileURL: URL) throws -> UInt64 {
        let path = try Configuration.canonicalPath(fileURL.path)
        let options = EnvironmentOptions(readOnly: true, mapSize: Configuration.defaultMaximumSize)
        let lease = try EnvironmentRegistry.shared.acquire(path: path, options: options)
        guard let meta = try lease.environment.existingTable(named: TableName.meta, flags: .plain) else {
            throw ObjDBError(.notAnObjDBFile, "The file has no ObjDB meta table", path: path)
        }
        let read = try ReadTransaction(lease)
        return try FileMeta.read(read.txn, meta: meta, path: path).schemaVersion
    }

    /// The size of the database file in bytes.
    public var fileSize: Int {
        do {
            return try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        } catch {
            reportReadFailure(error, while: "Reading the size of the database file")
            return 0
        }
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
