import Foundation
import GRDB

/// The owner of the relationship scenarios in GRDB: a `Codable` record.
struct GRDBOwner: Codable, FetchableRecord, PersistableRecord {
    /// The table.
    static let databaseTableName = "owner"

    /// Primary key (`INTEGER PRIMARY KEY`, the rowid).
    var id: Int
    /// "Owner <id>".
    var name: String
    /// The to-one link, indexed; `nil` for none.
    var favoritePetID: Int?

    /// Column names.
    enum CodingKeys: String, CodingKey {
        case id, name
        case favoritePetID = "favorite_pet_id"
    }
}

/// The relationship scenarios in GRDB 7 with a `DatabasePool` and durable commits: links as
/// foreign-key columns (without `FOREIGN KEY` constraints), lists as a join table with positions.
final class GRDBRelationships: RelationshipSystem {
    /// The column title.
    static let name = GRDBSystem.name
    /// The pool; `nil` once closed.
    private var pool: DatabasePool?
    /// The pet ids the append scenario inserts, prepared untimed.
    private var appendIDs: [Int] = []
    /// The target pet ids of the linking-objects scenario.
    private var targets: [Int] = []

    /// Creates `links.sqlite` in `directory` with the tables `pet`, `owner` and `owner_pet` and
    /// the indexes on `owner.favorite_pet_id` and `owner_pet.pet_id`.
    init(directory: String) throws {
        let pool = try GRDBSystem.openPool(path: URL(fileURLWithPath: directory).appendingPathComponent("links.sqlite").path)
        try pool.write { db in
            try db.create(table: "pet") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
            }
            try db.create(table: GRDBOwner.databaseTableName) { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("favorite_pet_id", .integer).indexed()
            }
            try db.create(table: "owner_pet") { t in
                t.column("owner_id", .integer).notNull()
                t.column("position", .integer).notNull()
                t.column("pet_id", .integer).notNull().indexed()
                t.primaryKey(["owner_id", "position"])
            }
        }
        self.pool = pool
    }

    /// The open pool.
    private var database: DatabasePool {
        guard let pool else { preconditionFailure("GRDBRelationships used after close()") }
        return pool
    }

    /// Inserts the pets in `db` through a cached statement.
    private static func insertPets(_ ids: some Sequence<Int>, _ db: GRDB.Database) throws {
        let statement = try db.cachedStatement(sql: "INSERT INTO pet (id, name) VALUES (?, ?)")
        for id in ids { try statement.execute(arguments: [id, "Pet \(id)"]) }
    }

    /// Inserts the owner (no favorite) and the pets in one `write`.
    func prepareList(_ work: ListWorkload) throws {
        try database.write { db in
            try GRDBOwner(id: ListWorkload.ownerID, name: "Owner \(ListWorkload.ownerID)", favoritePetID: nil).insert(db)
            try Self.insertPets(work.petIDs, db)
        }
        appendIDs = work.petIDs
    }

    /// One `write`: a cached prepared `INSERT INTO owner_pet`, `execute(arguments:)` per element.
    func appendPets() throws {
        let ids = appendIDs
        try database.write { db in
            let statement = try db.cachedStatement(sql: "INSERT INTO owner_pet (owner_id, position, pet_id) VALUES (?, ?, ?)")
            for (position, id) in ids.enumerated() {
                try statement.execute(arguments: [ListWorkload.ownerID, position, id])
            }
        }
    }

    /// `SELECT pet_id FROM owner_pet WHERE owner_id = ? ORDER BY position`.
    func readList() throws -> ListChecksum {
        try database.read { db in
            var sum = ListChecksum()
            let ids = try Int.fetchCursor(
                db, sql: "SELECT pet_id FROM owner_pet WHERE owner_id = ? ORDER BY position", arguments: [ListWorkload.ownerID])
            while let id = try ids.next() { sum.add(id) }
            return sum
        }
    }

    /// `SELECT owner_id FROM owner_pet WHERE pet_id = ?` per pet (through the `pet_id` index).
    func countBacklinked(_ petIDs: [Int]) throws -> Int {
        try database.read { db in
            let statement = try db.cachedStatement(sql: "SELECT owner_id FROM owner_pet WHERE pet_id = ?")
            return try petIDs.count { id in try Int.fetchAll(statement, arguments: [id]) == [ListWorkload.ownerID] }
        }
    }

    /// Inserts the pets, then the owners with `favorite_pet_id`, in one `write`.
    func prepareLinks(_ work: LinkWorkload) throws {
        try database.write { db in
            try Self.insertPets(1...work.pets, db)
            let statement = try db.cachedStatement(sql: "INSERT INTO owner (id, name, favorite_pet_id) VALUES (?, ?, ?)")
            for (index, favorite) in work.favorites.enumerated() {
                try statement.execute(arguments: [index + 1, "Owner \(index + 1)", favorite])
            }
        }
        try database.read { _ in }
        targets = work.targets
    }

    /// One `read`: `GRDBOwner.fetchCursor` of a cached prepared
    /// `SELECT * FROM owner WHERE favorite_pet_id = ?` per lookup.
    func sumLinkingOwners(lookups: Int) throws -> LinkSum {
        let targets = self.targets
        return try database.read { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM owner WHERE favorite_pet_id = ?")
            var sum = LinkSum()
            for lookup in 0..<lookups {
                let target = targets[lookup % targets.count]
                let owners = try GRDBOwner.fetchCursor(statement, arguments: [target])
                while let owner = try owners.next() {
                    guard owner.favoritePetID == target else {
                        throw CheckFailure(description: "GRDB: owner \(owner.id) does not link pet \(target)")
                    }
                    sum.add(owner.id)
                }
            }
            return sum
        }
    }

    /// Closes every connection of the pool.
    func close() {
        try? pool?.close()
        pool = nil
    }
}
