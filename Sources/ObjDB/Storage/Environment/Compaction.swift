import CLMDB
import Foundation

/// Copies and compaction of a database file (`mdb_env_copy2` with `MDB_CP_COMPACT`), and the
/// locks that keep a compaction at launch from swapping the file under another process.
///
/// Every LMDB process that has the file open holds a shared `fcntl` lock on the first byte of
/// the lock file. A compaction takes that byte exclusively (so it runs only when no process has
/// the file open, and LMDB processes that open it meanwhile wait) and keeps it until the
/// compacted copy replaced the file. ObjDB environments also hold a shared `flock` on the lock
/// file, which the compaction takes exclusively too. It runs only while this process has no
/// environment on the file: closing the descriptor at the end drops this process's `fcntl`
/// locks on the file, which would otherwise include LMDB's own.
enum Compaction {

    /// Compacts the file at `path` if no other process has it open and `shouldCompact(total,
    /// used)` says so: a compacted copy is written beside it, given the file's permissions,
    /// owner, group and extended attributes (``FileAttributes``), flushed, and renamed over it.
    /// A copy that cannot keep one of them is removed, and the file stays as it was.
    /// `cipher`: the key the file is opened with; a file encrypted otherwise is left alone (the
    /// open then refuses it, untouched).
    static func compactIfWanted(path: String, cipher: StoreCipher?, _ shouldCompact: (Int, Int) -> Bool) -> CompactionOnLaunch {
        let lockPath = path + "-lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return .skipped(reason: "the lock file \(lockPath) cannot be opened (\(String(cString: strerror(errno))))") }
        defer { close(descriptor) }
        guard takeExclusiveFileLock(descriptor) else { return .skipped(reason: "another process has the file open") }
        var exclusive = flock()
        exclusive.l_type = Int16(F_WRLCK)
        exclusive.l_whence = Int16(SEEK_SET)
        exclusive.l_start = 0
        exclusive.l_len = 1
        guard fcntl(descriptor, F_SETLK, &exclusive) == 0 else { return .skipped(reason: "another process has the file open") }
        do {
            return try compact(path: path, cipher: cipher, shouldCompact)
        } catch {
            return .skipped(reason: "\(error)")
        }
    }

    /// Takes the lock file's `flock` exclusively, trying again for up to about 200 ms before
    /// giving up: a process closing the file lets it go within moments, and so does a child
    /// process between `fork` and `exec`, which shares the descriptors of the process that
    /// started it (and so its shared lock on a file that process closed meanwhile) for as long.
    private static func takeExclusiveFileLock(_ descriptor: Int32) -> Bool {
        for _ in 0..<40 {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK || errno == EINTR else { return false }
            usleep(5_000)
        }
        return false
    }

    /// Measures the file through an environment without a lock file (this process alone has it
    /// open), and compacts it if wanted.
    private static func compact(path: String, cipher: StoreCipher?, _ shouldCompact: (Int, Int) -> Bool) throws -> CompactionOnLaunch {
        guard let total = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int else {
            return .skipped(reason: "the file does not exist yet")
        }
        var env: OpaquePointer?
        try lmdbCheck(mdb_env_create(&env), "mdb_env_create", path: path)
        guard let env else { throw ObjDBError(.storage, "mdb_env_create returned no handle", path: path) }
        defer { mdb_env_close(env) }
        try lmdbCheck(mdb_env_set_maxdbs(env, 1024), "mdb_env_set_maxdbs", path: path)
        try lmdbCheck(mdb_env_set_mapsize(env, max(total, 1 << 20)), "mdb_env_set_mapsize", path: path)
        let flags: EnvironmentFlags = [.noSubdirectory, .noThreadLocalStorage, .readOnly, .noLock]
        try lmdbCheck(mdb_env_open(env, path, flags.rawValue, 0o644), "mdb_env_open", path: path)
        guard try encryptionMatches(env, cipher, path: path) else {
            return .skipped(reason: "the file's encryption does not match Configuration.encryptionKey")
        }
        let used = try usedBytes(env, path: path)
        guard shouldCompact(total, used) else { return .declined(totalBytes: total, usedBytes: used) }
        let temporary = path + ".compacting"
        unlink(temporary)
        do {
            // Created readable by the owner alone, until it has the file's permissions.
            let copy = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard copy >= 0 else {
                throw ObjDBError(.storage, "The compacted copy \(temporary) could not be created (\(String(cString: strerror(errno))))", path: path)
            }
            let copied = mdb_env_copyfd2(env, copy, UInt32(MDB_CP_COMPACT))
            close(copy)
            try lmdbCheck(copied, "mdb_env_copyfd2", path: path)
            try FileAttributes.carry(from: path, to: temporary)
            try syncFile(temporary)
            guard rename(temporary, path) == 0 else {
                throw ObjDBError(.storage, "The compacted copy could not replace the file (\(String(cString: strerror(errno))))", path: path)
            }
        } catch {
            unlink(temporary)
            throw error
        }
        // The rename itself reaches the disk with the directory.
        try? syncFile((path as NSString).deletingLastPathComponent)  // try?: the copy is complete either way
        let after = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? 0
        return .compacted(fromBytes: total, toBytes: after)
    }

    /// Whether the file's key-check record (``KeyCheck``) matches `cipher`: absent without one,
    /// present and matching with one.
    private static func encryptionMatches(_ env: OpaquePointer, _ cipher: StoreCipher?, path: String) throws -> Bool {
        var txn: OpaquePointer?
        try lmdbCheck(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin", path: path)
        defer { mdb_txn_abort(txn) }
        var dbi: MDB_dbi = 0
        guard mdb_dbi_open(txn, "meta", 0, &dbi) == MDB_SUCCESS else { return cipher == nil }
        var name = Array("encryption".utf8)
        var value = MDB_val()
        let found = name.withUnsafeMutableBytes { bytes in
            var key = MDB_val(mv_size: bytes.count, mv_data: bytes.baseAddress)
            return mdb_get(txn, dbi, &key, &value)
        }
        guard found == MDB_SUCCESS else { return cipher == nil }
        guard let cipher else { return false }
        return KeyCheck.check(value.bytes, cipher: cipher, tag: StoreCipher.tag(ofTable: "meta")) == .matches
    }

    /// The bytes of the pages in use: every page up to the last one, less those on the free list.
    private static func usedBytes(_ env: OpaquePointer, path: String) throws -> Int {
        var info = MDB_envinfo()
        var stat = MDB_stat()
        try lmdbCheck(mdb_env_info(env, &info), "mdb_env_info", path: path)
        try lmdbCheck(mdb_env_stat(env, &stat), "mdb_env_stat", path: path)
        var txn: OpaquePointer?
        try lmdbCheck(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin (read)", path: path)
        guard let txn else { throw ObjDBError(.storage, "mdb_txn_begin returned no handle", path: path) }
        defer { mdb_txn_abort(txn) }
        var cursor: OpaquePointer?
        try lmdbCheck(mdb_cursor_open(txn, 0, &cursor), "mdb_cursor_open (free list)", path: path)
        defer { mdb_cursor_close(cursor) }
        var free = 0
        var key = MDB_val(), value = MDB_val()
        var rc = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
        while rc == MDB_SUCCESS {
            // Each entry is a list of page numbers, its length first.
            if value.mv_size >= MemoryLayout<Int>.size, let data = value.mv_data {
                free += data.loadUnaligned(as: Int.self)
            }
            rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
        }
        guard rc == MDB_NOTFOUND else { throw ObjDBError.lmdb(rc, operation: "mdb_cursor_get (free list)", path: path) }
        return max(0, info.me_last_pgno + 1 - free) * Int(stat.ms_psize)
    }

    /// Flushes a file to disk.
    static func syncFile(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ObjDBError(.storage, "\(path) cannot be opened to flush it", path: path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw ObjDBError(.storage, "\(path) could not be flushed (\(String(cString: strerror(errno))))", path: path) }
    }
}

/// What ``Configuration/shouldCompactOnLaunch`` led to (``Database/compactionOnLaunch``).
public enum CompactionOnLaunch: Sendable, Equatable {
    /// The closure was asked and said no.
    case declined(totalBytes: Int, usedBytes: Int)
    /// The file was compacted from one size to the other.
    case compacted(fromBytes: Int, toBytes: Int)
    /// The closure was not asked, or the compaction failed and the file was left as it was:
    /// the reason (another process has the file open, this process has it open already, …).
    case skipped(reason: String)
}

extension Environment {
    /// Writes a copy of the newest committed version to `destination` (which must not exist),
    /// flushed to disk: compacted (only the pages in use, renumbered), or page for page.
    func writeCopy(to destination: String, compacting: Bool = true) throws {
        try countingAsTransaction {
            try lmdbCheck(mdb_env_copy2(handle, destination, compacting ? UInt32(MDB_CP_COMPACT) : 0), "mdb_env_copy2", path: path)
        }
        try Compaction.syncFile(destination)
    }

    /// Takes a shared `flock` on the lock file for the environment's life (see ``Compaction``),
    /// before LMDB opens the file; the descriptor, or -1 where the lock file cannot be opened
    /// (a read-only environment whose lock file does not exist yet opens it without the lock).
    static func holdSharedFileLock(_ lockPath: String, readOnly: Bool) -> Int32 {
        let descriptor = readOnly ? open(lockPath, O_RDONLY | O_CLOEXEC) : open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return -1 }
        // Waits while a compaction at launch in another process holds it exclusively.
        flock(descriptor, LOCK_SH)
        return descriptor
    }
}
