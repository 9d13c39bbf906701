import ObjDB

/// One database system under test in the `--queries` scenarios, opened on a directory of its own.
///
/// The runner creates the database, inserts the people and warms it up untimed, then times one
/// query method and checks its result against ``QueryWorkload``.
protocol QuerySystem: AnyObject {
    /// The column title, as in the main table.
    static var name: String { get }
    /// Whether the system has a natural hand-written form of `scenario` (raw LMDB has no sort).
    static func runs(_ scenario: QueryScenario) -> Bool
    /// Creates the database in `directory`: the person table with its primary key on `id`, and
    /// with `indexed` also the indexes on `name` and `age`.
    init(directory: String, indexed: Bool) throws

    /// Untimed setup: inserts every person in one write transaction.
    func insert(_ people: [PersonData]) throws
    /// Untimed: a cheap read, so that lazily opened resources do not land in a timed read.
    func warmUp() throws

    /// Timed: for each name, the first person with that name (`name == x`, limit 1), adding up
    /// the id and age of each one found.
    func lookupFirst(names: [String]) throws -> QueryChecksum
    /// Timed: the same lookups through the system's fastest path (GRDB: a cached prepared statement).
    func lookupFirstPrepared(names: [String]) throws -> QueryChecksum
    /// Timed: one query for the people whose id is in `ids`, adding up every match.
    func fetchAll(ids: [Int]) throws -> QueryChecksum
    /// Timed: the number of people with `age > 50 && score < 0.5`.
    func countAgeOver50ScoreUnderHalf() throws -> Int
    /// Timed: the number of people with `age > 50`.
    func countAgeOver50() throws -> Int
    /// Timed: sorts every person by score, counts them and reads the first `prefix` ids.
    func sortedByScore(prefix: Int) throws -> SortedPrefix
    /// Timed: the same result through the system's cheapest request for it (GRDB: `LIMIT` and
    /// a separate count).
    func sortedByScoreLimited(prefix: Int) throws -> SortedPrefix

    /// Closes the database; the instance is not used afterwards.
    func close()
}

extension QuerySystem {
    /// Systems with one lookup path use it.
    func lookupFirstPrepared(names: [String]) throws -> QueryChecksum { try lookupFirst(names: names) }
    /// Systems with one way to sort use it.
    func sortedByScoreLimited(prefix: Int) throws -> SortedPrefix { try sortedByScore(prefix: prefix) }
}

/// The three systems in the order they run in every round.
var allQuerySystems: [any QuerySystem.Type] { [ObjDBQueries.self, LMDBQueries.self, GRDBQueries.self] }

/// What each system stores and does in the `--queries` scenarios, printed with the tables.
let querySettings = """
    Same settings as above (durable commits, fresh database per run, setup untimed and followed by `sync`; each timed query follows one untimed run of the same query). \
    Data: ids 1…N, `name` unique (`user-` + 8 hex digits of the id scrambled), `age` 0..<100, `score` uniform in 0..<1, \
    `created`. The lookup and count-index rows run on a database with indexes on `name` and `age`; all other rows on one \
    with the primary key only. Every result is checked against the data.
    - ObjDB: classes `IndexedPerson` (`@Persisted(indexed: true)` on `name` and `age`) and `PlainPerson` (no index), \
    `id` the primary key in both; queries through the typed `where { }` DSL; the default `maximumQueryThreads` (\(Configuration.defaultMaximumQueryThreads) here), so scans of at least 32,768 rows without an early stop are split among that many threads. LMDB and GRDB scan on one thread.
    - LMDB: table `person` as above (id → 24-byte header + UTF-8 name); indexed: `person_name` \
    (`MDB_DUPSORT|MDB_INTEGERDUP|MDB_DUPFIXED`, UTF-8 name → id) and `person_age` (as above). Each query is one read txn.
    - GRDB: table `person` as above; indexed: `CREATE INDEX` on `name` and on `age`. Each scenario is one `read { }`.
    - Indexed lookups: ObjDB `objects(IndexedPerson.self).where { $0.name == x }.first`, read `id` and `age`; \
    LMDB `MDB_SET_KEY` on `person_name` (first id) + `mdb_get` of the row, decoded; \
    GRDB `Person.filter(Column("name") == x).fetchOne(db)` (builds and prepares the SQL per call); \
    the `-stmt` row: ObjDB and LMDB run the same code again, GRDB one `db.cachedStatement(sql: \
    "SELECT * FROM person WHERE name = ? LIMIT 1")` and `Person.fetchOne(statement, arguments: [x])`.
    - Unindexed lookups: the same calls on the tables without the name index (ObjDB `PlainPerson`); all three scan \
    until the first match (LMDB: cursor walk comparing the name bytes of each row).
    - IN: ObjDB `where { $0.id.in(ids) }`, iterated; LMDB sorts and de-duplicates the ids, `mdb_get` + decode per id; \
    GRDB `Person.filter(ids.contains(Column("id"))).fetchCursor(db)`, iterated. Sum of ids and ages of every match.
    - Count, no index: ObjDB `where { $0.age > 50 && $0.score < 0.5 }.count`; LMDB cursor walk decoding age and score; \
    GRDB `filter(Column("age") > 50 && Column("score") < 0.5).fetchCount(db)`.
    - Count, age index: ObjDB `where { $0.age > 50 }.count`; LMDB `MDB_SET_RANGE` to 51 on `person_age`, then \
    `mdb_cursor_count` per age (`MDB_NEXT_NODUP`); GRDB `filter(Column("age") > 50).fetchCount(db)` (SQLite counts in the index).
    - Sort: ObjDB `let s = objects(PlainPerson.self).sorted(byKeyPath: "score")`, `s.count`, then `s[i].id` for the first \
    100 (the count sorts all keys; the subscripts reuse them). GRDB (sort row) `order(Column("score")).fetchAll(db)`: every \
    record decoded, sorted by SQLite; (sort-limit row) `order(Column("score")).limit(100).fetchAll(db)` + `fetchCount(db)`: \
    SQLite keeps the top 100 while it scans and counts separately; ObjDB the same through `sorted(byKeyPath: "score").prefix(100)` \
    (keeps the best 100 while it reads every score) + `objects(PlainPerson.self).count`. Raw LMDB has no sort: left out.
    """
