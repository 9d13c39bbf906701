import CLMDB
import Foundation

/// LMDB files ObjDB did not write: the main table with random keys, or named tables that look
/// like ObjDB's (`meta`, `c1`, `c1.pk`) holding random bytes.
enum ForeignLMDB {
    /// Writes such a file at `url` (replacing it) and returns what it holds.
    static func write(to url: URL, _ rng: inout SeededRandom) throws -> String {
        try? FileManager.default.removeItem(at: url)
        try? FileManager.default.removeItem(atPath: url.path + "-lock")
        var env: OpaquePointer?
        try check(mdb_env_create(&env), "mdb_env_create")
        guard let env else { throw HarnessError("mdb_env_create returned no environment") }
        defer { mdb_env_close(env) }
        try check(mdb_env_set_maxdbs(env, 8), "mdb_env_set_maxdbs")
        try check(mdb_env_set_mapsize(env, 64 << 20), "mdb_env_set_mapsize")
        try check(mdb_env_open(env, url.path, UInt32(MDB_NOSUBDIR), 0o644), "mdb_env_open")
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
        guard let txn else { throw HarnessError("mdb_txn_begin returned no transaction") }
        let objdbNames = rng.percent(50)
        let names: [String?] = objdbNames ? ["meta", "c1", "c1.pk"] : [nil]
        var entries = 0
        for name in names {
            var dbi: MDB_dbi = 0
            let rc = name.map { mdb_dbi_open(txn, $0, UInt32(MDB_CREATE), &dbi) } ?? mdb_dbi_open(txn, nil, 0, &dbi)
            guard rc == 0 else {
                mdb_txn_abort(txn)
                throw HarnessError("mdb_dbi_open: \(String(cString: mdb_strerror(rc)))")
            }
            for _ in 0..<rng.inRange(1...300) {
                var key = (0..<rng.inRange(1...40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                var value = (0..<rng.inRange(0...600)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                let rc = key.withUnsafeMutableBytes { k in
                    value.withUnsafeMutableBytes { v in
                        var keyValue = MDB_val(mv_size: k.count, mv_data: k.baseAddress)
                        var dataValue = MDB_val(mv_size: v.count, mv_data: v.baseAddress)
                        return mdb_put(txn, dbi, &keyValue, &dataValue, 0)
                    }
                }
                if rc == 0 { entries += 1 }
            }
        }
        try check(mdb_txn_commit(txn), "mdb_txn_commit")
        return objdbNames ? "LMDB file with tables meta, c1, c1.pk: \(entries) random entries" : "LMDB file: \(entries) random entries"
    }

    private static func check(_ rc: Int32, _ operation: String) throws {
        guard rc == 0 else { throw HarnessError("\(operation): \(String(cString: mdb_strerror(rc)))") }
    }
}
