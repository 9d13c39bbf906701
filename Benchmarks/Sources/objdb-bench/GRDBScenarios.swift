import Foundation
import GRDB

/// The benchmark model in GRDB: a `Codable` record.
struct GRDBPerson: Codable, FetchableRecord, PersistableRecord {
    /// The table shared by the three systems' naming.
    static let databaseTableName = "person"
    /// Dates as REAL seconds since 1970 (GRDB's default is text), the cheapest date encoding GRDB offers.
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }
    /// Matches the encoding strategy.
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSince1970 }

    /// Primary key (`INTEGER PRIMARY KEY`, the rowid).
    var id: Int
    /// "Person <id>".
    var name: String
    /// Indexed.
    var age: Int
    /// A score.
    var score: Double
    /// Creation date.
    var created: Date

    /// The record of `person`.
    init(_ person: PersonData) {
        id = person.id
        name = person.name
        age = person.age
        score = person.score
        created = person.created
    }
}

/// GRDB 7 with a `DatabasePool` and durable (`synchronous = FULL`) commits.
final class GRDBSystem: BenchSystem {
    /// The column title.
    static let name = "GRDB"
    /// The pool; `nil` once closed.
    private var pool: DatabasePool?

    /// Opens `person.sqlite` in `directory`; `create` makes the table and its `age` index.
    init(directory: String, create: Bool) throws {
        let pool = try Self.openPool(path: URL(fileURLWithPath: directory).appendingPathComponent("person.sqlite").path)
        if create { try pool.write { db in try Self.createTable(db) } }
        self.pool = pool
    }

    /// Creates the `person` table and its `age` index.
    static func createTable(_ db: GRDB.Database) throws {
        try db.create(table: GRDBPerson.databaseTableName) { t in
            t.primaryKey("id", .integer)
            t.column("name", .text).notNull()
            t.column("age", .integer).notNull().indexed()
            t.column("score", .double).notNull()
            t.column("created", .double).notNull()
        }
    }

    /// A `DatabasePool` on `path` with `synchronous = FULL` on every connection, the writer included.
    static func openPool(path: String) throws -> DatabasePool {
        var config = Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let pool = try DatabasePool(path: path, configuration: config)
        // A pool's WAL setup runs after `prepareDatabase` and sets the writer back to NORMAL.
        let synchronous = try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            return try Int.fetchOne(db, sql: "PRAGMA synchronous")
        }
        guard synchronous == 2 else { throw DatabaseError(message: "PRAGMA synchronous is \(synchronous ?? -1), not FULL (2)") }
        return pool
    }

    /// The open pool.
    private var database: DatabasePool {
        guard let pool else { preconditionFailure("GRDBSystem used after close()") }
        return pool
    }

    /// `record.insert(db)` for each person in one `write`.
    func insert(_ people: [PersonData]) throws {
        try database.write { db in
            for person in people { try GRDBPerson(person).insert(db) }
        }
    }

    /// `GRDBPerson.fetchCursor` over the whole table in one `read`.
    func readAll() throws -> Checksum {
        try database.read { db in
            var sum = Checksum()
            let people = try GRDBPerson.fetchCursor(db)
            while let person = try people.next() {
                sum.add(id: person.id, name: person.name, age: person.age, score: person.score, created: person.created)
            }
            return sum
        }
    }

    /// `GRDBPerson.fetchOne(db, key:)` per id in one `read`.
    func lookup(_ ids: [Int]) throws -> Int {
        try database.read { db in
            var total = 0
            for id in ids {
                if let person = try GRDBPerson.fetchOne(db, key: id) { total &+= person.age }
            }
            return total
        }
    }

    /// `GRDBPerson.fetchOne(statement, arguments:)` per id with one cached prepared statement.
    func lookupPrepared(_ ids: [Int]) throws -> Int {
        try database.read { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM person WHERE id = ?")
            var total = 0
            for id in ids {
                if let person = try GRDBPerson.fetchOne(statement, arguments: [id]) { total &+= person.age }
            }
            return total
        }
    }

    /// `GRDBPerson.filter(Column("age") > 50).fetchCount(db)`: SQL, free to use the age index.
    func countAgeOver50() throws -> Int {
        try database.read { db in try GRDBPerson.filter(Column("age") > 50).fetchCount(db) }
    }

    /// Record by record, like the other systems: `fetchAll`, then `update(db, columns: ["age"])`.
    func incrementAllAges() throws {
        try database.write { db in
            for var person in try GRDBPerson.fetchAll(db) {
                person.age += 1
                try person.update(db, columns: ["age"])
            }
        }
    }

    /// One `UPDATE person SET age = age + 1` through `updateAll`.
    func incrementAllAgesSetBased() throws {
        try database.write { db in _ = try GRDBPerson.updateAll(db, Column("age").set(to: Column("age") + 1)) }
    }

    /// `GRDBPerson.deleteAll(db)`: one `DELETE FROM person`.
    func deleteAll() throws {
        try database.write { db in _ = try GRDBPerson.deleteAll(db) }
    }

    /// One `write { insert }` per person.
    func insertEach(_ people: ArraySlice<PersonData>) throws {
        let pool = database
        for person in people {
            try pool.write { db in try GRDBPerson(person).insert(db) }
        }
    }

    /// Opens a reader connection.
    func warmUp() throws { try database.read { _ in } }

    /// Closes every connection of the pool.
    func close() {
        try? pool?.close()
        pool = nil
    }
}
