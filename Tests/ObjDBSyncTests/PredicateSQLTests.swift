import Foundation
import Logging
import ObjDB
import ObjDBSyncProtocol
@testable import ObjDBSyncServer
import ObjDBSyncTestSupport
import PostgresNIO
import Testing

/// A class with a property of each type a subscription can compare.
final class Specimen: Object {
    @Persisted(primaryKey: true) var id: String = ""
    @Persisted var name: String = ""
    @Persisted var nick: String?
    @Persisted var age: Int = 0
    @Persisted var rank: Int?
    @Persisted var score: Double = 0
    @Persisted var ratio: Float = 0
    @Persisted var done: Bool = false
    @Persisted var flag: Bool?
    @Persisted var born: Date = Date(timeIntervalSince1970: 0)
    @Persisted var due: Date?
    @Persisted var price: Decimal = 0
    @Persisted var tag: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    @Persisted var ref: ObjectId?
    @Persisted var blob: Data = Data()
}

/// Subscriptions and rules are evaluated by PostgreSQL, translated from ObjDB's predicates, and
/// in memory over rows read from PostgreSQL: the same predicate must select the same objects in
/// all three. Each case runs in ObjDB over a file, translated in PostgreSQL over the same rows
/// uploaded from that file, and in memory over those rows as the service reads them.
@Suite(.timeLimit(.minutes(5)))
struct PredicateSQLTests {
    static let names = [
        "ann", "Ann", "ANN", "bob", "Bob Smith", "école", "École", "", "100%", "a_b", #"a\b"#, "x*y", "naïve", "Zed", "zed", "émile",
        "Ωmega", "ωmega", "it's", "semi;colon", "--dash", "?", "annabel", "Anna",
    ]

    static let dates = (0..<7).map { Date(timeIntervalSince1970: 1_600_000_000 + Double($0) * 86_400.5) }

    /// The rows: every property takes several values, nil included where optional.
    static func fill(_ db: Database) throws {
        try db.write {
            for i in 0..<72 {
                let s = Specimen()
                s.id = String(format: "s%03d", i)
                s.name = names[i % names.count]
                s.nick = i % 3 == 0 ? nil : names[(i * 7) % names.count]
                s.age = (i * 13) % 50 - 10
                s.rank = i % 4 == 0 ? nil : i % 7
                s.score = Double(i) * 0.75 - 5
                s.ratio = Float(i % 9) / 8
                s.done = i % 2 == 0
                s.flag = i % 5 == 0 ? nil : i % 3 == 0
                s.born = dates[i % dates.count]
                s.due = i % 4 == 1 ? nil : dates[(i * 3) % dates.count]
                s.price = i == 70 ? Decimal.nan : Decimal(i % 11) * Decimal(string: "1.25", locale: Locale(identifier: "en_US_POSIX"))!
                s.tag = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(i % 6)))
                s.ref = i % 3 == 2 ? nil : ObjectId(string: String(format: "%024x", i % 5))
                s.blob = Data([UInt8(i % 4)])
                try db.add(s)
            }
        }
    }

    static let dateArg = dates[3]
    static let uuidArg = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2))

    /// Every portable form, with values that split the rows. Realm's parser tests
    /// (realm-core `test/test_parser.cpp`, "basic_serialisation", "string_operators",
    /// "null_queries", "in_queries") run the same operators; the cases here are ours.
    static let cases: [(String, [SyncValue])] = [
        ("TRUEPREDICATE", []), ("FALSEPREDICATE", []),
        // Equality and order of each type.
        ("name == 'ann'", []), ("name != 'ann'", []), ("name < 'b'", []), ("name >= 'a'", []), ("name > 'Z'", []),
        ("name <= ''", []), ("'bob' == name", []), ("'b' > name", []),
        ("nick == nil", []), ("nick != nil", []), ("nick == 'ann'", []), ("nick != 'ann'", []), ("nick < 'b'", []),
        ("age == 3", []), ("age != 3", []), ("age < 0", []), ("age <= 0", []), ("age > 20", []), ("age >= 39", []),
        ("age > 2.5", []), ("age == 3.0", []),
        ("rank == nil", []), ("rank != nil", []), ("rank == 3", []), ("rank != 3", []), ("rank > 3", []), ("rank < 3", []),
        ("score == 7", []), ("score > 7.5", []), ("score < -1", []), ("score != 0.25", []),
        ("ratio == 0.5", []), ("ratio > 0.3", []), ("ratio <= 0.125", []), ("ratio < 1", []),
        ("done == true", []), ("done == false", []), ("done != true", []), ("NOT done == true", []),
        ("flag == nil", []), ("flag == true", []), ("flag != true", []), ("flag != nil", []),
        ("born == $0", [.date(dateArg)]), ("born > $0", [.date(dateArg)]), ("born <= $0", [.date(dateArg)]),
        ("due == nil", []), ("due != $0", [.date(dateArg)]), ("due < $0", [.date(dateArg)]),
        ("price == 2.5", []), ("price > 5", []), ("price < 5", []), ("price >= -1", []), ("price <= $0", [.decimal(Decimal(string: "3.75")!)]), ("price != 0", []),
        ("tag == $0", [.uuid(uuidArg)]), ("tag != $0", [.uuid(uuidArg)]),
        ("ref == nil", []), ("ref == $0", [.objectId(ObjectId(string: String(format: "%024x", 3))!)]),
        ("ref != $0", [.objectId(ObjectId(string: String(format: "%024x", 3))!)]),
        ("ref > $0", [.objectId(ObjectId(string: String(format: "%024x", 1))!)]),
        ("blob == $0", [.data(Data([2]))]), ("blob != $0", [.data(Data([2]))]),
        // Case-insensitive equality.
        ("name ==[c] 'ann'", []), ("name !=[c] 'ANN'", []), ("name ==[c] 'ÉCOLE'", []), ("name ==[c] 'ΩMEGA'", []),
        ("nick ==[c] 'bob smith'", []), ("nick !=[c] 'zed'", []),
        // String operators, with LIKE's own wildcards in the values.
        ("name BEGINSWITH 'a'", []), ("name BEGINSWITH[c] 'a'", []), ("name BEGINSWITH ''", []), ("name ENDSWITH 'b'", []),
        ("name ENDSWITH[c] 'ED'", []), ("name CONTAINS 'nn'", []), ("name CONTAINS[c] 'NN'", []), ("name CONTAINS '%'", []),
        ("name CONTAINS '_'", []), ("name CONTAINS $0", [.string(#"\"#)]), ("name CONTAINS '*'", []), ("name CONTAINS ''", []),
        ("name CONTAINS[c] 'É'", []), ("nick BEGINSWITH 'a'", []), ("nick CONTAINS ''", []), ("NOT nick BEGINSWITH 'a'", []),
        ("name LIKE 'a*'", []), ("name LIKE '?nn'", []), ("name LIKE[c] 'a?n*'", []), ("name LIKE '*%*'", []), ("name LIKE 'a_b'", []),
        ("name LIKE '*'", []), ("name LIKE ''", []), ("nick LIKE '*e*'", []), ("name LIKE $0", [.string(#"a\b"#)]),
        // IN and BETWEEN.
        ("age IN {1, 3, 5, -10}", []), ("age IN {}", []), ("rank IN {nil, 3}", []), ("name IN {'ann', 'zed'}", []),
        ("name IN[c] {'ANN', 'ZED'}", []), ("nick IN {nil, 'bob'}", []), ("NOT rank IN {1, 2}", []),
        ("age BETWEEN {0, 20}", []), ("score BETWEEN {-2, 2.5}", []), ("name BETWEEN {'a', 'b'}", []), ("rank BETWEEN {2, 4}", []),
        ("born BETWEEN {$0, $1}", [.date(dates[1]), .date(dates[4])]), ("price BETWEEN {1, 5}", []),
        // Logic, and NOT over comparisons that are false for nil.
        ("age > 5 AND done == true", []), ("age > 5 OR done == true", []), ("NOT (age > 5 OR done == true)", []), ("NOT (rank > 3)", []),
        ("NOT (nick CONTAINS 'a')", []), ("NOT (due < $0)", [.date(dateArg)]), ("NOT (nick == 'ann') AND NOT (flag == true)", []),
        ("(name BEGINSWITH 'a' OR nick ENDSWITH 'e') AND NOT (age BETWEEN {0, 10}) OR ref == nil", []),
        ("TRUEPREDICATE AND age > 3", []), ("FALSEPREDICATE OR age > 3", []),
        // Strings carrying SQL change nothing: they are values.
        ("name == $0", [.string("ann' OR '1'='1")]), ("name == $0", [.string("x'); DROP TABLE \"Specimen\"; --")]),
        ("name CONTAINS $0", [.string("'; --")]), ("name == 'semi;colon'", []), ("name == '--dash'", []),
        ("name == $0", [.string("it's")]),
    ]

    @Test func everyFormSelectsTheSameObjectsInPostgreSQLAsInObjDB() async throws {
        let pg = try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_predicates", icuCollation: true)
        let server = try await makeServer(pg)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("objdb-predicates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var config = Configuration(fileURL: dir.appendingPathComponent("p.objdb"))
        config.objectTypes = [Specimen.self]
        let db = try Database(configuration: config)
        try db.enableSync(classNames: ["Specimen"])
        try Self.fill(db)

        // The rows reach PostgreSQL by the upload path.
        let store = server.store
        try await store.ensureSchema(db.schema.objectSchema.map(SyncClassSchema.init))
        let clientID = UUID()
        _ = try await store.register(clientID: clientID, user: "tester")
        let everything = try ClientView(
            hello: ClientMessage.Hello(clientID: clientID, schema: [], subscriptions: [], checkpoint: nil, lastSequence: 0), rules: .allowAll,
            variables: [:])
        let result = try await store.apply(try db.outboxOperations(after: 0), clientID: clientID, user: "tester", view: everything)
        #expect(result.rejected.isEmpty)
        let mapping = try #require(try await store.mapping("Specimen"))
        let translator = PredicateSQL(mapping: mapping, alias: "\"Specimen\"", variables: [:], lowercase: store.lowercase.withLock { $0 })

        var checked = 0, splitting = 0
        // The rows as the service reads them from PostgreSQL, for the third engine: the
        // in-memory evaluation the service's fan-out uses.
        let batch = try await store.transaction { c in try await store.rows(of: mapping, keys: nil, condition: .always, on: c).batch }
        #expect(batch.rows.count == 72)
        for (text, arguments) in Self.cases {
            let expected = Set(try db.objects(Specimen.self).filter(text, argumentArray: arguments.map(Self.argument)).map(\.id))
            let portable = try PortablePredicate(parsing: text, arguments: arguments)
            // The form sent over the wire reads back as the same predicate.
            let format = portable.predicateFormat
            #expect(try PortablePredicate(parsing: format.text, arguments: format.arguments) == portable, "\(text) → \(format.text)")
            let viaFormat = Set(try db.objects(Specimen.self).filter(format.text, argumentArray: format.arguments.map(Self.argument)).map(\.id))
            #expect(viaFormat == expected, "\(text) → \(format.text)")

            let condition = try translator.condition(portable, firstParameter: 1)
            let found = try await Self.select(condition, store)
            #expect(found == expected, "\(text): PostgreSQL \(found.subtracting(expected).sorted()) extra, \(expected.subtracting(found).sorted()) missing")
            var inMemory = Set<String>()
            for row in batch.rows {
                guard case .string(let id) = row.primaryKey, let values = row.values else { continue }
                let byName = Dictionary(uniqueKeysWithValues: zip(batch.propertyNames, values))
                if try portable.matches({ byName[$0] }) { inMemory.insert(id) }
            }
            #expect(inMemory == expected, "\(text): in memory \(inMemory.subtracting(expected).sorted()) extra, \(expected.subtracting(inMemory).sorted()) missing")
            checked += 1
            if !expected.isEmpty && expected.count < 72 { splitting += 1 }
        }
        #expect(checked == Self.cases.count)
        // The cases are not trivial: nearly all select some rows and leave others.
        #expect(db.objects(Specimen.self).count == 72)
        #expect(splitting >= Self.cases.count - 12, "only \(splitting) of \(Self.cases.count) cases split the rows")
        try await server.stop()
    }

    /// The primary keys PostgreSQL selects.
    static func select(_ condition: SQLCondition, _ store: SyncStore) async throws -> Set<String> {
        var binds = PostgresBindings()
        for cell in condition.parameters { binds.append(cell) }
        let query = PostgresQuery(unsafeSQL: "SELECT id FROM \"Specimen\" WHERE \(condition.sql)", binds: binds)
        return try await store.transaction { c in
            var ids = Set<String>()
            for try await id in try await c.query(query, logger: store.logger).decode(String.self) { ids.insert(id) }
            return ids
        }
    }

    /// A value as `Results.filter(_:argumentArray:)` takes it.
    static func argument(_ value: SyncValue) -> Any? { PortablePredicate.argument(value) }
}
