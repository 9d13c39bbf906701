import CLMDBBench
import Foundation

/// The raw LMDB baseline: what a careful hand-written LMDB store of the same model does.
final class LMDBSystem: BenchSystem {
    /// The column title.
    static let name = "LMDB"
    /// The environment; `nil` once closed.
    private var env: OpaquePointer?
    /// id (native UInt64, `MDB_INTEGERKEY`) → ``LMDBRecord`` row.
    private var main: MDB_dbi = 0
    /// age (native UInt64) → id (native UInt64), `MDB_DUPSORT`.
    private var ages: MDB_dbi = 0

    /// Opens `person.mdb` in `directory` with `MDB_NOSUBDIR | MDB_NOTLS`, sync on, a 64 GiB map.
    init(directory: String, create: Bool) throws {
        var env: OpaquePointer?
        try lmdbCheck(mdb_env_create(&env), "mdb_env_create")
        do {
            try lmdbCheck(mdb_env_set_mapsize(env, mapSizeOverride ?? 64 << 30), "mdb_env_set_mapsize")
            try lmdbCheck(mdb_env_set_maxdbs(env, 4), "mdb_env_set_maxdbs")
            let path = URL(fileURLWithPath: directory).appendingPathComponent("person.mdb").path
            try lmdbCheck(mdb_env_open(env, path, UInt32(MDB_NOSUBDIR | MDB_NOTLS), 0o644), "mdb_env_open")
            var txn: OpaquePointer?
            try lmdbCheck(mdb_txn_begin(env, nil, create ? 0 : UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
            let createFlag = create ? UInt32(MDB_CREATE) : 0
            var rc = mdb_dbi_open(txn, "person", UInt32(MDB_INTEGERKEY) | createFlag, &main)
            if rc == 0 {
                let flags = MDB_DUPSORT | MDB_INTEGERKEY | MDB_INTEGERDUP | MDB_DUPFIXED
                rc = mdb_dbi_open(txn, "person_age", UInt32(flags) | createFlag, &ages)
            }
            if rc != 0 { mdb_txn_abort(txn) }
            try lmdbCheck(rc, "mdb_dbi_open")
            try lmdbCheck(mdb_txn_commit(txn), "mdb_txn_commit")
        } catch {
            mdb_env_close(env)
            throw error
        }
        self.env = env
    }

    /// Runs `body` in a transaction: a read-only one is aborted afterwards, a write one committed.
    private func transaction<T>(readOnly: Bool, _ body: (OpaquePointer) throws -> T) throws -> T {
        try lmdbTransaction(env, readOnly: readOnly, body)
    }

    /// Runs `body` with a cursor on `dbi`, closed afterwards.
    private func withCursor<T>(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ body: (OpaquePointer) throws -> T) throws -> T {
        try lmdbWithCursor(txn, dbi, body)
    }

    /// Writes one person's row (reserved in place) and its age-index entry.
    @inline(__always)
    private func put(_ person: PersonData, _ txn: OpaquePointer, flags: Int32) throws {
        try lmdbPutPerson(person, txn, main: main, ages: ages, names: nil, flags: flags)
    }

    /// Appends every row with `MDB_APPEND` (ids ascend) in one transaction.
    func insert(_ people: [PersonData]) throws {
        try transaction(readOnly: false) { txn in
            for person in people { try put(person, txn, flags: MDB_APPEND) }
        }
    }

    /// Walks `fn` over every row of the main table with a cursor in one read transaction.
    private func scan(_ fn: (MDB_val, MDB_val) -> Void) throws {
        try transaction(readOnly: true) { txn in
            try withCursor(txn, main) { cursor in
                var key = MDB_val()
                var row = MDB_val()
                var rc = mdb_cursor_get(cursor, &key, &row, MDB_FIRST)
                while rc == 0 {
                    fn(key, row)
                    rc = mdb_cursor_get(cursor, &key, &row, MDB_NEXT)
                }
                if rc != MDB_NOTFOUND { try lmdbCheck(rc, "mdb_cursor_get") }
            }
        }
    }

    /// Cursor walk decoding every row into a ``PersonData``.
    func readAll() throws -> Checksum {
        var sum = Checksum()
        try scan { key, row in
            let person = LMDBRecord.decode(key: key, row: row)
            sum.add(id: person.id, name: person.name, age: person.age, score: person.score, created: person.created)
        }
        return sum
    }

    /// `mdb_get` per id in one read transaction, decoding the whole row.
    func lookup(_ ids: [Int]) throws -> Int {
        try transaction(readOnly: true) { txn in
            var total = 0
            var row = MDB_val()
            for id in ids {
                let rc = withVal(UInt64(id)) { key in mdb_get(txn, main, &key, &row) }
                if rc == MDB_NOTFOUND { continue }
                try lmdbCheck(rc, "mdb_get")
                total &+= LMDBRecord.decode(id: id, row: row).age
            }
            return total
        }
    }

    /// Full scan of the main table, decoding only the age.
    func countAgeOver50() throws -> Int {
        var count = 0
        try scan { _, row in if LMDBRecord.age(row) > 50 { count += 1 } }
        return count
    }

    /// `MDB_SET_RANGE` to 51 on the age index, then `mdb_cursor_count` per age.
    func countAgeOver50Indexed() throws -> Int {
        try transaction(readOnly: true) { txn in
            try withCursor(txn, ages) { cursor in try lmdbCountEntries(cursor, from: 51) }
        }
    }

    /// Cursor walk: rewrites each row with `MDB_CURRENT` and moves its age-index entry.
    func incrementAllAges() throws {
        try transaction(readOnly: false) { txn in
            try withCursor(txn, main) { cursor in
                var key = MDB_val()
                var row = MDB_val()
                var scratch = [UInt8](repeating: 0, count: 256)
                var rc = mdb_cursor_get(cursor, &key, &row, MDB_FIRST)
                while rc == 0 {
                    let id = UInt64(LMDBRecord.id(key))
                    let oldAge = UInt64(LMDBRecord.age(row))
                    let size = row.mv_size
                    if scratch.count < size { scratch = [UInt8](repeating: 0, count: size) }
                    try scratch.withUnsafeMutableBytes { buffer in
                        buffer.baseAddress!.copyMemory(from: row.mv_data!, byteCount: size)
                        buffer.storeBytes(of: Int64(oldAge + 1).littleEndian, toByteOffset: 0, as: Int64.self)
                        try withVal(id) { idKey in
                            var newRow = MDB_val(mv_size: size, mv_data: buffer.baseAddress)
                            try lmdbCheck(mdb_cursor_put(cursor, &idKey, &newRow, UInt32(MDB_CURRENT)), "mdb_cursor_put")
                            try withVal(oldAge) { try lmdbCheck(mdb_del(txn, ages, &$0, &idKey), "mdb_del(age)") }
                            try withVal(oldAge + 1) { try lmdbCheck(mdb_put(txn, ages, &$0, &idKey, 0), "mdb_put(age)") }
                        }
                    }
                    rc = mdb_cursor_get(cursor, &key, &row, MDB_NEXT)
                }
                if rc != MDB_NOTFOUND { try lmdbCheck(rc, "mdb_cursor_get") }
            }
        }
    }

    /// Per-key deletes (not `mdb_drop`): each row and its age-index entry, in one transaction.
    func deleteAll() throws {
        try transaction(readOnly: false) { txn in
            try withCursor(txn, main) { cursor in
                var key = MDB_val()
                var row = MDB_val()
                var rc = mdb_cursor_get(cursor, &key, &row, MDB_FIRST)
                while rc == 0 {
                    let id = UInt64(LMDBRecord.id(key))
                    let age = UInt64(LMDBRecord.age(row))
                    try withVal(age) { ageKey in
                        try withVal(id) { try lmdbCheck(mdb_del(txn, ages, &ageKey, &$0), "mdb_del(age)") }
                    }
                    try lmdbCheck(mdb_cursor_del(cursor, 0), "mdb_cursor_del")
                    rc = mdb_cursor_get(cursor, &key, &row, MDB_FIRST)
                }
                if rc != MDB_NOTFOUND { try lmdbCheck(rc, "mdb_cursor_get") }
            }
        }
    }

    /// One committed (fsynced) transaction per person, `MDB_NOOVERWRITE`.
    func insertEach(_ people: ArraySlice<PersonData>) throws {
        for person in people {
            try transaction(readOnly: false) { txn in try put(person, txn, flags: MDB_NOOVERWRITE) }
        }
    }

    /// Nothing is opened lazily.
    func warmUp() throws {}

    /// Closes the environment.
    func close() {
        if let env { mdb_env_close(env) }
        env = nil
    }
}
