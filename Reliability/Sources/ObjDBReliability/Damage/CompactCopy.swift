import CLMDB
import Foundation

/// `mdb_env_copy2` with `MDB_CP_COMPACT`: a copy of a file with only the pages its newest
/// version uses, renumbered, and no free pages, so that nearly every damaged byte lands in a
/// page reads go through.
enum CompactCopy {
    /// Copies `source` to `target` (replacing it), compacted.
    static func copy(_ source: URL, to target: URL) throws {
        try? FileManager.default.removeItem(at: target)
        try? FileManager.default.removeItem(atPath: target.path + "-lock")
        var env: OpaquePointer?
        try check(mdb_env_create(&env), "mdb_env_create")
        guard let env else { throw HarnessError("mdb_env_create returned no environment") }
        defer { mdb_env_close(env) }
        try check(mdb_env_set_maxdbs(env, 1_024), "mdb_env_set_maxdbs")
        try check(mdb_env_set_mapsize(env, 1 << 30), "mdb_env_set_mapsize")
        try check(mdb_env_open(env, source.path, UInt32(MDB_NOSUBDIR | MDB_RDONLY), 0o644), "mdb_env_open")
        try check(mdb_env_copy2(env, target.path, UInt32(MDB_CP_COMPACT)), "mdb_env_copy2")
    }

    private static func check(_ rc: Int32, _ operation: String) throws {
        guard rc == 0 else { throw HarnessError("\(operation): \(String(cString: mdb_strerror(rc)))") }
    }
}
