import Foundation
import Testing
@testable import ObjDB

/// A mixed value beside typed properties, compared path with path.
final class MixedPair: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var value: MixedValue = .none
    @Persisted var blob: Data = Data()
    @Persisted var text: String = ""
    @Persisted var uid: UUID?
}

/// Queries on a mixed property, evaluated as realm-core evaluates `Mixed`: numbers across types,
/// strings with data, other types only with themselves; sorting in Realm's order of types. Every
/// query here also runs through the reference interpreter (the internal checks of a debug
/// build), which must agree. Cases modelled on realm-core's `test/test_parser.cpp` mixed-column
/// queries and realm-swift's `AnyRealmValue` query tests.
@Suite(.serialized)
struct MixedQueryTests {
    let directory = TemporaryDirectory()
    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let oid = ObjectId(string: "65a1f0c2b3e4d5f6a7b8c9d0")!

    /// id → value.
    nonisolated(unsafe) static let rows: [(Int, MixedValue)] = [
        (1, .int(1)), (2, .double(1.0)), (3, .float(1)), (4, .decimal(1)), (5, .int(2)), (6, .string("1")),
        (7, .string("abc")), (8, .data(Data("abc".utf8))), (9, .bool(true)), (10, .none), (11, .date(Date(timeIntervalSinceReferenceDate: 1))),
        (12, .uuid(uuid)), (13, .objectId(oid)), (14, .double(.nan)), (15, .string("ABCdef")), (16, .double(-0.5)),
    ]

    func open() throws -> Database {
        let db = try directory.open([MixedHolder.self])
        try db.write {
            for (id, value) in Self.rows {
                let holder = MixedHolder()
                holder.id = id
                holder.value = value
                try db.add(holder)
            }
        }
        return db
    }

    func ids(_ db: Database, _ query: String, _ arguments: Any?...) throws -> [Int] {
        return try db.objects(MixedHolder.self).filter(query, argumentArray: arguments).map(\.id).sorted()
    }

    @Test func numbersCompareAcrossTypes() throws {
        let db = try open()
        #expect(try ids(db, "value == 1") == [1, 2, 3, 4])
        #expect(try ids(db, "value == 1.0") == [1, 2, 3, 4])
        #expect(try ids(db, "value != 1") == [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])
        #expect(try ids(db, "value > 1") == [5])
        #expect(try ids(db, "value >= 1") == [1, 2, 3, 4, 5])
        #expect(try ids(db, "value < 1") == [16])
        #expect(try ids(db, "value BETWEEN {0, 1.5}") == [1, 2, 3, 4])
        #expect(try ids(db, "value IN {2, 'abc'}") == [5, 7])
        #expect(try ids(db, "value == %@", MixedValue.int(2)) == [5])
        #expect(try ids(db, "value == %@", Decimal(2)) == [5])
    }

    @Test func otherTypesEqualOnlyThemselves() throws {
        let db = try open()
        // A string '1' is not the number 1, and true is not 1.
        #expect(try ids(db, "value == '1'") == [6])
        #expect(try ids(db, "value == true") == [9])
        // A string and data of the same bytes are apart, as in realm-core's Mixed (Parser_Mixed),
        // for == and the string operators alike; [c] folds each with its own kind.
        #expect(try ids(db, "value == 'abc'") == [7])
        #expect(try ids(db, "value == %@", Data("abc".utf8)) == [8])
        #expect(try ids(db, "value != 'abc'").contains(8))
        #expect(try ids(db, "value CONTAINS 'b'") == [7])
        #expect(try ids(db, "value CONTAINS %@", Data("b".utf8)) == [8])
        #expect(try ids(db, "value ==[c] 'ABC'") == [7])
        #expect(try ids(db, "value.length == 3") == [7, 8])
        #expect(try ids(db, "value == %@", Self.uuid) == [12])
        #expect(try ids(db, "value == %@", Self.oid) == [13])
        #expect(try ids(db, "value == %@", Date(timeIntervalSinceReferenceDate: 1)) == [11])
        // A UUID's bytes as a string equal no UUID.
        #expect(try ids(db, "value == %@", String(decoding: withUnsafeBytes(of: Self.uuid.uuid) { Data($0) }, as: UTF8.self)) == [])
    }

    @Test func nilMatchesNone() throws {
        let db = try open()
        #expect(try ids(db, "value == nil") == [10])
        #expect(try ids(db, "value != nil").count == Self.rows.count - 1)
        #expect(try ids(db, "value == %@", MixedValue.none) == [10])
    }

    // realm-core Parser_Mixed: string patterns match strings, binary patterns binary values.
    @Test func stringOperatorsMatchStringsWithStringsAndDataWithData() throws {
        let db = try open()
        #expect(try ids(db, "value BEGINSWITH 'ab'") == [7])
        #expect(try ids(db, "value BEGINSWITH %@", Data("ab".utf8)) == [8])
        #expect(try ids(db, "value CONTAINS[c] 'cd'") == [15])
        #expect(try ids(db, "value ENDSWITH 'def'") == [15])
        #expect(try ids(db, "value LIKE 'a?c'") == [7])
        #expect(try ids(db, "value LIKE %@", Data("a?c".utf8)) == [8])
    }

    @Test func sortingFollowsRealmsOrderOfTypes() throws {
        let db = try open()
        let sorted = db.objects(MixedHolder.self).sorted(byKeyPath: "value").map(\.id)
        // nil, bool, numbers (NaN after them), strings and data, date, ObjectId, UUID; ties
        // keep their insertion order.
        #expect(sorted == [10, 9, 16, 1, 2, 3, 4, 5, 14, 6, 15, 7, 8, 11, 13, 12])
        let descending = db.objects(MixedHolder.self).sorted(byKeyPath: "value", ascending: false).map(\.id)
        #expect(descending.first == 12)
        #expect(descending.last == 10)
    }

    @Test func collectionsOfMixedValuesAreQueried() throws {
        let db = try open()
        try db.write {
            let first = try #require(db.object(ofType: MixedHolder.self, forPrimaryKey: 1))
            first.history.append(objectsIn: [.string("x"), .double(3)])
            first.extras["k"] = .int(3)
        }
        #expect(try ids(db, "ANY history == 3") == [1])
        #expect(try ids(db, "history == 'x'") == [1])
        #expect(try ids(db, "extras['k'] == 3.0") == [1])
        #expect(try ids(db, "extras.@values == 3") == [1])
    }

    @Test func anObjectComparesWithTheLinksToIt() throws {
        let db = try open()
        let one = try #require(db.object(ofType: MixedHolder.self, forPrimaryKey: 1))
        #expect(try ids(db, "value == %@", one) == [])
        let two = try #require(db.object(ofType: MixedHolder.self, forPrimaryKey: 2))
        try db.write { two.value = .object(one) }
        #expect(try ids(db, "value == %@", one) == [2])
        #expect(try ids(db, "value == %@", two) == [])
        #expect(try ids(db, "value.@type == 'object'") == [2])
        #expect(try ids(db, "value.@type == 'link'") == [2])
        #expect(throws: ObjDBError.self) { try ids(db, "value == %@", MixedValue.list([.int(1)])) }
    }

    // realm-core's @type queries on a mixed column (`mixed.@type == 'string'`, 'numeric', IN).
    @Test func typeOfComparesTheTypeOfTheValue() throws {
        let db = try open()
        #expect(try ids(db, "value.@type == 'string'") == [6, 7, 15])
        #expect(try ids(db, "value.@type == 'binary'") == [8])
        #expect(try ids(db, "value.@type == 'int'") == [1, 5])
        #expect(try ids(db, "value.@type == 'double'") == [2, 14, 16])
        #expect(try ids(db, "value.@type == 'FLOAT'") == [3])
        #expect(try ids(db, "value.@type == 'decimal'") == [4])
        #expect(try ids(db, "value.@type == 'numeric'") == [1, 2, 3, 4, 5, 14, 16])
        #expect(try ids(db, "value.@type == 'bool'") == [9])
        #expect(try ids(db, "value.@type == 'null'") == [10])
        #expect(try ids(db, "value.@type == 'date'") == [11])
        #expect(try ids(db, "value.@type == 'uuid'") == [12])
        #expect(try ids(db, "value.@type == 'objectId'") == [13])
        #expect(try ids(db, "value.@type != 'numeric'") == [6, 7, 8, 9, 10, 11, 12, 13, 15])
        #expect(try ids(db, "value.@type IN {'bool', 'uuid'}") == [9, 12])
        #expect(try ids(db, "value.@type == 'int' AND value > 1") == [5])
        #expect(try ids(db, "value.@type == %@", "string") == [6, 7, 15])
    }

    @Test func typeOfReachesCollectionsAndRefusesWhatItCannotCompare() throws {
        let db = try open()
        try db.write {
            let first = try #require(db.object(ofType: MixedHolder.self, forPrimaryKey: 1))
            first.history.append(objectsIn: [.string("x"), .double(3)])
        }
        #expect(try ids(db, "ANY history.@type == 'string'") == [1])
        #expect(try ids(db, "NONE history.@type == 'uuid'").count == Self.rows.count)
        #expect(throws: ObjDBError.self) { try ids(db, "value.@type == 'text'") }
        #expect(throws: ObjDBError.self) { try ids(db, "value.@type > 'int'") }
        #expect(throws: ObjDBError.self) { try ids(db, "id.@type == 'int'") }
        #expect(throws: ObjDBError.self) { try ids(db, "value.@type == 1") }
        // `!=` against a collection's types would read as "none equal", not Realm's "some
        // differ": refused on either side.
        #expect(throws: ObjDBError.self) { try ids(db, "history.@type != value.@type") }
        #expect(throws: ObjDBError.self) { try ids(db, "value.@type != history.@type") }
    }

    // realm-core compares a Mixed with a typed column by the Mixed's type: binary with binary,
    // a string with a string, a UUID with a UUID.
    @Test func aMixedPathComparesWithATypedPathByType() throws {
        let db = try directory.open([MixedPair.self], name: "pairs.objdb")
        let uid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        try db.write {
            for (id, value) in [(1, MixedValue.data(Data("abc".utf8))), (2, .string("abc")), (3, .uuid(uid ?? UUID())), (4, .int(3))] {
                let pair = MixedPair()
                pair.id = id
                pair.value = value
                pair.blob = Data("abc".utf8)
                pair.text = "abc"
                pair.uid = uid
                try db.add(pair)
            }
        }
        func ids(_ query: String) throws -> [Int] { try db.objects(MixedPair.self).filter(query).map(\.id).sorted() }
        #expect(try ids("value == blob") == [1])
        #expect(try ids("blob == value") == [1])
        #expect(try ids("value == text") == [2])
        #expect(try ids("value == uid") == [3])
        #expect(try ids("uid == value") == [3])
        #expect(try ids("value != blob") == [2, 3, 4])
    }
}
