import CLMDB
import Foundation

/// Throws an ``ObjDBError`` when an `mdb_*` call did not return `MDB_SUCCESS`.
///
/// Every LMDB call is checked where it is made; `operation` names the call so the error says
/// which step failed.
@inline(__always)
func lmdbCheck(_ rc: Int32, _ operation: @autoclosure () -> String, path: @autoclosure () -> String? = nil) throws {
    if rc != MDB_SUCCESS { throw ObjDBError.lmdb(rc, operation: operation(), path: path()) }
}

extension ObjDBError {
    /// Maps an LMDB (or `errno`) result code to an error with a specific code and an actionable message.
    static func lmdb(_ rc: Int32, operation: String, path: String? = nil) -> ObjDBError {
        let text = String(cString: mdb_strerror(rc))
        let code: Code
        let message: String
        switch rc {
        case MDB_MAP_FULL:
            code = .mapFull
            message = "The database is full (\(operation)): it reached Configuration.maximumSize. The write transaction was rolled back and nothing of it was kept; reopen the database with a larger maximumSize (with this build of LMDB, ObjDB keeps no reserve for deletes, so deleting may need the larger limit too)"
        case MDB_MAP_RESIZED:
            code = .mapResized
            message = "Another process grew the database beyond this process's memory map (\(operation)); close other snapshots of this file and retry"
        case MDB_READERS_FULL:
            code = .readersFull
            message = "Every reader slot of the file is in use (\(operation)); release frozen objects or other Database instances"
        case MDB_INVALID, MDB_VERSION_MISMATCH, MDB_INCOMPATIBLE:
            code = .notAnObjDBFile
            message = "The file is not an ObjDB database (\(operation))"
        case MDB_CORRUPTED, MDB_PAGE_NOTFOUND, MDB_PANIC:
            code = .corruptFile
            message = "The database file is damaged (\(operation))"
        case MDB_DBS_FULL:
            code = .tooManyTables
            message = "The schema needs more tables than the environment allows (\(operation))"
        case ENOENT:
            code = .fileNotFound
            message = "The database file does not exist (\(operation))"
        case EACCES, EPERM, EROFS:
            code = .permissionDenied
            message = "Permission denied (\(operation)): check the file and its directory"
        default:
            code = .storage
            message = "LMDB failed in \(operation)"
        }
        return ObjDBError(code, message, path: path, lmdbCode: rc, lmdbMessage: text)
    }
}
