import CLMDBBench
import Foundation

/// Backlink-table flags, as ObjDB's backlink tables and the age index use them: native 8-byte
/// keys to sorted native 8-byte values.
let lmdbDuplicateIntegerFlags = MDB_DUPSORT | MDB_INTEGERKEY | MDB_INTEGERDUP | MDB_DUPFIXED

/// Creates `file` in `directory` with the baseline's settings (`MDB_NOSUBDIR | MDB_NOTLS`, sync
/// on, a 64 GiB map) and creates `tables` (name and `mdb_dbi_open` flags) in one transaction.
func lmdbCreate(directory: String, file: String, tables: [(name: String, flags: Int32)]) throws -> (OpaquePointer, [MDB_dbi]) {
    var env: OpaquePointer?
    try lmdbCheck(mdb_env_create(&env), "mdb_env_create")
    guard let env else { throw LMDBError(code: EINVAL, operation: "mdb_env_create") }
    do {
        try lmdbCheck(mdb_env_set_mapsize(env, mapSizeOverride ?? 64 << 30), "mdb_env_set_mapsize")
        try lmdbCheck(mdb_env_set_maxdbs(env, UInt32(tables.count)), "mdb_env_set_maxdbs")
        let path = URL(fileURLWithPath: directory).appendingPathComponent(file).path
        try lmdbCheck(mdb_env_open(env, path, UInt32(MDB_NOSUBDIR | MDB_NOTLS), 0o644), "mdb_env_open")
        let dbis = try lmdbTransaction(env, readOnly: false) { txn in
            try tables.map { table in
                var dbi: MDB_dbi = 0
                try lmdbCheck(mdb_dbi_open(txn, table.name, UInt32(table.flags | MDB_CREATE), &dbi), "mdb_dbi_open(\(table.name))")
                return dbi
            }
        }
        return (env, dbis)
    } catch {
        mdb_env_close(env)
        throw error
    }
}

/// Runs `body` in a transaction of `env`: a read-only one is aborted afterwards, a write one
/// committed; an error aborts either.
@inline(__always)
func lmdbTransaction<T>(_ env: OpaquePointer?, readOnly: Bool, _ body: (OpaquePointer) throws -> T) throws -> T {
    var txn: OpaquePointer?
    try lmdbCheck(mdb_txn_begin(env, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txn), "mdb_txn_begin")
    guard let txn else { throw LMDBError(code: EINVAL, operation: "mdb_txn_begin") }
    let result: T
    do {
        result = try body(txn)
    } catch {
        mdb_txn_abort(txn)
        throw error
    }
    if readOnly { mdb_txn_abort(txn) } else { try lmdbCheck(mdb_txn_commit(txn), "mdb_txn_commit") }
    return result
}

/// Runs `body` with a cursor on `dbi`, closed afterwards.
@inline(__always)
func lmdbWithCursor<T>(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ body: (OpaquePointer) throws -> T) throws -> T {
    var cursor: OpaquePointer?
    try lmdbCheck(mdb_cursor_open(txn, dbi, &cursor), "mdb_cursor_open")
    guard let cursor else { throw LMDBError(code: EINVAL, operation: "mdb_cursor_open") }
    defer { mdb_cursor_close(cursor) }
    return try body(cursor)
}

/// The native `UInt64` an `MDB_val` of 8 bytes points at.
@inline(__always)
func lmdbUInt64(_ val: MDB_val) -> UInt64 {
    UnsafeRawPointer(val.mv_data!).loadUnaligned(as: UInt64.self)
}

/// The number of entries at or above `low` in a `MDB_DUPSORT | MDB_INTEGERKEY` table keyed by
/// `UInt64`: `MDB_SET_RANGE`, then `mdb_cursor_count` per key (LMDB keeps each key's number of
/// duplicates) and `MDB_NEXT_NODUP`.
func lmdbCountEntries(_ cursor: OpaquePointer, from low: UInt64) throws -> Int {
    var count = 0
    var key = MDB_val()
    var value = MDB_val()
    var rc = withVal(low) { start -> Int32 in
        key = start
        return mdb_cursor_get(cursor, &key, &value, MDB_SET_RANGE)
    }
    while rc == 0 {
        var duplicates = 0
        try lmdbCheck(mdb_cursor_count(cursor, &duplicates), "mdb_cursor_count")
        count += duplicates
        rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT_NODUP)
    }
    if rc != MDB_NOTFOUND { try lmdbCheck(rc, "mdb_cursor_get") }
    return count
}
