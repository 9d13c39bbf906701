import Foundation
import Testing
import ObjDB

// Counts and CHECK_THROWs of realm-core test/test_parser.cpp's Mixed (AnyRealmValue) tests:
// Parser_Mixed, Parser_TypeOfValue, Parser_list_of_primitive_mixed, Parser_SetMixed, the Mixed
// parts of Parser_Dictionary and `age + tag > 28` of Parser_Arithmetic. Read from the newest
// test_parser.cpp in the reference index (BarqDB/barq-core 7257512f, a fork of realm-core that
// keeps its tests); the skipped cases and their reasons are listed in RealmParserCurrentSkipped.swift.
// Class names in `@links.…` are this file's (RQMOrigin for upstream's Origin).

// MARK: - Models

/// Upstream's `class_Foo` of Parser_Mixed and Parser_TypeOfValue: a mixed column, an int column
/// and a list of mixed values.
final class RQMFoo: Object {
    @Persisted var mixed: MixedValue = .none
    @Persisted var int: Int = 0
    @Persisted var list: List<MixedValue>
}

/// Upstream's `class_Origin`: a link and a list of links to RQMFoo.
final class RQMOrigin: Object {
    @Persisted var link: RQMFoo?
    @Persisted var links: List<RQMFoo>
}

/// Parser_list_of_primitive_mixed's table: a list of mixed values.
final class RQMValues: Object {
    @Persisted var values: List<MixedValue>
}

/// Parser_SetMixed's table: a set of mixed values and a mixed value.
final class RQMSetRow: Object {
    @Persisted var set: MutableSet<MixedValue>
    @Persisted var value: MixedValue = .none
}

/// Parser_Dictionary's `class_foo`: a dictionary of mixed values.
final class RQMDictRow: Object {
    @Persisted var dict: Map<String, MixedValue>
}

/// Parser_Arithmetic's person, with its mixed `tag`.
final class RQMArithPerson: Object {
    @Persisted(primaryKey: true) var name: String = ""
    @Persisted var age: Int = 0
    @Persisted var tag: MixedValue = .none
    @Persisted var number: Int = 0
    @Persisted var spouse: RQMArithPerson?
}

// MARK: - Parser_Mixed

struct RealmParserCurrentMixedColumnTests {
    let directory = TemporaryDirectory()
    static let id = ObjectId(string: "62e2905feb23128a10ab3973") ?? ObjectId()

    /// 100 objects: i as an integer, or "String<i>" for multiples of 4; then 15 nil, 75 the double
    /// 75, 28 the data "String2Binary", 25 the double 3, 35 the decimal 3, 37 an ObjectId. Ten
    /// origins link to the i·10-th object and list the ten from it; an eleventh links nothing.
    /// (Upstream's origins also hold a link in a mixed column, which ObjDB cannot hold; only the
    /// skipped `mixed == $1` reads it.)
    func fixture() throws -> Database {
        let db = try directory.open([RQMFoo.self, RQMOrigin.self])
        try db.write {
            var rows: [RQMFoo] = []
            for i in 0..<100 {
                let row = RQMFoo()
                row.int = i
                row.mixed = i % 4 != 0 ? .int(i) : .string("String\(i)")
                rows.append(row)
            }
            rows[15].mixed = .none
            rows[75].mixed = .double(75)
            rows[28].mixed = .data(Data("String2Binary".utf8))
            rows[25].mixed = .double(3)
            rows[35].mixed = .decimal(3)
            rows[37].mixed = .objectId(Self.id)
            for row in rows { try db.add(row) }
            for i in 0..<10 {
                let origin = RQMOrigin()
                origin.link = rows[i * 10]
                origin.links.append(contentsOf: rows[(i * 10)..<(i * 10 + 10)])
                try db.add(origin)
            }
            try db.add(RQMOrigin())
        }
        return db
    }

    /// Upstream's arguments, as ObjDB takes them: $0 the data "4", $1 the first RQMFoo, $2 the
    /// first RQMOrigin, $3 a null link, $4 null, $5 the string "4".
    static func arguments(_ db: Database) -> [Any?] {
        let foo = db.objects(RQMFoo.self).filter { $0.int == 0 }.first
        let origin = db.objects(RQMOrigin.self).filter { $0.link?.int == 0 }.first
        return [Data("4".utf8), foo, origin, nil, nil, "4"]
    }

    /// Integers over 50 (upstream's `int_over_50`, counted before the overrides) and strings.
    static let intOver50 = (51..<100).filter { $0 % 4 != 0 }.count
    static let strings = 25

    // realm-core test_parser.cpp (newest): TEST(Parser_Mixed) — on class_Foo
    static let foo: [RQCase] = [
        RQCase("mixed > 50", intOver50),
        RQCase("mixed >= 50", intOver50 + 1),
        RQCase("mixed <= 50", 100 - intOver50 - strings - 2),
        RQCase("mixed < 50", 100 - intOver50 - strings - 3),
        RQCase("mixed < 50 || mixed > 50", 100 - strings - 3),
        RQCase("mixed != 50", 99),
        RQCase("mixed == null", 1),
        RQCase("mixed != null", 99),
        RQCase("mixed beginswith 'String2'", 2),
        RQCase("mixed beginswith bin('String2')", 1),
        RQCase(#"mixed beginswith B64"U3RyaW5nMg==""#, 2),
        RQCase(#"mixed beginswith bin(B64"U3RyaW5nMg==")"#, 1),
        RQCase(#"mixed contains "trin""#, 24),
        RQCase(#"mixed contains bin("trin")"#, 1),
        RQCase(#"mixed like "Strin*""#, 24),
        RQCase(#"mixed like bin("Strin*")"#, 1),
        RQCase(#"mixed endswith "4""#, 5),
        RQCase(#"mixed endswith bin("4")"#, 0),
        RQCase(#"mixed endswith bin("Binary")"#, 1),
        RQCase("mixed.@size > 7", 22),
        RQCase("mixed == oid(\(id.stringValue))", 1),
        RQCase("mixed endswith $0", 0),
        RQCase("mixed endswith $5", 5),
        RQCase(#"mixed == "String2Binary""#, 0),
        RQCase(#"mixed == "String4""#, 1),
        RQCase(#"mixed == bin("String2Binary")"#, 1),
        RQCase(#"mixed ==[c] "string2binary""#, 0),
        RQCase(#"mixed ==[c] "string4""#, 1),
        RQCase(#"mixed ==[c] binary("string2binary")"#, 1),
        RQCase(#"mixed !=[c] "string2binary""#, 100),
        RQCase(#"mixed !=[c] "string4""#, 99),
        RQCase(#"mixed !=[c] bin("string2binary")"#, 99),
        RQCase(#"mixed == "String48""#, 1),
        RQCase("mixed == 3.0", 3),
        RQCase("mixed == NULL", 1),
        // non-uniform type cross column comparisons
        RQCase("mixed == int", 71),
    ]
    static let knownFailingFoo: [RQCase] = [
        RQCase(#"mixed beginswith B64"U3RyaW5nMg==""#, 2, "ObjDB reads B64\"…\" as data, realm-core as a string"),
    ]

    // realm-core test_parser.cpp (newest): TEST(Parser_Mixed) — on class_Origin
    static let origin: [RQCase] = [
        RQCase("link == $1", 1),
        RQCase("link == $3", 1),
        RQCase("link == $4", 1),
        RQCase("link.@links.RQMOrigin.link == $2", 1),
        RQCase("ANY links == $1", 1),
        RQCase("$1 IN links", 1),
        RQCase("ALL links == $1 && links.@size > 0", 0),
        RQCase("NONE links == $1 && links.@size > 0", 9),
        RQCase("links.mixed > 50", 5),
        RQCase(#"links.mixed beginswith[c] "string""#, 10),
        RQCase(#"links.mixed beginswith[c] bin("string")"#, 1),
        RQCase("link.mixed > 50", 2),
        RQCase(#"link.mixed beginswith[c] "string""#, 5),
        RQCase(#"link.mixed beginswith[c] bin("string")"#, 0),
        RQCase("link == NULL", 1),
        RQCase("link.mixed == NULL", 1),
        RQCase("links.mixed == NULL", 1),
        // a link to RQMFoo compared with an RQMOrigin
        RQCase("link == $2", nil),
        RQCase("links == $2", nil),
    ]
    static let knownFailingOrigin: [RQCase] = []

    @Test(arguments: rqExcluding(foo, knownFailingFoo)) func onFoo(_ c: RQCase) {
        rqCheck("Parser_Mixed", RQMFoo.self, c, argumentsFrom: Self.arguments) { try fixture() }
    }
    @Test(arguments: knownFailingFoo) func knownFailingOnFoo(_ c: RQCase) {
        rqCheckKnownFailing("Parser_Mixed", RQMFoo.self, c, argumentsFrom: Self.arguments) { try fixture() }
    }
    @Test(arguments: rqExcluding(origin, knownFailingOrigin)) func onOrigin(_ c: RQCase) {
        rqCheck("Parser_Mixed", RQMOrigin.self, c, argumentsFrom: Self.arguments) { try fixture() }
    }
    @Test(arguments: knownFailingOrigin) func knownFailingOnOrigin(_ c: RQCase) {
        rqCheckKnownFailing("Parser_Mixed", RQMOrigin.self, c, argumentsFrom: Self.arguments) { try fixture() }
    }
}

// MARK: - Parser_TypeOfValue

struct RealmParserCurrentTypeOfValueTests {
    let directory = TemporaryDirectory()

    /// Parser_Mixed's 100 objects with its overrides but 37's, and upstream's two that ObjDB
    /// cannot hold: 17 (a dictionary) and 19 (a link) hold ObjectIds here, a type no kept case
    /// counts, so every kept count is upstream's. Object 0's list holds 1, the decimal 10 and the
    /// double 100; object 1's "hello" and 1000. Ten origins as in Parser_Mixed, without the eleventh.
    func fixture() throws -> Database {
        let db = try directory.open([RQMFoo.self, RQMOrigin.self])
        try db.write {
            var rows: [RQMFoo] = []
            for i in 0..<100 {
                let row = RQMFoo()
                row.int = i
                row.mixed = i % 4 != 0 ? .int(i) : .string("String\(i)")
                rows.append(row)
            }
            rows[15].mixed = .none
            rows[17].mixed = .objectId(ObjectId.generate())
            rows[19].mixed = .objectId(ObjectId.generate())
            rows[75].mixed = .double(75)
            rows[28].mixed = .data(Data("String2Binary".utf8))
            rows[25].mixed = .double(3)
            rows[35].mixed = .decimal(3)
            rows[0].list.append(contentsOf: [.int(1), .decimal(10), .double(100)])
            rows[1].list.append(contentsOf: [.string("hello"), .int(1000)])
            for row in rows { try db.add(row) }
            for i in 0..<10 {
                let origin = RQMOrigin()
                origin.link = rows[i * 10]
                origin.links.append(contentsOf: rows[(i * 10)..<(i * 10 + 10)])
                try db.add(origin)
            }
        }
        return db
    }

    static let ints = 69
    static let numerics = ints + 3
    static let strings = 24
    static let intOver50 = (51..<100).filter { $0 % 4 != 0 }.count

    // realm-core test_parser.cpp (newest): TEST(Parser_TypeOfValue) — on class_Foo
    static let foo: [RQCase] = [
        RQCase("mixed.@type == 'string'", strings),
        RQCase("mixed.@type == 'double'", 2),
        RQCase("mixed.@type == 'float'", 0),
        RQCase("mixed.@type == 'Decimal'", 1),
        RQCase("mixed.@type == 'decimal128'", 1),
        RQCase("mixed.@type == 'binary'", 1),
        RQCase("mixed.@type == 'bytearray'", 1),
        RQCase("mixed.@type == 'byte[]'", 1),
        RQCase("mixed.@type == 'uuid'", 0),
        RQCase("mixed.@type == 'guid'", 0),
        RQCase("mixed.@type == 'bool'", 0),
        RQCase("mixed.@type == 'boolean'", 0),
        RQCase("mixed.@type == 'int'", ints),
        RQCase("mixed.@type == 'integer'", ints),
        RQCase("mixed.@type == 'int16'", ints),
        RQCase("mixed.@type == 'int32'", ints),
        RQCase("mixed.@type == 'int64'", ints),
        RQCase("mixed.@type == 'short'", ints),
        RQCase("mixed.@type == 'long'", ints),
        RQCase("mixed.@type == 'byte'", ints),
        RQCase("mixed.@type == 'char'", ints),
        RQCase("mixed.@type == 'timestamp'", 0),
        RQCase("mixed.@type == 'datetimeoffset'", 0),
        RQCase("mixed.@type == 'binary' || mixed.@type == 'DECIMAL' || mixed.@type == 'Double'", 4),
        RQCase("mixed.@type == 'null'", 1),
        RQCase("mixed.@type == 'numeric'", numerics),
        RQCase("mixed.@type == mixed.@type", 100),
        RQCase("mixed.@type == int.@type", ints),
        RQCase("mixed > 50", intOver50),
        RQCase("mixed > 50 && mixed.@type == 'double'", 1),
        RQCase("mixed > 50 && mixed.@type != 'double'", intOver50 - 1),
        RQCase("mixed > 50 && mixed.@type == 'int'", intOver50 - 1),
        RQCase("list.@type == 'numeric'", 2),
        RQCase("list.@type == 'numeric' AND list >= 10 ", 2),
        RQCase("list.@type == mixed.@type", 1),
        RQCase("NONE list.@type == mixed.@type && list.@size > 0", 1),
        RQCase("ALL list.@type == mixed.@type && list.@size > 0", 0),
        RQCase("ALL list.@type == 'numeric' && list.@size > 0", 1),
        RQCase("NONE list.@type == 'binary' && list.@size > 0", 2),
        RQCase("NONE list.@type == 'string' && list.@size > 0", 1),
        RQCase("mixed.@type == 'asdf'", nil),
        RQCase("mixed.@type == ''", nil),
        RQCase("mixed.@type == 'string|double|'", nil),
        RQCase("mixed.@type == '|'", nil),
        RQCase("mixed.@type == 23", nil),
        RQCase("mixed.@type == 2.5", nil),
        RQCase("mixed.@type == int", nil),
        RQCase("int.@type == 'int'", nil),
        RQCase("mixed.@type =[c] 'string'", nil),
    ]
    static let knownFailingFoo: [RQCase] = []

    // realm-core test_parser.cpp (newest): TEST(Parser_TypeOfValue) — on class_Origin
    static let origin: [RQCase] = [
        RQCase("link.mixed.@type == 'numeric' || link.mixed.@type == 'string'", 10),
        RQCase("links.mixed.@type == 'numeric' || links.mixed.@type == 'string'", 10),
        RQCase("ANY links.mixed.@type IN ANY {'numeric', 'string'}", 10),
        RQCase("links.mixed > 0", 10),
        RQCase("links.mixed.@type == 'double'", 2),
        RQCase("links.mixed > 0 && links.mixed.@type == 'double'", 2),
        RQCase("SUBQUERY(links, $x, $x.mixed.@type == 'double' && $x.mixed == $x.int).@count > 0", 1),
        RQCase("links.mixed.@type IN {'numeric', 'asdf'}", nil),
        RQCase("link.@type == 'objectlink'", nil),
    ]
    static let knownFailingOrigin: [RQCase] = []

    @Test(arguments: rqExcluding(foo, knownFailingFoo)) func onFoo(_ c: RQCase) {
        rqCheck("Parser_TypeOfValue", RQMFoo.self, c) { try fixture() }
    }
    @Test(arguments: knownFailingFoo) func knownFailingOnFoo(_ c: RQCase) {
        rqCheckKnownFailing("Parser_TypeOfValue", RQMFoo.self, c) { try fixture() }
    }
    @Test(arguments: rqExcluding(origin, knownFailingOrigin)) func onOrigin(_ c: RQCase) {
        rqCheck("Parser_TypeOfValue", RQMOrigin.self, c) { try fixture() }
    }
    @Test(arguments: knownFailingOrigin) func knownFailingOnOrigin(_ c: RQCase) {
        rqCheckKnownFailing("Parser_TypeOfValue", RQMOrigin.self, c) { try fixture() }
    }
}

// MARK: - Parser_list_of_primitive_mixed

struct RealmParserCurrentMixedListTests {
    let directory = TemporaryDirectory()

    /// Upstream's seven lists: [], [nil], [""], [0, 1, 2], [1, 2.2 (decimal), 3.3 (float), 4.4],
    /// ["one", "two", "three", "", nil] and the list of every type; its float, double and decimal
    /// nulls are nil here, as Mixed stores them.
    func fixture() throws -> Database {
        let db = try directory.open([RQMValues.self])
        let lists: [[MixedValue]] = [
            [],
            [.none],
            [.string("")],
            [.int(0), .int(1), .int(2)],
            [.int(1), .decimal(Decimal(string: "2.2") ?? 0), .float(3.3), .double(4.4)],
            [.string("one"), .string("two"), .string("three"), .string(""), .none],
            [.string("foo"), .int(1), .date(rqSeconds(1)), .decimal(Decimal(string: "2.5") ?? 0), .float(3.7),
             .objectId(ObjectId.generate()), .uuid(rqUUID(0)), .none, .bool(false), .bool(true), .none, .none, .none,
             .decimal(.nan)],
        ]
        try db.write {
            for values in lists {
                let row = RQMValues()
                row.values.append(contentsOf: values)
                try db.add(row)
            }
        }
        return db
    }

    // realm-core test_parser.cpp (newest): TEST(Parser_list_of_primitive_mixed)
    static let cases: [RQCase] = [
        RQCase("values.@count == 0", 1),
        RQCase("values.@size == 1", 2),
        RQCase("ANY values == NULL", 3),
        RQCase("ALL values == NULL", 2),
        RQCase("ALL values == NULL && values.@size > 0", 1),
        RQCase("NONE values == NULL", 4),
        RQCase("NONE values == NULL && values.@size > 0", 3),
        RQCase("ANY values == 'one'", 1),
        RQCase("ANY values CONTAINS[c] 'O'", 2),
        RQCase("values.length == 3", 2),
        RQCase("ANY values == false", 1),
        RQCase("ANY values == true", 1),
        RQCase("values.@type == 'string'", 3),
        RQCase("values == T1:0", 1),
        RQCase("values.@sum > 0", 3),
        RQCase("values.@sum == 0", 4),
        RQCase("values.@sum == 3", 1),
        RQCase("values.@sum == 10.9", 1),
        RQCase("values.@sum == 7.2", 1),
        RQCase("values.@avg == 1", 1),
        RQCase("values.@avg == 2.725", 1),
        RQCase("values.@avg == 2.4", 1),
        RQCase("values.@min == false", 1),
        RQCase("values.@min == 1", 1),
        RQCase("values.@max == 2", 1),
        RQCase("values.@max == 4.4", 1),
        RQCase("values.@max == uuid(00000000-0000-0000-0000-000000000000)", 1),
        RQCase("ANY values == {'one', 'two'}", 1),
        RQCase("NONE values == ANY {null, ''}", 3),
    ]
    static let knownFailingCases: [RQCase] = []

    @Test(arguments: rqExcluding(cases, knownFailingCases)) func check(_ c: RQCase) {
        rqCheck("Parser_list_of_primitive_mixed", RQMValues.self, c) { try fixture() }
    }
    @Test(arguments: knownFailingCases) func knownFailing(_ c: RQCase) {
        rqCheckKnownFailing("Parser_list_of_primitive_mixed", RQMValues.self, c) { try fixture() }
    }
}

// MARK: - Parser_SetMixed

struct RealmParserCurrentMixedSetTests {
    let directory = TemporaryDirectory()

    /// Five rows whose value is 300; their sets: {3, "hello", 300}, {3.5 (float), "world", the
    /// data "foo", an ObjectId, the zero UUID, nil}, {300}, {} and {-1, NaN (decimal), 4.4
    /// (float), 7.6, 0, nil}.
    func fixture() throws -> Database {
        let db = try directory.open([RQMSetRow.self])
        let sets: [[MixedValue]] = [
            [.int(3), .string("hello"), .int(300)],
            [.float(3.5), .string("world"), .data(Data("foo".utf8)), .objectId(ObjectId.generate()), .uuid(rqUUID(0)), .none],
            [.int(300)],
            [],
            [.int(-1), .decimal(.nan), .float(4.4), .double(7.6), .int(0), .none],
        ]
        try db.write {
            for values in sets {
                let row = RQMSetRow()
                row.value = .int(300)
                for value in values { row.set.insert(value) }
                try db.add(row)
            }
        }
        return db
    }

    // realm-core test_parser.cpp (newest): TEST(Parser_SetMixed)
    static let cases: [RQCase] = [
        RQCase("set.@min == 3", 1),
        RQCase("set.@min == 3.5", 1),
        RQCase("set.@min == 300", 1),
        RQCase("set.@min == NULL", 1),
        RQCase("set.@min == -1", 1),
        RQCase("set.@max == 'hello'", 1),
        RQCase("set.@max == uuid(00000000-0000-0000-0000-000000000000)", 1),
        RQCase("set.@max == 7.6", 1),
        RQCase("set.@max == 300", 1),
        RQCase("set.@max == NULL", 1),
        RQCase("set.@sum == 303", 1),
        RQCase("set.@sum == 3.5", 1),
        RQCase("set.@sum == 300", 1),
        RQCase("set.@sum == 0", 1),
        RQCase("set.@sum == 11", 1),
        RQCase("set.@avg == 151.5", 1),
        RQCase("set.@avg == 3.5", 1),
        RQCase("set.@avg == 300", 1),
        RQCase("set.@avg == NULL", 1),
        RQCase("set.@avg == 2.75", 1),
        RQCase("set.@count == 0", 1),
        RQCase("set.@size >= 1", 4),
        RQCase("set.@size == 6", 2),
        RQCase("3.5 IN set", 1),
        RQCase("'WorLD' IN[c] set", 1),
        RQCase("set == value", 2),
        RQCase("set < value", 3),
        RQCase("ALL set < value", 1),
        RQCase("ALL set < value && set.@size > 0", 0),
        RQCase("ALL set == value", 2),
        RQCase("NONE set == value", 3),
        RQCase("ANY set == {300}", 2),
        RQCase("ALL set == ALL {300} && set.@size > 0", 1),
        RQCase("set == NULL", 2),
        RQCase("set beginswith[c] 'HE'", 1),
        RQCase("set endswith[c] 'D'", 1),
        RQCase("set LIKE[c] '*O*'", 2),
        RQCase("set CONTAINS 'r'", 1),
        RQCase("set.length == 5", 2),
        RQCase("set.length == 3", 1),
    ]
    static let knownFailingCases: [RQCase] = []

    @Test(arguments: rqExcluding(cases, knownFailingCases)) func check(_ c: RQCase) {
        rqCheck("Parser_SetMixed", RQMSetRow.self, c) { try fixture() }
    }
    @Test(arguments: knownFailingCases) func knownFailing(_ c: RQCase) {
        rqCheckKnownFailing("Parser_SetMixed", RQMSetRow.self, c) { try fixture() }
    }
}

// MARK: - Parser_Dictionary (Mixed)

struct RealmParserCurrentMixedDictionaryTests {
    let directory = TemporaryDirectory()

    /// Upstream's stages of the dictionary table.
    enum Stage { case base, withDouble, withDate }

    /// Upstream's 100 dictionaries of mixed values: "Value" is i for multiples of 4, else 100 for
    /// multiples of 10, and 3 where i is no multiple of 3; "Foo" 5 for multiples of 5; "Bar" i;
    /// object 78's "Value" nil. `.withDouble` adds upstream's later edits of the first dictionary
    /// ("some extra" 42 and "Value" 4.5), `.withDate` its "Bar" set to Timestamp(1234, 5678).
    func fixture(_ stage: Stage) throws -> Database {
        let db = try directory.open([RQMDictRow.self])
        try db.write {
            for i in 0..<100 {
                let row = RQMDictRow()
                if i % 4 == 0 {
                    _ = row.dict.updateValue(.int(i), forKey: "Value")
                } else if i % 10 == 0 {
                    _ = row.dict.updateValue(.int(100), forKey: "Value")
                }
                if i % 3 != 0 { _ = row.dict.updateValue(.int(3), forKey: "Value") }
                if i % 5 == 0 { _ = row.dict.updateValue(.int(5), forKey: "Foo") }
                if i == 78 { _ = row.dict.updateValue(MixedValue.none, forKey: "Value") }
                _ = row.dict.updateValue(.int(i), forKey: "Bar")
                if i == 0 && stage != .base {
                    _ = row.dict.updateValue(.int(42), forKey: "some extra")
                    _ = row.dict.updateValue(.double(4.5), forKey: "Value")
                    if stage == .withDate {
                        _ = row.dict.updateValue(.date(Date(timeIntervalSince1970: 1234.000005678)), forKey: "Bar")
                    }
                }
                try db.add(row)
            }
        }
        return db
    }

    /// Upstream's `num_ints_for_value`: dictionaries whose "Value" is an integer.
    static let intValues = (0..<100).filter { $0 % 4 == 0 || $0 % 10 == 0 || $0 % 3 != 0 }.count

    // realm-core test_parser.cpp (newest): TEST(Parser_Dictionary) — the Mixed cases
    static let base: [RQCase] = [
        RQCase("dict['Value'] == NULL", 23),
        RQCase("dict['Value'].@type == 'int'", intValues),
        RQCase("dict.@type == 'int'", 100),
        RQCase("ALL dict.@type == 'int'", 99),
        RQCase("NONE dict.@type == 'int'", 0),
        RQCase("ANY dict.@type == 'string'", 0),
    ]
    static let withDouble: [RQCase] = [
        RQCase("dict['some extra'] == 42", 1),
        RQCase("dict.@max == 100", 2),
        RQCase("dict.@min < 2", 2),
        RQCase("dict.@sum >= 100", 9),
        RQCase("dict.@avg < 10", 15),
    ]
    static let withDate: [RQCase] = [
        RQCase("dict.@max == 100", 2),
        RQCase("dict.@min < 2", 1),
        RQCase("dict.@sum >= 100", 9),
        RQCase("dict.@avg < 10", 15),
    ]
    static let cases = base.map { $0.on("base") } + withDouble.map { $0.on("4.5") } + withDate.map { $0.on("Timestamp") }
    static let knownFailingCases: [RQCase] = []

    func run(_ c: RQCase, known: Bool) {
        let stage: Stage = c.variant == "base" ? .base : c.variant == "4.5" ? .withDouble : .withDate
        if known {
            rqCheckKnownFailing("Parser_Dictionary", RQMDictRow.self, c) { try fixture(stage) }
        } else {
            rqCheck("Parser_Dictionary", RQMDictRow.self, c) { try fixture(stage) }
        }
    }

    @Test(arguments: rqExcluding(cases, knownFailingCases)) func check(_ c: RQCase) { run(c, known: false) }
    @Test(arguments: knownFailingCases) func knownFailing(_ c: RQCase) { run(c, known: true) }
}

// MARK: - Parser_Arithmetic (Mixed)

struct RealmParserCurrentMixedArithmeticTests {
    let directory = TemporaryDirectory()

    /// Per 42 (number 1), Poul 25 (tag 2), Anne 40 (number 2, tag "Cool"), Andrea 27 (tag 2);
    /// Per–Anne and Poul–Andrea are spouses.
    func fixture() throws -> Database {
        let db = try directory.open([RQMArithPerson.self])
        let rows: [(String, Int, MixedValue, Int)] = [
            ("Per", 42, .none, 1), ("Poul", 25, .int(2), 0), ("Anne", 40, .string("Cool"), 2), ("Andrea", 27, .int(2), 0),
        ]
        let people = rows.map { name, age, tag, number in
            let p = RQMArithPerson()
            p.name = name
            p.age = age
            p.tag = tag
            p.number = number
            return p
        }
        people[0].spouse = people[2]
        people[1].spouse = people[3]
        people[2].spouse = people[0]
        people[3].spouse = people[1]
        try db.write { for p in people { try db.add(p) } }
        return db
    }

    // realm-core test_parser.cpp (newest): TEST_TYPES(Parser_Arithmetic, …) — the Mixed `tag` case
    static let cases: [RQCase] = [RQCase("age + tag > 28", 1)]
    static let knownFailingCases: [RQCase] = []

    @Test(arguments: rqExcluding(cases, knownFailingCases)) func check(_ c: RQCase) {
        rqCheck("Parser_Arithmetic", RQMArithPerson.self, c) { try fixture() }
    }
    @Test(arguments: knownFailingCases) func knownFailing(_ c: RQCase) {
        rqCheckKnownFailing("Parser_Arithmetic", RQMArithPerson.self, c) { try fixture() }
    }
}
