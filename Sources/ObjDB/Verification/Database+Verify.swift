import Foundation

extension Database {
    /// Checks the whole file and returns what it found; damage is reported, never thrown.
    ///
    /// ```swift
    /// let report = try db.verify()
    /// if !report.isHealthy {
    ///     print(report)          // one line per problem: kind, what is wrong, table, class, key, page
    /// }
    /// ```
    ///
    /// It reads every page of the newest committed version with bounds-checked code of its own,
    /// never through LMDB's cursors (which assert, and abort the process, on damaged pages), and
    /// checks:
    /// - the pages: headers, nodes, key order, the ranges branches give their children, overflow
    ///   pages, duplicates, each table's counts, and that every page is used exactly once (in a
    ///   table or in the free list) and lies within the file;
    /// - ObjDB's records: the `meta` table and its checksum, the schema, key counters;
    /// - every row: its checksum (a changed byte anywhere in a value or the key is found), and
    ///   every column decoded against the class's schema;
    /// - the primary-key, index and backlink tables entry by entry against what the rows say,
    ///   and that links and collection elements point to objects that exist, and each embedded
    ///   object has exactly one parent.
    ///
    /// The version checked is pinned by a read transaction, so writers (in this process or
    /// others) can go on meanwhile. It costs one read of every page: about as long as reading
    /// every object, plus sorting the keys of each index.
    ///
    /// - Throws: ``ObjDBError`` only when the file cannot be read at all (an I/O error).
    public func verify() throws -> VerificationReport {
        try FileVerifier.verifyPinned(lease, path: path)
    }

    /// Checks a database file without opening it as a `Database`, and returns what it found.
    ///
    /// Works on files that would not open: damaged meta pages, truncated files, files that are
    /// not ObjDB files (the report says so). A file that is no database file at all — empty, or
    /// without an LMDB meta page (text, random bytes, another format) — is not opened: its
    /// report has ``VerificationReport/isDatabaseFile`` `false` and one problem saying why. If
    /// the file opens as an LMDB file, the newest
    /// version is pinned by a read transaction while it is checked, so another process may keep
    /// writing; otherwise the newest version its meta pages describe is walked as it is.
    ///
    /// ```swift
    /// let report = try Database.verify(fileAt: URL(fileURLWithPath: "app.objdb"))
    /// print(report.isHealthy ? "healthy" : report.description)
    /// ```
    ///
    /// - Throws: ``ObjDBError/Code/fileNotFound`` if there is no file; ``ObjDBError`` if it cannot be read.
    public static func verify(fileAt url: URL) throws -> VerificationReport {
        try verify(fileAt: url, encryptionKey: nil)
    }

    /// ``verify(fileAt:)`` of an encrypted file, with its 64-byte key: without it the pages are
    /// checked but what they hold cannot be, and the report says the file is encrypted; with a
    /// wrong key it says that.
    ///
    /// - Throws: ``ObjDBError/Code/invalidValue`` for a key that is not 64 bytes long, and the
    ///   errors of ``verify(fileAt:)``.
    public static func verify(fileAt url: URL, encryptionKey: Data?) throws -> VerificationReport {
        if let encryptionKey, encryptionKey.count != StoreCipher.keyLength {
            throw ObjDBError(.invalidValue, "The encryptionKey has \(encryptionKey.count) bytes; it must have \(StoreCipher.keyLength)")
        }
        let cipher = encryptionKey.map(StoreCipher.init(key:))
        let path = try Configuration.canonicalPath(url.path)
        guard FileManager.default.fileExists(atPath: path) else {
            throw ObjDBError(.fileNotFound, "There is no database file to verify", path: path)
        }
        // Before LMDB sees the file: nothing is read through it, and no lock file is made.
        if let reason = try MetaPages.foreignFileReason(PageFile(path: path)) {
            var report = VerificationReport(path: path, transactionID: 0)
            report.isDatabaseFile = false
            report.add(VerificationProblem(.metaPage, "The file is not an ObjDB file: \(reason)"))
            return report
        }
        let lease: EnvironmentLease
        do {
            lease = try EnvironmentRegistry.shared.acquireForInspection(path: path, mapSize: Configuration.defaultMaximumSize)
        } catch {
            // LMDB cannot open it (damaged meta pages, a failed structure check, no lock file
            // possible): walk what the meta pages describe, without a pinned version.
            return try FileVerifier.verifyUnpinned(path: path, cipher: cipher)
        }
        return try FileVerifier.verifyPinned(lease, path: path, cipher: cipher)
    }
}
