import CLMDBBench
import Foundation

/// The raw LMDB baseline of the query scenarios: the indexes and scans ObjDB must do, written by
/// hand.
///
/// Rows as in the main table (``LMDBRecord``, keyed by id with `MDB_INTEGERKEY`). The indexed
/// variant adds `person_name` (UTF-8 name → id, `MDB_DUPSORT | MDB_INTEGERDUP | MDB_DUPFIXED`)
/// and `person_age` (age → id, ``lmdbDuplicateIntegerFlags``). There is no sort.
final class LMDBQueries: QuerySystem {
    /// The column title.
    static let name = LMDBSystem.name
    /// A hand-written sort is no longer "what the store does": left out.
    static func runs(_ scenario: QueryScenario) -> Bool { scenario != .sort && scenario != .sortLimit }
    /// The environment; `nil` once closed.
    private var env: OpaquePointer?
    /// id → row.
    private let main: MDB_dbi
    /// name → ids, in the indexed variant.
    private let names: MDB_dbi?
    /// age → ids, in the indexed variant.
    private let ages: MDB_dbi?

    /// Creates `query.mdb` in `directory` with `person`, and with `indexed` the two index tables.
    init(directory: String, indexed: Bool) throws {
        var tables: [(name: String, flags: Int32)] = [("person", MDB_INTEGERKEY)]
        if indexed {
            tables += [("person_name", MDB_DUPSORT | MDB_INTEGERDUP | MDB_DUPFIXED), ("person_age", lmdbDuplicateIntegerFlags)]
        }
        let (env, dbis) = try lmdbCreate(directory: directory, file: "query.mdb", tables: tables)
        self.env = env
        main = dbis[0]
        names = indexed ? dbis[1] : nil
        ages = indexed ? dbis[2] : nil
    }

    /// One write transaction: each row appended (`MDB_APPEND | MDB_RESERVE`), and its index entries.
    func insert(_ people: [PersonData]) throws {
        try lmdbTransaction(env, readOnly: false) { txn in
            for person in people { try lmdbPutPerson(person, txn, main: main, ages: ages, names: names, flags: MDB_APPEND) }
        }
    }

    /// Nothing is opened lazily.
    func warmUp() throws {}

    /// Whether the name stored in `row` is `name`'s bytes.
    @inline(__always)
    private static func rowName(_ row: MDB_val, equals name: UnsafeBufferPointer<UInt8>) -> Bool {
        row.mv_size - LMDBRecord.headerSize == name.count
            && memcmp(row.mv_data! + LMDBRecord.headerSize, name.baseAddress!, name.count) == 0
    }

    /// One read txn. Indexed: per name `MDB_SET_KEY` on `person_name` (the first, smallest id),
    /// then `mdb_get` of the row, decoded. Unindexed: per name a cursor walk from the first row
    /// comparing the name bytes, stopping at the first match, which is decoded.
    func lookupFirst(names wanted: [String]) throws -> QueryChecksum {
        try lmdbTransaction(env, readOnly: true) { txn in
            try lmdbWithCursor(txn, names ?? main) { cursor in
                var sum = QueryChecksum()
                var key = MDB_val()
                var value = MDB_val()
                for var name in wanted {
                    try name.withUTF8 { utf8 in
                        if names != nil {
                            key = MDB_val(mv_size: utf8.count, mv_data: UnsafeMutableRawPointer(mutating: utf8.baseAddress))
                            let rc = mdb_cursor_get(cursor, &key, &value, MDB_SET_KEY)
                            if rc == MDB_NOTFOUND { return }
                            try lmdbCheck(rc, "mdb_cursor_get(person_name)")
                            var idKey = value
                            var row = MDB_val()
                            try lmdbCheck(mdb_get(txn, main, &idKey, &row), "mdb_get")
                            let person = LMDBRecord.decode(key: idKey, row: row)
                            sum.add(id: person.id, age: person.age)
                        } else {
                            var rc = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
                            while rc == 0 {
                                if Self.rowName(value, equals: utf8) {
                                    let person = LMDBRecord.decode(key: key, row: value)
                                    sum.add(id: person.id, age: person.age)
                                    return
                                }
                                rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
                            }
                            if rc != MDB_NOTFOUND { try lmdbCheck(rc, "mdb_cursor_get") }
                        }
                    }
                }
                return sum
            }
        }
    }

    /// One read txn: the ids sorted and de-duplicated, then `mdb_get` of each row, decoded.
    func fetchAll(ids: [Int]) throws -> QueryChecksum {
        var keys = ids.map { UInt64($0) }
        keys.sort()
        return try lmdbTransaction(env, readOnly: true) { txn in
            var sum = QueryChecksum()
            var row = MDB_val()
            var previous: UInt64?
            for id in keys where id != previous {
                previous = id
                let rc = withVal(id) { key in mdb_get(txn, main, &key, &row) }
                if rc == MDB_NOTFOUND { continue }
                try lmdbCheck(rc, "mdb_get")
                let person = LMDBRecord.decode(id: Int(id), row: row)
                sum.add(id: person.id, age: person.age)
            }
            return sum
        }
    }

    /// One read txn: cursor walk of `person` decoding the age and score of each row.
    func countAgeOver50ScoreUnderHalf() throws -> Int {
        try lmdbTransaction(env, readOnly: true) { txn in
            try lmdbWithCursor(txn, main) { cursor in
                var count = 0
                var key = MDB_val()
                var row = MDB_val()
                var rc = mdb_cursor_get(cursor, &key, &row, MDB_FIRST)
                while rc == 0 {
                    let score = Double(bitPattern: UInt64(littleEndian: UnsafeRawPointer(row.mv_data!).loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
                    if LMDBRecord.age(row) > 50 && score < 0.5 { count += 1 }
                    rc = mdb_cursor_get(cursor, &key, &row, MDB_NEXT)
                }
                if rc != MDB_NOTFOUND { try lmdbCheck(rc, "mdb_cursor_get") }
                return count
            }
        }
    }

    /// One read txn: `MDB_SET_RANGE` to 51 on `person_age`, then `mdb_cursor_count` per age.
    func countAgeOver50() throws -> Int {
        guard let ages else { throw CheckFailure(description: "LMDB: count-index on a database without the age index") }
        return try lmdbTransaction(env, readOnly: true) { txn in
            try lmdbWithCursor(txn, ages) { cursor in try lmdbCountEntries(cursor, from: 51) }
        }
    }

    /// Not run (see ``runs(_:)``).
    func sortedByScore(prefix: Int) throws -> SortedPrefix {
        throw CheckFailure(description: "LMDB has no sort scenario")
    }

    /// Closes the environment.
    func close() {
        if let env { mdb_env_close(env) }
        env = nil
    }
}
