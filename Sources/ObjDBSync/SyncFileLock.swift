import Foundation
import ObjDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock that keeps a file to one ``SyncClient``: an exclusive `flock` on `<file>.synclock`,
/// held while the client lives and released by the system if its process dies.
final class SyncFileLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock of the file at `fileURL`.
    ///
    /// - Throws: ``ObjDB/ObjDBError/Code/fileInUse`` if another client (in this process or
    ///   another) holds it; ``ObjDB/ObjDBError/Code/permissionDenied`` if it cannot be created.
    init(fileURL: URL) throws {
        let path = fileURL.path + ".synclock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ObjDBError(.permissionDenied, "Cannot create the sync lock file \(path): \(String(cString: strerror(errno)))", path: fileURL.path)
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw ObjDBError(
                .fileInUse, "Another SyncClient already syncs this file (one SyncClient per file); stop it first", path: fileURL.path)
        }
        descriptor = fd
    }

    /// The identity of the file at `fileURL`: its device and inode numbers, 16 bytes. A copy or
    /// a restored backup has another; a file moved within its file system keeps it.
    static func identity(of fileURL: URL) throws -> [UInt8] {
        var info = stat()
        guard stat(fileURL.path, &info) == 0 else {
            throw ObjDBError(.fileNotFound, "Cannot read the attributes of \(fileURL.path): \(String(cString: strerror(errno)))", path: fileURL.path)
        }
        var bytes: [UInt8] = []
        withUnsafeBytes(of: UInt64(truncatingIfNeeded: info.st_dev).littleEndian) { bytes += $0 }
        withUnsafeBytes(of: UInt64(truncatingIfNeeded: info.st_ino).littleEndian) { bytes += $0 }
        return bytes
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
