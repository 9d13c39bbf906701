import CLMDB
import Foundation

/// How to open an LMDB environment.
struct EnvironmentOptions: Sendable, Equatable {
    /// Opens with `MDB_RDONLY`: no writes, and the file must exist.
    var readOnly = false
    /// The memory map size in bytes, which is the maximum file size.
    var mapSize: Int
    /// Skip `fsync` at commit (`MDB_NOSYNC`).
    var noSync = false
    /// Maximum number of named tables (`mdb_env_set_maxdbs`).
    var maxTables = 1024
    /// Reader slots (`mdb_env_set_maxreaders`), well above LMDB's default of 126.
    var maxReaders = 1022
    /// Delete the file and its lock file when the last user closes it (in-memory databases).
    var deleteOnClose = false
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
    /// Page size of the file, for size computations.
    let pageSize: Int
    /// Whether scans in read-only transactions read leaf pages in place (``LeafPage``).
    let readsLeafPages: Bool
    #if DEBUG
    /// Tests only: the key of a row whose leaf node walks treat as unreadable, so that the
    /// cursor takes over from it (``RowWalk``).
    var refusedLeafKeyForTesting: UInt64?
    #endif

    /// Number of live `EnvironmentLease`s; guarded by the registry's lock.
    var leaseCount = 0

    private let stateLock = NSLock()
    /// Serialises `mdb_dbi_open`: LMDB requires that the transaction that opened a handle
    /// finishes before another transaction opens one. Recursive because a write transaction
    /// holds it until it ends and may open further tables meanwhile.
    private let tableLock = NSRecursiveLock()
    private var tables: [String: Table] = [:]
    /// Tables opened by the current write transaction; guarded by `tableLock`.
    private var writerTables: [String: Table] = [:]
    /// Whether the current write transaction holds `tableLock`; only touched by the writer.
    private var writerHoldsTableLock = false
    private var liveTransactions = 0
    private var writerThread: pthread_t?
    /// Per counter id: the lowest value a counter may take again in this process (see
    /// ``raiseCounterFloor(_:to:)``).
    private var counterFloors: [UInt32: UInt64] = [:]
    /// Whether a full verification of the file passed in this process; guarded by `stateLock`.
    private var verified = false

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
        let lockExisted = FileManager.default.fileExists(atPath: lockPath)
        do {
            try lmdbCheck(mdb_env_set_maxdbs(env, MDB_dbi(options.maxTables)), "mdb_env_set_maxdbs", path: path)
            try lmdbCheck(mdb_env_set_maxreaders(env, UInt32(options.maxReaders)), "mdb_env_set_maxreaders", path: path)
            try lmdbCheck(mdb_env_set_mapsize(env, options.mapSize), "mdb_env_set_mapsize", path: path)
            var flags: EnvironmentFlags = [.noSubdirectory, .noThreadLocalStorage]
            if options.readOnly { flags.insert(.readOnly) }
            if options.noSync { flags.formUnion([.noSync, .noMetaSync]) }
            try lmdbCheck(mdb_env_open(env, path, flags.rawValue, 0o644), "mdb_env_open", path: path)
            var dead: Int32 = 0
            try lmdbCheck(mdb_reader_check(env, &dead), "mdb_reader_check", path: path)
            pageSize = try Self.checkStructure(env, path: path)
            readsLeafPages = LeafPage.isSupported(pageSize: pageSize)
        } catch {
            mdb_env_close(env)
            // Do not leave a stray lock file beside a file we could not open.
            if !lockExisted { try? FileManager.default.removeItem(atPath: lockPath) }
            throw error
        }
        handle = env
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
        let file = try PageFile(path: path)
        // A version stays described by a meta page until two more commits land; try again then.
        for _ in 0..<3 {
            var txn: OpaquePointer?
            let rc = mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn)
            if rc == MDB_MAP_RESIZED {
                // Another process grew the map since LMDB read the meta pages, or a damaged meta
                // page claims pages beyond its own map.
                if let problem = try MetaPages(file).problem {
                    throw ObjDBError(.corruptFile, "The database file is damaged: \(problem)", path: path)
                }
                try lmdbCheck(mdb_env_set_mapsize(env, 0), "mdb_env_set_mapsize(0)", path: path)
                continue
            }
            try lmdbCheck(rc, "mdb_txn_begin (check)", path: path)
            guard let txn else { throw ObjDBError(.storage, "mdb_txn_begin returned no handle", path: path) }
            let result = Result { try StructureCheck.run(file, transactionID: UInt64(mdb_txn_id(txn))) }
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
        if options.deleteOnClose {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + "-lock")
        }
    }

    // MARK: Transactions bookkeeping

    /// Begins an LMDB transaction, adopting a map grown by another process when that is safe.
    func beginTransaction(readOnly: Bool, parent: OpaquePointer? = nil) throws -> OpaquePointer {
        if !readOnly {
            let conflict = stateLock.withLock { writerThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
            if conflict {
                throw ObjDBError(
                    .writeConflict,
                    "This thread already has a write transaction open on this file through another Database instance; finish it first (a second one would deadlock)",
                    path: path)
            }
        }
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

    /// Records that a transaction begun with ``beginTransaction(readOnly:parent:)`` ended.
    func transactionEnded(readOnly: Bool) {
        stateLock.withLock {
            liveTransactions -= 1
            if !readOnly { writerThread = nil }
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
            let table = Table(dbi: dbi, flags: flags)
            tables[name] = table
            return table
        }
    }

    /// Opens (creating if needed) a table inside the current write transaction. The handle stays
    /// private to that transaction until it commits; meanwhile the table lock is held, because
    /// LMDB requires the transaction that opened a handle to finish before another opens one.
    /// (LMDB allows one write transaction per file at a time, so this state is per environment.)
    func openTableForWriter(named name: String, flags: TableFlags, in txn: OpaquePointer) throws -> Table {
        if !writerHoldsTableLock {
            tableLock.lock()
            writerHoldsTableLock = true
        }
        if let table = tables[name] ?? writerTables[name] { return table }
        var dbi: MDB_dbi = 0
        try lmdbCheck(
            mdb_dbi_open(txn, name, flags.union(.create).rawValue, &dbi), "mdb_dbi_open(\(name))", path: path)
        let table = Table(dbi: dbi, flags: flags)
        writerTables[name] = table
        return table
    }

    /// Called when the write transaction ends: publishes the tables it opened if it committed
    /// (LMDB closed them if it did not) and releases the table lock.
    func writeTransactionEnded(committed: Bool) {
        transactionEnded(readOnly: false)
        guard writerHoldsTableLock else { return }
        if committed { tables.merge(writerTables) { old, _ in old } }
        writerTables = [:]
        writerHoldsTableLock = false
        tableLock.unlock()
    }

}
