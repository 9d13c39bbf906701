import Foundation

/// One database system under test, opened on a directory of its own.
///
/// Every operation is what one scenario times; the runner does the setup around it.
protocol BenchSystem: AnyObject {
    /// The column title.
    static var name: String { get }
    /// Opens the database in `directory`; `create` makes the file and its tables first.
    init(directory: String, create: Bool) throws
    /// Inserts every person in one write transaction.
    func insert(_ people: [PersonData]) throws
    /// Reads every object and touches every property.
    func readAll() throws -> Checksum
    /// Looks up each id by primary key and returns the sum of the ages found.
    func lookup(_ ids: [Int]) throws -> Int
    /// The lookups through the system's fastest path (GRDB: a cached prepared statement).
    func lookupPrepared(_ ids: [Int]) throws -> Int
    /// Counts the objects with age > 50.
    func countAgeOver50() throws -> Int
    /// Counts the objects with age > 50 through the age index where the system chooses how
    /// (GRDB: the same SQL, which SQLite answers from the index).
    func countAgeOver50Indexed() throws -> Int
    /// Adds 1 to the age of every object in one write transaction.
    func incrementAllAges() throws
    /// The age update as one set-based statement where the system has one (GRDB: SQL `UPDATE`).
    func incrementAllAgesSetBased() throws
    /// Deletes every object in one write transaction.
    func deleteAll() throws
    /// Inserts each person in its own durable write transaction.
    func insertEach(_ people: ArraySlice<PersonData>) throws
    /// A cheap read, so that lazily opened resources do not land in a timed read.
    func warmUp() throws
    /// Closes the database; the instance is not used afterwards.
    func close()
}

extension BenchSystem {
    /// Systems with one lookup path use it.
    func lookupPrepared(_ ids: [Int]) throws -> Int { try lookup(ids) }
    /// Systems whose count already may use the index count the same way.
    func countAgeOver50Indexed() throws -> Int { try countAgeOver50() }
    /// Systems without set-based updates update object by object.
    func incrementAllAgesSetBased() throws { try incrementAllAges() }
}

/// The map size (LMDB) and `maximumSize` (ObjDB) to use, in bytes, when the environment variable
/// `OBJDB_BENCH_MAP_GIB` sets it; `nil` for each system's setting. Valgrind cannot reserve 64 GiB
/// or more of address space, so profiling runs set it to a few GiB.
let mapSizeOverride: Int? = ProcessInfo.processInfo.environment["OBJDB_BENCH_MAP_GIB"].flatMap(Int.init).map { $0 << 30 }

/// The three systems in the order they run in every round.
var allSystems: [any BenchSystem.Type] { [ObjDBSystem.self, LMDBSystem.self, GRDBSystem.self] }

/// The settings each system uses, printed with every table.
let systemSettings = """
    - ObjDB: `Configuration(fileURL:)`, `objectTypes = [Person]`, `durability = .full` (default: fsync at every commit).
    - LMDB: `mdb_env_open(MDB_NOSUBDIR | MDB_NOTLS)`, map size 64 GiB, sync on (default: fdatasync at every commit); \
    main table `MDB_INTEGERKEY` id → 24-byte header + UTF-8 name, index table `MDB_DUPSORT|MDB_INTEGERKEY|MDB_INTEGERDUP|MDB_DUPFIXED` age → id.
    - GRDB 7.10.0: `DatabasePool` (WAL), `PRAGMA synchronous = FULL` in `prepareDatabase` and again on the writer after \
    opening (the pool's WAL setup resets the writer to NORMAL; read back as 2), `Codable` record \
    (`FetchableRecord & PersistableRecord`), dates stored as `timeIntervalSince1970` REAL, index on `age`.
    """
