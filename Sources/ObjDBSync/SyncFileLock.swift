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

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
