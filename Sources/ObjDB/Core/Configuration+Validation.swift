import Foundation

extension Configuration {
    /// The smallest ``maximumSize`` accepted: 16 memory pages (64 KiB with 4 KiB pages). A new
    /// file takes a few pages before it holds any object, and every class a few more.
    public static var minimumMaximumSize: Int { 16 * Int(getpagesize()) }

    /// Refuses settings that cannot work, before anything is opened or created:
    /// ``ObjDBError/Code/incompatibleConfiguration`` with a message naming the setting.
    func validate() throws {
        if let maximumSize, maximumSize < Self.minimumMaximumSize {
            throw ObjDBError(
                .incompatibleConfiguration,
                "Configuration.maximumSize is \(maximumSize) bytes; it must be at least \(Self.minimumMaximumSize) (Configuration.minimumMaximumSize), or nil for the default of \(Self.defaultMaximumSize)")
        }
        if readOnly && deleteDatabaseIfMigrationNeeded {
            throw ObjDBError(
                .incompatibleConfiguration,
                "Configuration.readOnly and deleteDatabaseIfMigrationNeeded are both set: a read-only database never deletes its file; unset one of them")
        }
        if let encryptionKey, encryptionKey.count != StoreCipher.keyLength {
            throw ObjDBError(
                .incompatibleConfiguration,
                "Configuration.encryptionKey has \(encryptionKey.count) bytes; it must have \(StoreCipher.keyLength) (as Realm's), or be nil for a file that is not encrypted")
        }
        if maximumNumberOfActiveVersions == 0 {
            throw ObjDBError(
                .incompatibleConfiguration,
                "Configuration.maximumNumberOfActiveVersions is 0; a database always has at least the version it reads. Use 1 or more, or nil for no limit")
        }
        if inMemoryIdentifier == nil, let fileURL, !fileURL.isFileURL {
            throw ObjDBError(
                .incompatibleConfiguration,
                "Configuration.fileURL \(fileURL.absoluteString) is not a file URL; use URL(fileURLWithPath:)")
        }
    }

    /// Refuses a database path that names something other than a file: a directory (which
    /// `deleteFiles(for:)` would otherwise delete with everything in it), a device or a pipe;
    /// with `readOnly`, also an empty file, which holds no database and which a read-only open
    /// cannot make one (LMDB's own error says only "Bad file descriptor"). A path that does not
    /// exist yet is fine.
    static func checkIsFileOrMissing(_ path: String, readOnly: Bool = false) throws {
        // stat(2) alone: FileManager's attributes also look up the owner's and group's names,
        // which reads the system's user and group databases at every open.
        var info = stat()
        // A path that cannot be examined does not exist yet (fine) or cannot be read, which the
        // open reports with the file's own error.
        guard stat(path, &info) == 0 else { return }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR {
            throw ObjDBError(
                .incompatibleConfiguration,
                "Configuration.fileURL names a directory; point it at a file, such as \(URL(fileURLWithPath: path).appendingPathComponent("default.objdb").path)",
                path: path)
        }
        if type != S_IFREG {
            let kind: String
            switch type {
            case S_IFCHR: kind = "a character device"
            case S_IFBLK: kind = "a block device"
            case S_IFIFO: kind = "a pipe"
            case S_IFSOCK: kind = "a socket"
            default: kind = "of type \(String(type, radix: 8))"
            }
            throw ObjDBError(
                .incompatibleConfiguration,
                "Configuration.fileURL names something that is not a regular file (\(kind)); point it at a database file",
                path: path)
        }
        if readOnly && info.st_size == 0 {
            throw ObjDBError(
                .notAnObjDBFile, "The file is empty: it holds no ObjDB database, and a read-only open cannot create one", path: path)
        }
    }
}
