import Foundation
import ObjDB

/// The person of the query scenarios that need indexes: `name` and `age` indexed.
final class IndexedQueryPerson: Object {
    /// Primary key.
    @Persisted(primaryKey: true) var id: Int = 0
    /// Unique; indexed.
    @Persisted(indexed: true) var name: String = ""
    /// 0..<100; indexed.
    @Persisted(indexed: true) var age: Int = 0
    /// Uniform in 0..<1.
    @Persisted var score: Double = 0
    /// Creation date.
    @Persisted var created: Date = Date(timeIntervalSince1970: 0)

    /// Stored as `IndexedPerson`.
    override class var className: String { "IndexedPerson" }
}

/// The person of the other query scenarios: the same properties, only the primary key indexed.
final class PlainQueryPerson: Object {
    /// Primary key.
    @Persisted(primaryKey: true) var id: Int = 0
    /// Unique; not indexed.
    @Persisted var name: String = ""
    /// 0..<100; not indexed.
    @Persisted var age: Int = 0
    /// Uniform in 0..<1.
    @Persisted var score: Double = 0
    /// Creation date.
    @Persisted var created: Date = Date(timeIntervalSince1970: 0)

    /// Stored as `PlainPerson`.
    override class var className: String { "PlainPerson" }
}

/// The query scenarios through ObjDB's public API only.
final class ObjDBQueries: QuerySystem {
    /// The column title.
    static let name = ObjDBSystem.name
    /// ObjDB runs every scenario.
    static func runs(_ scenario: QueryScenario) -> Bool { true }
    /// Whether the database holds ``IndexedQueryPerson`` (else ``PlainQueryPerson``).
    private let indexed: Bool
    /// The open database; `nil` once closed.
    private var db: Database?

    /// Creates `query.objdb` in `directory` holding one of the two classes, with the default
    /// durability (`.full`).
    init(directory: String, indexed: Bool) throws {
        self.indexed = indexed
        var config = Configuration(fileURL: URL(fileURLWithPath: directory).appendingPathComponent("query.objdb"))
        config.objectTypes = [indexed ? IndexedQueryPerson.self : PlainQueryPerson.self]
        config.maximumSize = mapSizeOverride
        db = try Database(configuration: config)
    }

    /// The open database.
    private var database: Database {
        guard let db else { preconditionFailure("ObjDBQueries used after close()") }
        return db
    }

    /// Creates and adds one object per person in one `write { }`.
    func insert(_ people: [PersonData]) throws {
        let db = database
        let indexed = self.indexed
        try db.write {
            for person in people {
                if indexed {
                    let object = IndexedQueryPerson()
                    (object.id, object.name, object.age) = (person.id, person.name, person.age)
                    (object.score, object.created) = (person.score, person.created)
                    try db.add(object)
                } else {
                    let object = PlainQueryPerson()
                    (object.id, object.name, object.age) = (person.id, person.name, person.age)
                    (object.score, object.created) = (person.score, person.created)
                    try db.add(object)
                }
            }
        }
    }

    /// Begins the read snapshot.
    func warmUp() throws {
        _ = indexed ? database.objects(IndexedQueryPerson.self).count : database.objects(PlainQueryPerson.self).count
    }

    /// `objects(…).where { $0.name == name }.first` per name, reading `id` and `age`.
    func lookupFirst(names: [String]) throws -> QueryChecksum {
        let db = database
        var sum = QueryChecksum()
        if indexed {
            for name in names {
                if let person = db.objects(IndexedQueryPerson.self).where({ $0.name == name }).first {
                    sum.add(id: person.id, age: person.age)
                }
            }
        } else {
            for name in names {
                if let person = db.objects(PlainQueryPerson.self).where({ $0.name == name }).first {
                    sum.add(id: person.id, age: person.age)
                }
            }
        }
        return sum
    }

    /// `objects(PlainPerson.self).where { $0.id.in(ids) }`, iterated.
    func fetchAll(ids: [Int]) throws -> QueryChecksum {
        var sum = QueryChecksum()
        for person in database.objects(PlainQueryPerson.self).where({ $0.id.in(ids) }) {
            sum.add(id: person.id, age: person.age)
        }
        return sum
    }

    /// `objects(PlainPerson.self).where { $0.age > 50 && $0.score < 0.5 }.count`: no index applies.
    func countAgeOver50ScoreUnderHalf() throws -> Int {
        database.objects(PlainQueryPerson.self).where { $0.age > 50 && $0.score < 0.5 }.count
    }

    /// `objects(IndexedPerson.self).where { $0.age > 50 }.count`: a range of the age index.
    func countAgeOver50() throws -> Int {
        database.objects(IndexedQueryPerson.self).where { $0.age > 50 }.count
    }

    /// `sorted(byKeyPath: "score")`, its `count` (which evaluates the sort), then the first
    /// `prefix` objects by subscript (which reuse the evaluated keys).
    func sortedByScore(prefix: Int) throws -> SortedPrefix {
        let sorted = database.objects(PlainQueryPerson.self).sorted(byKeyPath: "score")
        var result = SortedPrefix(count: sorted.count)
        for index in 0..<min(prefix, result.count) { result.ids.append(sorted[index].id) }
        return result
    }

    /// The same result through ObjDB's own limit: `sorted(byKeyPath: "score").prefix(prefix)`
    /// (which keeps only the best `prefix` while it sorts) and the class's `count` (O(1)).
    func sortedByScoreLimited(prefix: Int) throws -> SortedPrefix {
        let objects = database.objects(PlainQueryPerson.self)
        var result = SortedPrefix(count: objects.count)
        for person in objects.sorted(byKeyPath: "score").prefix(prefix) { result.ids.append(person.id) }
        return result
    }

    /// Drops the database, closing the file.
    func close() { db = nil }
}
