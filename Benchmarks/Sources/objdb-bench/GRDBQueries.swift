import Foundation
import GRDB

/// The query scenarios in GRDB 7 with a `DatabasePool` and durable commits, through the query
/// interface and the main table's `Codable` record ``GRDBPerson``.
final class GRDBQueries: QuerySystem {
    /// The column title.
    static let name = GRDBSystem.name
    /// GRDB runs every scenario.
    static func runs(_ scenario: QueryScenario) -> Bool { true }
    /// The pool; `nil` once closed.
    private var pool: DatabasePool?

    /// Creates `query.sqlite` in `directory` with the table `person`, and with `indexed` the
    /// indexes on `name` and `age`.
    init(directory: String, indexed: Bool) throws {
        let pool = try GRDBSystem.openPool(path: URL(fileURLWithPath: directory).appendingPathComponent("query.sqlite").path)
        try pool.write { db in
            try db.create(table: GRDBPerson.databaseTableName) { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("age", .integer).notNull()
                t.column("score", .double).notNull()
                t.column("created", .double).notNull()
            }
            if indexed {
                try db.create(index: "person_on_name", on: GRDBPerson.databaseTableName, columns: ["name"])
                try db.create(index: "person_on_age", on: GRDBPerson.databaseTableName, columns: ["age"])
            }
        }
        self.pool = pool
    }

    /// The open pool.
    private var database: DatabasePool {
        guard let pool else { preconditionFailure("GRDBQueries used after close()") }
        return pool
    }

    /// One `write`: a cached prepared `INSERT`, `execute(arguments:)` per person (setup, so the
    /// fastest way; dates as seconds since 1970 like ``GRDBPerson``).
    func insert(_ people: [PersonData]) throws {
        try database.write { db in
            let statement = try db.cachedStatement(sql: "INSERT INTO person (id, name, age, score, created) VALUES (?, ?, ?, ?, ?)")
            for person in people {
                try statement.execute(arguments: [person.id, person.name, person.age, person.score, person.created.timeIntervalSince1970])
            }
        }
    }

    /// Opens a reader connection.
    func warmUp() throws { try database.read { _ in } }

    /// One `read`: `GRDBPerson.filter(Column("name") == name).fetchOne(db)` per name.
    func lookupFirst(names: [String]) throws -> QueryChecksum {
        try database.read { db in
            var sum = QueryChecksum()
            for name in names {
                if let person = try GRDBPerson.filter(Column("name") == name).fetchOne(db) {
                    sum.add(id: person.id, age: person.age)
                }
            }
            return sum
        }
    }

    /// One `read`: `GRDBPerson.fetchOne(statement, arguments: [name])` per name with one cached
    /// prepared `SELECT * FROM person WHERE name = ? LIMIT 1`.
    func lookupFirstPrepared(names: [String]) throws -> QueryChecksum {
        try database.read { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM person WHERE name = ? LIMIT 1")
            var sum = QueryChecksum()
            for name in names {
                if let person = try GRDBPerson.fetchOne(statement, arguments: [name]) { sum.add(id: person.id, age: person.age) }
            }
            return sum
        }
    }

    /// One `read`: `GRDBPerson.filter(ids.contains(Column("id"))).fetchCursor(db)`, iterated.
    func fetchAll(ids: [Int]) throws -> QueryChecksum {
        try database.read { db in
            var sum = QueryChecksum()
            let people = try GRDBPerson.filter(ids.contains(Column("id"))).fetchCursor(db)
            while let person = try people.next() { sum.add(id: person.id, age: person.age) }
            return sum
        }
    }

    /// `GRDBPerson.filter(Column("age") > 50 && Column("score") < 0.5).fetchCount(db)`.
    func countAgeOver50ScoreUnderHalf() throws -> Int {
        try database.read { db in try GRDBPerson.filter(Column("age") > 50 && Column("score") < 0.5).fetchCount(db) }
    }

    /// `GRDBPerson.filter(Column("age") > 50).fetchCount(db)`, with the age index.
    func countAgeOver50() throws -> Int {
        try database.read { db in try GRDBPerson.filter(Column("age") > 50).fetchCount(db) }
    }

    /// `GRDBPerson.order(Column("score")).fetchAll(db)`: every record, sorted; the count is the
    /// array's.
    func sortedByScore(prefix: Int) throws -> SortedPrefix {
        try database.read { db in
            let people = try GRDBPerson.order(Column("score")).fetchAll(db)
            return SortedPrefix(count: people.count, ids: people.prefix(prefix).map(\.id))
        }
    }

    /// `GRDBPerson.order(Column("score")).limit(prefix).fetchAll(db)` and `GRDBPerson.fetchCount(db)`.
    func sortedByScoreLimited(prefix: Int) throws -> SortedPrefix {
        try database.read { db in
            let first = try GRDBPerson.order(Column("score")).limit(prefix).fetchAll(db)
            return SortedPrefix(count: try GRDBPerson.fetchCount(db), ids: first.map(\.id))
        }
    }

    /// Closes every connection of the pool.
    func close() {
        try? pool?.close()
        pool = nil
    }
}
