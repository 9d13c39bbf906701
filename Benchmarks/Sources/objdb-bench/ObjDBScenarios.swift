import Foundation
import ObjDB

/// The benchmark model in ObjDB.
final class ObjDBPerson: Object {
    /// Primary key.
    @Persisted(primaryKey: true) var id: Int = 0
    /// "Person <id>".
    @Persisted var name: String = ""
    /// Indexed.
    @Persisted(indexed: true) var age: Int = 0
    /// A score.
    @Persisted var score: Double = 0
    /// Creation date.
    @Persisted var created: Date = Date(timeIntervalSince1970: 0)

    /// Stored as `Person`, like the other systems' tables.
    override class var className: String { "Person" }
}

/// ObjDB through its public API only.
final class ObjDBSystem: BenchSystem {
    /// The column title.
    static let name = "ObjDB"
    /// The open database; `nil` once closed.
    private var db: Database?

    /// Opens (or creates) `person.objdb` in `directory` with the default durability (`.full`).
    init(directory: String, create: Bool) throws {
        db = try Database(configuration: Self.configuration(directory: directory))
    }

    /// `person.objdb` in `directory`, holding ``ObjDBPerson``, with the default settings.
    static func configuration(directory: String) -> Configuration {
        var config = Configuration(fileURL: URL(fileURLWithPath: directory).appendingPathComponent("person.objdb"))
        config.objectTypes = [ObjDBPerson.self]
        config.maximumSize = mapSizeOverride
        return config
    }

    /// The open database.
    private var database: Database {
        guard let db else { preconditionFailure("ObjDBSystem used after close()") }
        return db
    }

    /// A new unmanaged object with `person`'s values.
    static func makeObject(_ person: PersonData) -> ObjDBPerson {
        let object = ObjDBPerson()
        object.id = person.id
        object.name = person.name
        object.age = person.age
        object.score = person.score
        object.created = person.created
        return object
    }

    /// Creates and adds one object per person in one `write { }`.
    func insert(_ people: [PersonData]) throws {
        let db = database
        try db.write {
            for person in people { try db.add(Self.makeObject(person)) }
        }
    }

    /// Iterates `db.objects(ObjDBPerson.self)` and reads every property.
    func readAll() throws -> Checksum {
        var sum = Checksum()
        for person in database.objects(ObjDBPerson.self) {
            sum.add(id: person.id, name: person.name, age: person.age, score: person.score, created: person.created)
        }
        return sum
    }

    /// `object(ofType:forPrimaryKey:)` for each id, reading `age`.
    func lookup(_ ids: [Int]) throws -> Int {
        let db = database
        var total = 0
        for id in ids {
            if let person = db.object(ofType: ObjDBPerson.self, forPrimaryKey: id) { total &+= person.age }
        }
        return total
    }

    /// Without a query: iterates every object and tests `age > 50`.
    func countAgeOver50() throws -> Int {
        var count = 0
        for person in database.objects(ObjDBPerson.self) where person.age > 50 { count += 1 }
        return count
    }

    /// `objects(Person.self).where { $0.age > 50 }.count`: a range of the age index.
    func countAgeOver50Indexed() throws -> Int {
        database.objects(ObjDBPerson.self).where { $0.age > 50 }.count
    }

    /// Iterates the objects inside `write { }` and sets `age += 1` (an indexed property).
    func incrementAllAges() throws {
        let db = database
        try db.write {
            for person in db.objects(ObjDBPerson.self) { person.age += 1 }
        }
    }

    /// `db.delete(db.objects(ObjDBPerson.self))` in one `write { }`.
    func deleteAll() throws {
        let db = database
        try db.write { db.delete(db.objects(ObjDBPerson.self)) }
    }

    /// One `write { add }` per person.
    func insertEach(_ people: ArraySlice<PersonData>) throws {
        let db = database
        for person in people {
            try db.write { try db.add(Self.makeObject(person)) }
        }
    }

    /// Begins the read snapshot.
    func warmUp() throws { _ = database.objects(ObjDBPerson.self).count }

    /// Drops the database, closing the file.
    func close() { db = nil }
}
