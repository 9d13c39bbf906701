import CLMDB
import Foundation

/// How commits reach the disk: LMDB's sync flags.
enum SyncMode: Sendable, Equatable {
    /// Both of a commit's writes are flushed: the data pages, then the meta page.
    case full
    /// `MDB_NOMETASYNC`: the data pages are flushed, the meta page is left to the next commit's
    /// flush or the operating system.
    case noMetaSync
    /// `MDB_NOSYNC | MDB_NOMETASYNC`: nothing is flushed; the operating system writes when it will.
    case noSync

    /// The `Configuration.durability` spelling of the mode, for messages.
    var durabilityName: String {
        switch self {
        case .full: ".full"
        case .noMetaSync: ".normal"
        case .noSync: ".noSync"
        }
    }
}

/// How to open an LMDB environment.
struct EnvironmentOptions: Sendable, Equatable {
    /// Opens with `MDB_RDONLY`: no writes, and the file must exist.
    var readOnly = false
    /// The maximum file size in bytes for transactions that add or change data
    /// (`Configuration.maximumSize`). The memory map is larger by the reserve for deletes
    /// (``SpaceReserve``) where that is available.
    var mapSize: Int
    /// When commits flush to disk.
    var sync = SyncMode.full
    /// Maximum number of named tables (`mdb_env_set_maxdbs`).
    var maxTables = 1024
    /// Reader slots (`mdb_env_set_maxreaders`), well above LMDB's default of 126.
    var maxReaders = 1022
    /// Delete the file and its lock file when the last user closes it (in-memory databases).
    var deleteOnClose = false
    /// The cipher of an encrypted file (`Configuration.encryptionKey`), `nil` for a plain one.
    var cipher: StoreCipher?

    static func == (a: EnvironmentOptions, b: EnvironmentOptions) -> Bool {
        a.readOnly == b.readOnly && a.mapSize == b.mapSize && a.sync == b.sync && a.maxTables == b.maxTables
            && a.maxReaders == b.maxReaders && a.deleteOnClose == b.deleteOnClose && a.cipher?.keyID == b.cipher?.keyID
    }
}

/// One open LMDB environment: one database file, shared by every `Database` on it in this process.
///
/// LMDB forbids opening the same file twice in one process, so environments are only created
/// through ``EnvironmentRegistry``, which hands out the one instance per canonical path.
/// All members are thread-safe.
final class Environment: @unchecked Sendable {
    /// The canonical path of the data file.
    let path: String
    /// The `MDB_env` handle.
    let handle: OpaquePointer
    /// The options the environment was opened with.
    let options: EnvironmentOptions
    /// The cipher of an encrypted file, `nil` for a plain one.
    var cipher: StoreCipher? { options.cipher }
    /// Page size of the file, for size computations.
    let pageSize: Int
    /// Whether scans in read-only transactions read leaf pages in place (``LeafPage``).
    let readsLeafPages: Bool
    /// The room beyond `maximumSize` kept for transactions that only delete; `nil` for a
    /// read-only environment, or where the transaction's page count cannot be read.
    let reserve: SpaceReserve?
    /// Whether the environment was opened without its lock file (`MDB_NOLOCK`): a read-only
    /// environment whose lock file cannot exist (``LockFileAccess/impossible``: a file in an
    /// application bundle or a read-only container image). Nothing then isolates its readers
    /// from a writer in another process; ObjDB assumes there is none, as no writer can open the
    /// file without its lock file either. A lock file that exists but may not be written is
    /// refused instead: its owner may be writing.
    let isLockless: Bool
    #if OBJDB_INTERNAL_CHECKS
    /// Tests only: the key of a row whose leaf node walks treat as unreadable, so that the
    /// cursor takes over from it (``RowWalk``).
    var refusedLeafKeyForTesting: UInt64?
    /// Tests only: reads of this table (cursor moves and gets, in read-only transactions) fail as
    /// LMDB fails on a damaged page, so that tests can see storage failures reported.
    nonisolated(unsafe) var failingReadsForTesting: Table?
    #endif

    /// The values the snapshots of the newest version read of an encrypted file decrypted,
    /// shared by them.
    let sharedSnapshotValues = SharedSnapshotValues()
    /// The file's size as last read, for the checks of values off their leaf page
    /// (``inFile(key:value:)``).
    let knownFileSize = KnownFileSize()
    /// The table of the current write transaction that one walk is still filling
    /// (``TableGuard``); read and written only by the thread of the write transaction.
    var writerTableGuard: TableGuard?
    /// Number of live `EnvironmentLease`s; guarded by the registry's lock.
    var leaseCount = 0
    /// The descriptor holding the shared `flock` on the lock file (see ``Compaction``); -1 for none.
    private var sharedLockDescriptor: Int32 = -1

    private let stateLock = NSLock()
    /// This process's writers, one at a time (see ``WriterGate``).
    let writerGate = WriterGate()
    /// Serialises `mdb_dbi_open`: LMDB requires that the transaction that opened a handle
    /// finishes before another transaction opens one. Recursive because a write transaction
    /// holds it until it ends and may open further tables meanwhile.
    private let tableLock = NSRecursiveLock()
    private var tables: [String: Table] = [:]
    /// Tables opened by the current write transaction; guarded by `tableLock`.
    private var writerTables: [String: Table] = [:]
    /// The thread whose write transaction holds `tableLock`; guarded by `stateLock`. A thread,
    /// not a flag: `mdb_txn_commit` lets the next writer in before ``writeTransactionEnded(committed:)``
    /// runs, and a shared flag then made the next writer skip the lock, or the ending one release
    /// the next one's lock (two instances writing from two threads deadlocked).
    private var tableLockOwner: pthread_t?

    /// Whether the calling thread's write transaction holds `tableLock`.
    private var writerHoldsTableLock: Bool {
        stateLock.withLock { tableLockOwner.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }
    private var liveTransactions = 0
    private var writerThread: pthread_t?
    /// Per counter id: the lowest value a counter may take again in this process (see
    /// ``raiseCounterFloor(_:to:)``).
    private var counterFloors: [UInt32: UInt64] = [:]
    /// Whether a full verification of the file passed in this process; guarded by `stateLock`.
    private var verified = false
    /// Per version (transaction id): how many read transactions of this process read it;
    /// guarded by `versionLock` (see ``pinVersion(_:)``).
    var readVersions: [Int: Int] = [:]
    /// Guards ``readVersions``.
    let versionLock = NSLock()
    /// The handles of the published tables (those of ``tables``), under ``handleLock``: read
    /// without `tableLock`, which a writer holds for its whole transaction.
    private var publishedHandles: [MDB_dbi] = []
    private let handleLock = NSLock()
    /// The `buckets` table of an encrypted file (``RowBucket``), under ``handleLock``; `nil` until
    /// it is opened, and in other files.
    private var bucketsTable: Table?

    /// The `buckets` table of an encrypted file that keeps row buckets (``RowBucket``), once
    /// published; `nil` in other files.
    var rowBuckets: Table? { handleLock.withLock { bucketsTable } }

    /// Whether a full verification of the file passed since this process opened it.
    var hasBeenVerified: Bool {
        get { stateLock.withLock { verified } }
        set { stateLock.withLock { verified = newValue } }
    }

    var isReadOnly: Bool { options.readOnly }

    init(path: String, options: EnvironmentOptions) throws {
        self.path = path
        self.options = options
        var env: OpaquePointer?
        try lmdbCheck(mdb_env_create(&env), "mdb_env_create", path: path)
        guard let env else { throw ObjDBError(.storage, "mdb_env_create returned no handle", path: path) }
        let lockPath = path + "-lock"
        var lockInfo = stat()
        let lockExisted = lstat(lockPath, &lockInfo) == 0
        let lockAccess = Self.lockFileAccess(lockPath)
        // A read-only file whose lock file cannot exist is opened without it.
        if case .impossible = lockAccess { isLockless = options.readOnly } else { isLockless = false }
        do {
            if options.readOnly, case .denied(let error) = lockAccess {
                throw ObjDBError(
                    .permissionDenied,
                    "The lock file \(lockPath) exists but this process may not write it (\(String(cString: strerror(error)))): another user's process may be writing the database, and reading it safely needs the lock file; give this user write access to it",
                    path: path)
            }
            // LMDB trusts the meta pages it reads at open: a page size of 0 divides by zero, a
            // huge one reads past the end of the file. Check them first.
            if let problem = Self.metaPageProblem(path) {
                throw ObjDBError(.corruptFile, "The database file is damaged: \(problem)", path: path)
            }
            try lmdbCheck(mdb_env_set_maxdbs(env, MDB_dbi(options.maxTables)), "mdb_env_set_maxdbs", path: path)
            try lmdbCheck(mdb_env_set_maxreaders(env, UInt32(options.maxReaders)), "mdb_env_set_maxreaders", path: path)
            let map = try Self.mapSize(options, existingFile: path)
            try lmdbCheck(mdb_env_set_mapsize(env, map.bytes), "mdb_env_set_mapsize", path: path)
            var flags: EnvironmentFlags = [.noSubdirectory, .noThreadLocalStorage]
            if options.readOnly { flags.insert(.readOnly) }
            if isLockless { flags.insert(.noLock) }
            switch options.sync {
            case .full: break
            case .noMetaSync: flags.insert(.noMetaSync)
            case .noSync: flags.formUnion([.noSync, .noMetaSync])
            }
            if !isLockless { sharedLockDescriptor = Self.holdSharedFileLock(lockPath, readOnly: options.readOnly) }
            let rc = mdb_env_open(env, path, flags.rawValue, 0o644)
            // A damaged meta page (an impossible last page makes LMDB try to map an impossible
            // size) is the file's problem, not the configuration's.
            if rc != MDB_SUCCESS, let problem = Self.metaPageProblem(path) {
                throw ObjDBError(.corruptFile, "The database file is damaged: \(problem)", path: path, lmdbCode: rc,
                                 lmdbMessage: String(cString: mdb_strerror(rc)))
            }
            if rc == ENOMEM {
                throw ObjDBError(
                    .incompatibleConfiguration,
                    "The memory map of \(map.bytes) bytes (Configuration.maximumSize \(options.mapSize) plus \(map.reserve) bytes kept for deletes) could not be reserved: the process has not that much address space; lower maximumSize",
                    path: path, lmdbCode: rc, lmdbMessage: String(cString: mdb_strerror(rc)))
            }
            if rc != MDB_SUCCESS, !options.readOnly, !Self.lockFileAccess(lockPath).isUsable {
                throw ObjDBError(
                    .permissionDenied,
                    "The lock file \(lockPath) can neither be opened for writing nor created, and a database opened for writing needs it; to only read the file, open it with readOnly: true",
                    path: path, lmdbCode: rc, lmdbMessage: String(cString: mdb_strerror(rc)))
            }
            try lmdbCheck(rc, "mdb_env_open", path: path)
            var dead: Int32 = 0
            try lmdbCheck(mdb_reader_check(env, &dead), "mdb_reader_check", path: path)
            pageSize = try Self.checkStructure(env, path: path)
            // Leaf pages hold sealed values in an encrypted file: rows are read through the
            // cursor, which opens them (Docs/Encryption.md).
            readsLeafPages = LeafPage.isSupported(pageSize: pageSize)
            reserve = map.reserve > 0
                ? SpaceReserve(limitPages: map.limit / pageSize, reservePages: map.reserve / pageSize, pageSize: pageSize)
                : nil
        } catch {
            mdb_env_close(env)
            if sharedLockDescriptor >= 0 { closeDescriptor(sharedLockDescriptor) }
            // Do not leave a stray lock file beside a file we could not open.
            // try?: best effort; the error thrown below is the open's own.
            if !lockExisted { try? FileManager.default.removeItem(atPath: lockPath) }
            throw error
        }
        handle = env
    }

    /// The memory map for `options`: `maximumSize` (or the file's size, if larger: LMDB maps at
    /// least the pages the file holds) rounded up to whole memory pages, plus the reserve for
    /// deletes (``SpaceReserve``) for environments that write, where the reserve can be kept.
    private static func mapSize(_ options: EnvironmentOptions, existingFile path: String) throws -> (bytes: Int, limit: Int, reserve: Int) {
        let page = Int(getpagesize())
        func roundedUp(_ bytes: Int) -> Int? {
            let (sum, overflow) = bytes.addingReportingOverflow(page - 1)
            return overflow ? nil : sum / page * page
        }
        // A file that is missing (or cannot be examined) counts as empty here; LMDB's open
        // creates it or says why it cannot. (`stat`, not FileManager's attributes: those look up
        // the owner's and group's names, and the cast of the size from `Any` searched the
        // runtime's conformance tables on the first open, about a million instructions.)
        var info = stat()
        let existing = stat(path, &info) == 0 ? Int(info.st_size) : 0
        let keepsReserve = !options.readOnly && LMDBRelease.hasVersion09Layout && !SpaceReserve.isDisabled
        let limit = roundedUp(options.mapSize)
        let reserve = keepsReserve ? SpaceReserve.bytes(forLimit: limit ?? options.mapSize, pageSize: page) : 0
        guard let limit, let base = roundedUp(max(limit, existing)),
            case let (bytes, overflow) = base.addingReportingOverflow(reserve), !overflow
        else {
            throw ObjDBError(
                .incompatibleConfiguration,
                "Configuration.maximumSize \(options.mapSize) is too large to map (with the \(reserve) bytes kept for deletes); lower it",
                path: path)
        }
        return (bytes, limit, reserve)
    }

    /// What is wrong with the meta pages of the file at `path`, if it exists and LMDB would read
    /// them as an LMDB file's (a file of other bytes is not an LMDB file: that is not damage).
    private static func metaPageProblem(_ path: String) -> VerificationProblem? {
        // try?: a file that cannot be read here is not judged: LMDB's own error says why.
        guard let file = try? PageFile(path: path), file.fileSize > 0, let metas = try? MetaPages(file),
            metas.pages.contains(where: { $0?.magic == PageFormat.magic })
        else { return nil }
        return metas.problem
    }

    /// Whether this process can use the lock file at `lockPath`.
    enum LockFileAccess {
        /// It can be opened for writing, or created.
        case usable
        /// It cannot exist: the file system is read-only, the path is taken by something that is
        /// not a file (a directory, a dangling link), or it is absent and cannot be created. No
        /// writer can be coordinating through it.
        case impossible
        /// It exists but this process may not write it: a writer of another user may be using it.
        case denied(Int32)

        var isUsable: Bool {
            if case .usable = self { return true }
            return false
        }
    }

    /// Tries to open (or create) the lock file for writing, as LMDB does, and says why not.
    static func lockFileAccess(_ lockPath: String) -> LockFileAccess {
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if descriptor >= 0 {
            closeDescriptor(descriptor)
            return .usable
        }
        let error = errno
        if error == EROFS { return .impossible }
        var info = stat()
        guard lstat(lockPath, &info) == 0 else { return .impossible }  // absent and not creatable
        return info.st_mode & S_IFMT == S_IFREG ? .denied(error) : .impossible
    }

    /// LMDB maps the file; reading a page past its end would crash the process with `SIGBUS`,
    /// and its cursors assert on damaged pages. Before anything reads the file, check what open
    /// reads (the main tree and `meta` in full) and that every other tree's pages lie within the
    /// file (``StructureCheck``), in the version a read transaction pins.
    ///
    /// - Returns: the file's page size.
    private static func checkStructure(_ env: OpaquePointer, path: String) throws -> Int {
        var stat = MDB_stat()
        try lmdbCheck(mdb_env_stat(env, &stat), "mdb_env_stat", path: path)
        let pageSize = Int(stat.ms_psize)
        // A version stays described by a meta page until two more commits land; try again then.
        for _ in 0..<50 {
            var txn: OpaquePointer?
            let rc = mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn)
            if rc == MDB_MAP_RESIZED {
                // Another process grew the map since LMDB read the meta pages, or a damaged meta
                // page claims pages beyond its own map.
                if let problem = try MetaPages(PageFile(path: path)).problem {
                    throw ObjDBError(.corruptFile, "The database file is damaged: \(problem)", path: path)
                }
                try lmdbCheck(mdb_env_set_mapsize(env, 0), "mdb_env_set_mapsize(0)", path: path)
                continue
            }
            try lmdbCheck(rc, "mdb_txn_begin (check)", path: path)
            guard let txn else { throw ObjDBError(.storage, "mdb_txn_begin returned no handle", path: path) }
            let id = UInt64(truncatingIfNeeded: mdb_txn_id(txn))
            // Opened after the pin, so that its size covers every page of the pinned version.
            let result = Result { try StructureCheck.run(PageFile(path: path), transactionID: id) }
            mdb_txn_abort(txn)
            let (checked, problem) = try result.get()
            if let problem {
                throw ObjDBError(.corruptFile, "The database file is damaged: \(problem)", path: path)
            }
            if checked { break }
        }
        return pageSize
    }

    /// Closes the environment. Called by the registry when the last lease goes away.
    func close() {
        mdb_env_close(handle)
        // After LMDB closed its own descriptor: closing any descriptor of the lock file drops
        // this process's fcntl locks on it, LMDB's included.
        if sharedLockDescriptor >= 0 { closeDescriptor(sharedLockDescriptor) }
        if options.deleteOnClose {
            // try?: an in-memory database's files, which nothing else uses; best effort.
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + "-lock")
        }
    }

    // MARK: Transactions bookkeeping

    /// Begins an LMDB transaction, adopting a map grown by another process when that is safe.
    ///
    /// A write transaction first takes the process's ``writerGate`` (unless the caller already
    /// did: `gateEntered`), and holds it until ``writeTransactionEnded(committed:)``; if it
    /// cannot begin, the gate is left here.
    func beginTransaction(readOnly: Bool, parent: OpaquePointer? = nil, gateEntered: Bool = false) throws -> OpaquePointer {
        guard !readOnly else { return try beginLMDBTransaction(readOnly: true, parent: parent) }
        do {
            try refuseSecondWriteOnThisThread()
        } catch {
            if gateEntered { writerGate.leave() }
            throw error
        }
        if !gateEntered { writerGate.enter() }
        do {
            shrinkMapIfReserveWasDisabled()
            return try beginLMDBTransaction(readOnly: false, parent: parent)
        } catch {
            writerGate.leave()
            throw error
        }
    }

    /// Throws ``ObjDBError/Code/writeConflict`` if the calling thread has a write transaction
    /// open on this file (through another `Database` instance): a second one would deadlock.
    func refuseSecondWriteOnThisThread() throws {
        let conflict = stateLock.withLock { writerThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        guard conflict else { return }
        throw ObjDBError(
            .writeConflict,
            "This thread already has a write transaction open on this file through another Database instance; finish it first (a second one would deadlock)",
            path: path)
    }

    /// `mdb_txn_begin`, adopting a grown map once.
    private func beginLMDBTransaction(readOnly: Bool, parent: OpaquePointer?) throws -> OpaquePointer {
        var attempt = 0
        while true {
            var txn: OpaquePointer?
            let flags = readOnly ? UInt32(MDB_RDONLY) : 0
            let rc = mdb_txn_begin(handle, parent, flags, &txn)
            if rc == MDB_MAP_RESIZED && attempt == 0 {
                attempt += 1
                try adoptGrownMap()
                continue
            }
            try lmdbCheck(rc, readOnly ? "mdb_txn_begin (read)" : "mdb_txn_begin (write)", path: path)
            guard let txn else { throw ObjDBError(.storage, "mdb_txn_begin returned no handle", path: path) }
            stateLock.withLock {
                liveTransactions += 1
                if !readOnly { writerThread = pthread_self() }
            }
            return txn
        }
    }

    /// Records that a transaction begun with ``beginTransaction(readOnly:parent:gateEntered:)`` ended.
    func transactionEnded(readOnly: Bool) {
        stateLock.withLock {
            liveTransactions -= 1
            // Only the ending writer's own mark: the next writer may have begun already
            // (mdb_txn_commit lets it in before this runs).
            if !readOnly, let writer = writerThread, pthread_equal(writer, pthread_self()) != 0 { writerThread = nil }
        }
    }

    /// `mdb_env_set_mapsize(env, 0)` adopts the size another process set, but it may only be
    /// called while this process has no transaction open on the file.
    private func adoptGrownMap() throws {
        try stateLock.withLock {
            guard liveTransactions == 0 else {
                throw ObjDBError.lmdb(MDB_MAP_RESIZED, operation: "mdb_txn_begin", path: path)
            }
            try lmdbCheck(mdb_env_set_mapsize(handle, 0), "mdb_env_set_mapsize(0)", path: path)
        }
    }

    /// Whether the map was shrunk back to `maximumSize` after the reserve was turned off.
    private var mapShrunk = false

    /// Once a cross-check turned the reserve off (``SpaceReserve/disable(_:)``), shrinks the map
    /// to `maximumSize`, the plain limit, at the first write with no transaction open in this
    /// process (LMDB only resizes a map nobody reads). LMDB keeps at least the pages the file has.
    private func shrinkMapIfReserveWasDisabled() {
        guard let reserve, !reserve.isActive else { return }
        stateLock.withLock {
            guard !mapShrunk, liveTransactions == 0 else { return }
            if mdb_env_set_mapsize(handle, reserve.limitPages * reserve.pageSize) == MDB_SUCCESS { mapShrunk = true }
        }
    }

    /// The flags LMDB reports for the open environment (`mdb_env_get_flags`).
    var flags: EnvironmentFlags {
        var raw: UInt32 = 0
        _ = mdb_env_get_flags(handle, &raw)
        return EnvironmentFlags(rawValue: raw)
    }

    /// The file's size in pages in the newest committed version: the last page number + 1.
    func committedPageCount() -> Int? {
        var info = MDB_envinfo()
        guard mdb_env_info(handle, &info) == MDB_SUCCESS else { return nil }
        return info.me_last_pgno + 1
    }

    /// The pages in use in write transaction `txn`: LMDB's two meta pages and the pages of
    /// every B-tree — the free-page list, the table of tables and every table this environment
    /// has opened (`mdb_stat`) — counting what the transaction changed. The rest of the file is
    /// free pages. `nil` if a table cannot be counted.
    ///
    /// - Complexity: O(t) in the number of tables, each an `mdb_stat` (a lookup in the table of
    ///   tables for one the transaction has not touched).
    func pagesInUse(_ txn: OpaquePointer) -> Int? {
        var used = 2
        let handles = tableLock.withLock { Set(tables.values.map(\.dbi)).union(writerTables.values.map(\.dbi)) }
        // 0 and 1 are LMDB's free-page list and table of tables (FREE_DBI, MAIN_DBI).
        for dbi in [MDB_dbi(0), MDB_dbi(1)] + handles.sorted() {
            var stat = MDB_stat()
            guard mdb_stat(txn, dbi, &stat) == MDB_SUCCESS else { return nil }
            used += stat.ms_branch_pages + stat.ms_leaf_pages + stat.ms_overflow_pages
        }
        return used
    }

    /// Whether, after a transaction that only deleted, the file is near `maximumSize` or past
    /// it, so the pages the deletes freed should be made reusable at once (see
    /// `Database.settleAfterDeletes()`).
    func deletesLeftFileNearLimit() -> Bool {
        guard let reserve, reserve.isActive, let pages = committedPageCount() else { return false }
        return reserve.isNearLimit(pages: pages)
    }

    /// `error`, a full map LMDB reported (`MDB_MAP_FULL`), with a message that says what is
    /// still possible: whether the reserve for deletes exists, and whether the transaction that
    /// failed (`onlyDeletes`) could have used it.
    func explainFullMap(_ error: ObjDBError, onlyDeletes: Bool) -> ObjDBError {
        guard error.code == .mapFull, error.lmdbCode == MDB_MAP_FULL, let reserve, reserve.isActive else { return error }
        let limit = reserve.limitPages * reserve.pageSize
        let room = reserve.reservePages * reserve.pageSize
        let message = onlyDeletes
            ? SpaceReserve.reserveExhaustedMessage(limit: limit, reserve: room)
            : SpaceReserve.fullMessage(limit: limit, reserve: room)
        return ObjDBError(
            .mapFull, message, className: error.className, propertyName: error.propertyName, key: error.key,
            path: error.path ?? path, lmdbCode: error.lmdbCode, lmdbMessage: error.lmdbMessage)
    }

    /// Records that values below `value` of counter `id` were handed out by a transaction that
    /// rolled back, so they are never handed out again in this process although the rolled-back
    /// transaction could not store the counter.
    func raiseCounterFloor(_ id: UInt32, to value: UInt64) {
        stateLock.withLock { counterFloors[id] = max(counterFloors[id] ?? 0, value) }
    }

    /// The floor recorded by ``raiseCounterFloor(_:to:)``, or 0.
    func counterFloor(_ id: UInt32) -> UInt64 {
        stateLock.withLock { counterFloors[id] ?? 0 }
    }

    /// Reader slots taken by the extra read transactions of queries split among threads
    /// (``ReadTransaction/sameVersion()``); guarded by `stateLock`.
    private var extraReaders = 0

    /// Takes a reader slot for an extra read transaction of a split query, if fewer than a
    /// quarter of the slots are taken by such transactions: whatever queries do, the other
    /// three quarters stay free for every instance and process that opens the file.
    func reserveExtraReader() -> Bool {
        stateLock.withLock {
            guard extraReaders < options.maxReaders / 4 else { return false }
            extraReaders += 1
            return true
        }
    }

    /// Gives back a slot taken by ``reserveExtraReader()``.
    func releaseExtraReader() {
        stateLock.withLock { extraReaders -= 1 }
    }

    /// The id of the newest committed transaction, without opening one.
    func lastCommittedTransactionID() -> Int {
        var info = MDB_envinfo()
        guard mdb_env_info(handle, &info) == MDB_SUCCESS else { return -1 }
        return info.me_last_txnid
    }

    /// Waits until a read transaction begun now sees version `version`, for up to `timeout`
    /// seconds; returns the version it sees. A writer in another process makes a commit
    /// visible in two steps: its meta page (which ``lastCommittedTransactionID()`` reads and
    /// which wakes file watchers), then, a moment later, the transaction id in the lock file
    /// that new readers start from. Only for a thread that may sleep (a file watcher's).
    func waitUntilReadersSee(_ version: Int, timeout: Double) -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        var seen = -1
        while true {
            if let txn = try? beginTransaction(readOnly: true) {  // try?: a failure is reported by the reads that follow
                seen = mdb_txn_id(txn)
                mdb_txn_abort(txn)
                transactionEnded(readOnly: true)
            }
            if seen >= version || Date() >= deadline { return seen }
            usleep(200)
        }
    }

    /// The current memory map size, which is the maximum file size.
    var mapSize: Int {
        var info = MDB_envinfo()
        guard mdb_env_info(handle, &info) == MDB_SUCCESS else { return options.mapSize }
        return info.me_mapsize
    }

    // MARK: Tables

    /// The handle of an existing named table, opened in a short read transaction the first time.
    /// Returns `nil` if the table does not exist in the newest committed version.
    func existingTable(named name: String, flags: TableFlags) throws -> Table? {
        try tableLock.withLock {
            if let table = tables[name] { return table }
            let txn = try beginTransaction(readOnly: true)
            var dbi: MDB_dbi = 0
            let rc = mdb_dbi_open(txn, name, flags.rawValue, &dbi)
            if rc == MDB_NOTFOUND {
                mdb_txn_abort(txn)
                transactionEnded(readOnly: true)
                return nil
            }
            if rc != MDB_SUCCESS {
                mdb_txn_abort(txn)
                transactionEnded(readOnly: true)
                throw ObjDBError.lmdb(rc, operation: "mdb_dbi_open(\(name))", path: path)
            }
            // Committing a read-only transaction keeps the handle open for the environment.
            let commit = mdb_txn_commit(txn)
            transactionEnded(readOnly: true)
            try lmdbCheck(commit, "mdb_txn_commit (open table \(name))", path: path)
            let table = sealedTable(dbi, named: name, flags: flags)
            tables[name] = table
            handleLock.withLock {
                publishedHandles.append(table.dbi)
                if name == RowBucket.tableName && cipher != nil { bucketsTable = table }
            }
            return table
        }
    }

    /// The table `dbi`, named `name`, with what this file encrypts in it.
    private func sealedTable(_ dbi: MDB_dbi, named name: String, flags: TableFlags) -> Table {
        guard cipher != nil else { return Table(dbi: dbi, flags: flags) }
        // The buckets seal their values themselves (``BucketWrites``), under keys of their own.
        if name == RowBucket.tableName { return Table(dbi: dbi, flags: flags, seal: .none, tag: StoreCipher.tag(ofTable: name)) }
        return Table(dbi: dbi, flags: flags, seal: TableSeal(flags: flags, encrypted: true), tag: StoreCipher.tag(ofTable: name))
    }

    /// The handles of every table opened so far (and published), without waiting for a writer.
    func openTableHandles() -> [MDB_dbi] {
        handleLock.withLock { publishedHandles }
    }

    /// Runs `body` counted as a live transaction: `mdb_env_copy2` reads through a transaction
    /// of its own, and the map must not be adopted (remapped) meanwhile.
    func countingAsTransaction<R>(_ body: () throws -> R) rethrows -> R {
        stateLock.withLock { liveTransactions += 1 }
        defer { stateLock.withLock { liveTransactions -= 1 } }
        return try body()
    }

    /// Opens (creating if needed) a table inside the current write transaction. The handle stays
    /// private to that transaction until it commits; meanwhile the table lock is held, because
    /// LMDB requires the transaction that opened a handle to finish before another opens one.
    /// (LMDB allows one write transaction per file at a time, so this state is per environment.)
    func openTableForWriter(named name: String, flags: TableFlags, in txn: OpaquePointer) throws -> Table {
        if !writerHoldsTableLock {
            tableLock.lock()
            stateLock.withLock { tableLockOwner = pthread_self() }
        }
        if let table = tables[name] ?? writerTables[name] { return table }
        var dbi: MDB_dbi = 0
        try lmdbCheck(
            mdb_dbi_open(txn, name, flags.union(.create).rawValue, &dbi), "mdb_dbi_open(\(name))", path: path)
        let table = sealedTable(dbi, named: name, flags: flags)
        writerTables[name] = table
        return table
    }

    /// The table `name` opened inside the current write transaction if the file has it, as
    /// ``openTableForWriter(named:flags:in:)`` opens it (the handle published if the transaction
    /// commits); `nil` if the file has no such table.
    func existingTableForWriter(named name: String, flags: TableFlags, in txn: OpaquePointer) throws -> Table? {
        if let table = tables[name] ?? writerTables[name] { return table }
        var dbi: MDB_dbi = 0
        let rc = mdb_dbi_open(txn, name, flags.rawValue, &dbi)
        if rc == MDB_NOTFOUND { return nil }
        try lmdbCheck(rc, "mdb_dbi_open(\(name))", path: path)
        // The handle is this transaction's until it commits: the table lock keeps other opens out.
        if !writerHoldsTableLock {
            tableLock.lock()
            stateLock.withLock { tableLockOwner = pthread_self() }
        }
        let table = sealedTable(dbi, named: name, flags: flags)
        writerTables[name] = table
        return table
    }

    /// Called when the write transaction ends: publishes the tables it opened if it committed
    /// (LMDB closed them if it did not) and releases the table lock.
    func writeTransactionEnded(committed: Bool) {
        transactionEnded(readOnly: false)
        defer { writerGate.leave() }
        // A guard left by a walk that did not finish (its transaction failed) ends with it.
        writerTableGuard = nil
        guard writerHoldsTableLock else { return }
        if committed {
            tables.merge(writerTables) { old, _ in old }
            let handles = tables.values.map(\.dbi)
            let buckets = cipher == nil ? nil : tables[RowBucket.tableName]
            handleLock.withLock {
                publishedHandles = handles
                if let buckets { bucketsTable = buckets }
            }
        }
        writerTables = [:]
        stateLock.withLock { tableLockOwner = nil }
        tableLock.unlock()
    }

}

/// Closes a file descriptor (the C library's `close`, which `Environment.close()` hides inside
/// the class).
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
