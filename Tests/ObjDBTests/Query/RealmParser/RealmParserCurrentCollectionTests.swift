import Foundation
import Testing
import ObjDB

// Counts ported from the current realm-core test/test_parser.cpp: lists, sets and dictionaries of
// primitive values and of objects. Models in RealmParserCurrentModels.swift.

// MARK: - Parser_list_of_primitive_types

/// The five rows: 13 values, {}, {1}, {1, 1}, {the default element}; each row links to itself.
private func rqValuesFixture<T: RQValuesModel>(_ type: T.Type, _ directory: TemporaryDirectory, _ make: (Int) -> T.V,
                                               defaultElement: T.V) throws -> Database {
    let db = try directory.open([T.self])
    let rows = (0..<5).map { _ in T() }
    rows[0].values.append(contentsOf: [0, 9, 4, 2, 7, 4, 1, 8, 11, 3, 4, 5, 22].map(make))
    rows[2].values.append(make(1))
    rows[3].values.append(contentsOf: [make(1), make(1)])
    rows[4].values.append(defaultElement)
    try db.write {
        for row in rows { try db.add(row) }
        for row in rows { row.link = row }
    }
    return db
}

/// The value made from `i` for each variant, as upstream's TestValueGenerator makes values from
/// integers (only equality and order matter to the counts). Bools reuse values: upstream's counts
/// for a non-null bool list take the default element to equal the value made from 1, so 1 makes
/// `false` here.
private func rqValuesRun(_ testCase: RQCase, in directory: TemporaryDirectory, known: Bool) {
    func run<T: RQValuesModel>(_ type: T.Type, _ make: @escaping (Int) -> T.V, _ defaultElement: T.V, _ argument: Any?) {
        let fixture = { try rqValuesFixture(type, directory, make, defaultElement: defaultElement) }
        if known {
            rqCheckKnownFailing("Parser_list_of_primitive_types", type, testCase, arguments: [argument], fixture: fixture)
        } else {
            rqCheck("Parser_list_of_primitive_types", type, testCase, arguments: [argument], fixture: fixture)
        }
    }
    let date = { (i: Int) in rqSeconds(i) }
    switch testCase.variant {
    case "Int": run(RQIntValues.self, { $0 }, 0, 1)
    case "Int?": run(RQOptIntValues.self, { $0 }, nil, 1)
    case "Bool": run(RQBoolValues.self, { $0 % 2 == 0 }, false, false)
    case "Bool?": run(RQOptBoolValues.self, { $0 % 2 == 0 }, nil, false)
    case "Float": run(RQFloatValues.self, { Float($0) }, 0, Float(1))
    case "Float?": run(RQOptFloatValues.self, { Float($0) }, nil, Float(1))
    case "Double": run(RQDoubleValues.self, { Double($0) }, 0, Double(1))
    case "Double?": run(RQOptDoubleValues.self, { Double($0) }, nil, Double(1))
    case "Decimal": run(RQDecimalValues.self, { Decimal($0) }, 0, Decimal(1))
    case "Decimal?": run(RQOptDecimalValues.self, { Decimal($0) }, nil, Decimal(1))
    case "ObjectId": run(RQObjectIdValues.self, rqObjectId, rqObjectId(0), rqObjectId(1))
    case "ObjectId?": run(RQOptObjectIdValues.self, { rqObjectId($0) }, nil, rqObjectId(1))
    case "UUID": run(RQUUIDValues.self, rqUUID, rqUUID(0), rqUUID(1))
    case "UUID?": run(RQOptUUIDValues.self, { rqUUID($0) }, nil, rqUUID(1))
    case "Date": run(RQDateValues.self, date, rqSeconds(0), rqSeconds(1))
    case "Date?": run(RQOptDateValues.self, { rqSeconds($0) }, nil, rqSeconds(1))
    default: Issue.record("no variant \(testCase.variant)")
    }
}

struct RealmParserCurrentListOfPrimitiveTypesTests {
    let directory = TemporaryDirectory()

    static let types = ["Int", "Int?", "Bool", "Bool?", "Float", "Float?", "Double", "Double?", "Decimal", "Decimal?",
                        "ObjectId", "ObjectId?", "UUID", "UUID?", "Date", "Date?"]

    static func cases(_ type: String) -> [RQCase] {
        let nullable = type.hasSuffix("?")
        let bool = type.hasPrefix("Bool")
        // obj1 … obj5 are {13 values}, {}, {1}, {1, 1}, {default}
        let (matching, notMatching, allMatching, allNotMatching, noneMatching, noneNotMatching) =
            bool && !nullable ? (4, 1, 4, 1, 1, 4) : (3, 2, 3, 2, 2, 3)
        var result: [RQCase] = []
        for path in ["", "link.", "link.link."] {
            result += [
                RQCase("\(path)values.@count == 0", 1),
                RQCase("\(path)values.@count == 1", 2),
                RQCase("\(path)values.@count == 2", 1),
                RQCase("\(path)values.@count > 0", 4),
                RQCase("\(path)values.@count == 13", 1),
                RQCase("\(path)values == NULL", nullable ? 1 : 0),
                RQCase("\(path)values == $0", matching),
                RQCase("\(path)values != $0", notMatching),
                RQCase("ANY \(path)values == $0", matching),
                RQCase("ANY \(path)values != $0", notMatching),
                RQCase("ALL \(path)values == $0", allMatching),
                RQCase("ALL \(path)values != $0", allNotMatching),
                RQCase("NONE \(path)values == $0", noneMatching),
                RQCase("NONE \(path)values != $0", noneNotMatching),
            ]
        }
        return result.map { $0.on(type) }
    }

    static func rejected(_ type: String) -> [RQCase] {
        [RQCase("missing.length == 2", nil), RQCase("values.length == 2", nil)].map { $0.on(type) }
    }

    // realm-core test_parser.cpp (current): TEST_TYPES(Parser_list_of_primitive_types)
    static let counts: [RQCase] = types.flatMap(cases)
    static let knownFailingCounts: [RQCase] = []
    static let rejects: [RQCase] = types.flatMap(rejected)
    static let knownFailingRejects: [RQCase] = []

    @Test(arguments: rqExcluding(counts, knownFailingCounts)) func count(_ testCase: RQCase) {
        rqValuesRun(testCase, in: directory, known: false)
    }
    @Test(arguments: knownFailingCounts) func knownFailingCount(_ testCase: RQCase) {
        rqValuesRun(testCase, in: directory, known: true)
    }
    @Test(arguments: rqExcluding(rejects, knownFailingRejects)) func reject(_ testCase: RQCase) {
        rqValuesRun(testCase, in: directory, known: false)
    }
    @Test(arguments: knownFailingRejects) func knownFailingReject(_ testCase: RQCase) {
        rqValuesRun(testCase, in: directory, known: true)
    }
}

// MARK: - Parser_list_of_primitive_strings

struct RealmParserCurrentListOfStringsTests {
    let directory = TemporaryDirectory()

    /// Ten rows {"string_i"}, then {}, {nil}, {""}.
    func fixture() throws -> Database {
        let db = try directory.open([RQStringsRow.self])
        try db.write {
            for i in 0..<10 {
                let row = RQStringsRow()
                row.strings.append("string_\(i)")
                try db.add(row)
            }
            try db.add(RQStringsRow())
            let withNil = RQStringsRow()
            withNil.strings.append(nil)
            try db.add(withNil)
            let withEmpty = RQStringsRow()
            withEmpty.strings.append("")
            try db.add(withEmpty)
        }
        return db
    }

    // realm-core test_parser.cpp (current): TEST(Parser_list_of_primitive_strings)
    static let counts: [RQCase] = (0..<10).flatMap { i -> [RQCase] in
        let s = "string_\(i)"
        let total = 13
        return [
            RQCase("strings == '\(s)'", 1),
            RQCase("ANY strings == '\(s)'", 1),
            RQCase("SOME strings == '\(s)'", 1),
            RQCase("ALL strings == '\(s)'", 2),
            RQCase("NONE strings == '\(s)'", total - 1),
            RQCase("!(ANY strings == '\(s)')", total - 1),
            RQCase("!(SOME strings == '\(s)')", total - 1),
            RQCase("!(ALL strings == '\(s)')", total - 2),
            RQCase("!(NONE strings == '\(s)')", 1),
            RQCase("ANY strings != '\(s)'", total - 2),
            RQCase("SOME strings != '\(s)'", total - 2),
            RQCase("ALL strings != '\(s)'", total - 1),
            RQCase("NONE strings != '\(s)'", 2),
            RQCase("'\(s)' IN strings", 1),
            RQCase("strings CONTAINS[c] '\(s)'", 1),
            RQCase("strings BEGINSWITH[c] '\(s)'", 1),
            RQCase("strings ENDSWITH[c] '\(s)'", 1),
            RQCase("strings LIKE[c] '\(s)'", 1),
        ]
    } + [
        RQCase("strings CONTAINS[c] 'STR'", 10),
        RQCase("strings BEGINSWITH[c] 'STR'", 10),
        RQCase("strings ENDSWITH[c] 'G_1'", 1),
        RQCase("strings LIKE[c] 'StRiNg_*'", 10),
        RQCase("ALL strings CONTAINS[c] 'STR'", 11),
        RQCase("ALL strings BEGINSWITH[c] 'STR'", 11),
        RQCase("ALL strings ENDSWITH[c] 'G_1'", 2),
        RQCase("ALL strings LIKE[c] 'StRiNg_*'", 11),
        RQCase("NONE strings CONTAINS[c] 'STR'", 3),
        RQCase("NONE strings BEGINSWITH[c] 'STR'", 3),
        RQCase("NONE strings ENDSWITH[c] 'G_1'", 12),
        RQCase("NONE strings LIKE[c] 'StRiNg_*'", 3),
        RQCase("strings.@count == 0", 1),
        RQCase("strings.@size == 0", 1),
        RQCase("strings.@count == 1", 12),
        RQCase("strings.@size == 1", 12),
        RQCase("strings.length == 0", 2),
        RQCase("strings.length == 8", 10),
    ]
    static let knownFailingCounts: [RQCase] = [
    ]
    static let rejects: [RQCase] = [
        RQCase("strings.@min == 2", nil),
        RQCase("strings.@max == 2", nil),
        RQCase("strings.@sum == 2", nil),
        RQCase("strings.@avg == 2", nil),
    ]
    static let knownFailingRejects: [RQCase] = []

    @Test(arguments: rqExcluding(counts + rejects, knownFailingCounts + knownFailingRejects)) func check(_ testCase: RQCase) {
        rqCheck("Parser_list_of_primitive_strings", RQStringsRow.self, testCase, fixture: fixture)
    }
    @Test(arguments: knownFailingCounts + knownFailingRejects) func knownFailing(_ testCase: RQCase) {
        rqCheckKnownFailing("Parser_list_of_primitive_strings", RQStringsRow.self, testCase, fixture: fixture)
    }
}

// MARK: - Parser_list_of_primitive_element_lengths

struct RealmParserCurrentElementLengthTests {
    let directory = TemporaryDirectory()

    /// {}, {nil}, {""}, {"value1"}, {"value2"}, {"value1", "value2"}; `length` 0; each row links to itself.
    func fixture(_ variant: String) throws -> Database {
        let contents: [[String?]] = [[], [nil], [""], ["value1"], ["value2"], ["value1", "value2"]]
        if variant == "Data" {
            let db = try directory.open([RQDataLengths.self])
            try db.write {
                for values in contents {
                    let row = RQDataLengths()
                    row.values.append(contentsOf: values.map { $0.map { Data($0.utf8) } })
                    try db.add(row)
                    row.link = row
                }
            }
            return db
        }
        let db = try directory.open([RQStringLengths.self])
        try db.write {
            for values in contents {
                let row = RQStringLengths()
                row.values.append(contentsOf: values)
                try db.add(row)
                row.link = row
            }
        }
        return db
    }

    // realm-core test_parser.cpp (current): TEST_TYPES(Parser_list_of_primitive_element_lengths, StringData, BinaryData)
    static let base: [RQCase] = ["", "link.", "link.link."].flatMap { path -> [RQCase] in
        var cases = [
            RQCase("\(path)values.@count == 0", 1),
            RQCase("\(path)values.@size == 0", 1),
            RQCase("\(path)values.@count == 1", 4),
            RQCase("\(path)values.@size == 1", 4),
            RQCase("\(path)values.@count == 2", 1),
            RQCase("\(path)values.@size == 2", 1),
            RQCase("\(path)length == 0", 6),
            RQCase("\(path)link == null", 0),
            RQCase("\(path)values == null", 1),
        ]
        for prefix in ["", "ANY", "SOME", "any", "some"] {
            cases += [
                RQCase("0 IN \(prefix) \(path)values.length", 2),
                RQCase("\(prefix) \(path)values.length == 0", 2),
                RQCase("\(prefix) \(path)values.length > 0", 3),
                RQCase("\(prefix) \(path)values.length == 6", 3),
                RQCase("\(prefix) \(path)values.length == length", 2),
            ]
        }
        cases += [
            RQCase("ALL \(path)values.length == 0", 3),
            RQCase("ALL \(path)values.length == length", 3),
            RQCase("ALL \(path)values.length == 6", 4),
            RQCase("NONE \(path)values.length == 0", 4),
            RQCase("NONE \(path)values.length == length", 4),
            RQCase("NONE \(path)values.length == 6", 3),
        ]
        return cases
    } + [RQCase("values.len == 2", nil)]
    static let cases: [RQCase] = base.map { $0.on("String") } + base.map { $0.on("Data") }
    static let knownFailingCases: [RQCase] = [
    ]

    func run(_ testCase: RQCase, known: Bool) {
        let upstream = "Parser_list_of_primitive_element_lengths"
        let fixture = { try self.fixture(testCase.variant) }
        switch (testCase.variant, known) {
        case ("Data", false): rqCheck(upstream, RQDataLengths.self, testCase, fixture: fixture)
        case ("Data", true): rqCheckKnownFailing(upstream, RQDataLengths.self, testCase, fixture: fixture)
        case (_, false): rqCheck(upstream, RQStringLengths.self, testCase, fixture: fixture)
        case (_, true): rqCheckKnownFailing(upstream, RQStringLengths.self, testCase, fixture: fixture)
        }
    }

    @Test(arguments: rqExcluding(cases, knownFailingCases)) func check(_ testCase: RQCase) { run(testCase, known: false) }
    @Test(arguments: knownFailingCases) func knownFailing(_ testCase: RQCase) { run(testCase, known: true) }
}

// MARK: - Parser_Set

/// Five rows, `value` 3 in each; sets {0, 1}, {2, 3, 4, 5}, {6, 7, 100, 8, 9}, {3}, {}.
private func rqSetFixture<T: RQSetModel>(_ type: T.Type, _ directory: TemporaryDirectory, _ make: (Int) -> T.V) throws -> Database {
    let db = try directory.open([T.self])
    let contents = [[0, 1], [2, 3, 4, 5], [6, 7, 100, 8, 9], [3], []]
    try db.write {
        for values in contents {
            let row = T()
            row.value = make(3)
            row.set.insert(objectsIn: values.map(make))
            try db.add(row)
        }
    }
    return db
}

private func rqSetRun(_ testCase: RQCase, in directory: TemporaryDirectory, known: Bool) {
    func run<T: RQSetModel>(_ type: T.Type, _ make: @escaping (Int) -> T.V, _ three: Any?) {
        let fixture = { try rqSetFixture(type, directory, make) }
        if known {
            rqCheckKnownFailing("Parser_Set", type, testCase, arguments: [three], fixture: fixture)
        } else {
            rqCheck("Parser_Set", type, testCase, arguments: [three], fixture: fixture)
        }
    }
    // upstream's generator makes "String i" for strings and binaries
    let string = { (i: Int) in "String \(i)" }
    let data = { (i: Int) in Data("String \(i)".utf8) }
    switch testCase.variant {
    case "Int": run(RQIntSet.self, { $0 }, 3)
    case "Int?": run(RQOptIntSet.self, { $0 }, 3)
    case "Float": run(RQFloatSet.self, { Float($0) }, Float(3))
    case "Float?": run(RQOptFloatSet.self, { Float($0) }, Float(3))
    case "Double": run(RQDoubleSet.self, { Double($0) }, Double(3))
    case "Double?": run(RQOptDoubleSet.self, { Double($0) }, Double(3))
    case "Decimal": run(RQDecimalSet.self, { Decimal($0) }, Decimal(3))
    case "Decimal?": run(RQOptDecimalSet.self, { Decimal($0) }, Decimal(3))
    case "ObjectId": run(RQObjectIdSet.self, rqObjectId, rqObjectId(3))
    case "ObjectId?": run(RQOptObjectIdSet.self, { rqObjectId($0) }, rqObjectId(3))
    case "Date": run(RQDateSet.self, rqSeconds, rqSeconds(3))
    case "Date?": run(RQOptDateSet.self, { rqSeconds($0) }, rqSeconds(3))
    case "String": run(RQStringSet.self, string, string(3))
    case "String?": run(RQOptStringSet.self, { string($0) }, string(3))
    case "Data": run(RQDataSet.self, data, data(3))
    case "Data?": run(RQOptDataSet.self, { data($0) }, data(3))
    case "UUID": run(RQUUIDSet.self, rqUUID, rqUUID(3))
    case "UUID?": run(RQOptUUIDSet.self, { rqUUID($0) }, rqUUID(3))
    default: Issue.record("no variant \(testCase.variant)")
    }
}

struct RealmParserCurrentSetTests {
    let directory = TemporaryDirectory()

    static let types = ["Int", "Float", "Double", "Decimal", "ObjectId", "Date", "String", "Data", "UUID",
                        "Int?", "Float?", "Double?", "Decimal?", "ObjectId?", "Date?", "String?", "Data?", "UUID?"]

    static func cases(_ type: String) -> [RQCase] {
        let base = type.replacingOccurrences(of: "?", with: "")
        var result = [
            RQCase("set.@count == 0", 1),
            RQCase("set.@size >= 1", 4),
            RQCase("set.@size == 4", 1),
            RQCase("set == $0", 2),
            RQCase("$0 IN set", 2),
            RQCase("ALL set == $0", 2),
            RQCase("NONE set == $0", 3),
            RQCase("set == value", 2),
            RQCase("ANY set == value", 2),
            RQCase("ALL set == value", 2),
            RQCase("NONE set == value", 3),
        ]
        if ["Int", "Float", "Double", "Decimal"].contains(base) {
            result += [
                RQCase("set == 3", 2),
                RQCase("set.@max == 100", 1),
                RQCase("set.@min == 0", 1),
                RQCase("set.@avg == 3", 1),
                RQCase("set.@avg >= 3", 3),
                RQCase("set.@sum == 1", 1),
                RQCase("set.@sum == 0", 1),
                RQCase("set.@sum > 100", 1),
                RQCase("set.@max == value", 1),
                RQCase("set.@min == value", 1),
                RQCase("set.@avg == value", 1),
                RQCase("set.@sum == value", 1),
            ]
        } else {
            result += [
                RQCase("set.@min > 100", nil),
                RQCase("set.@max > 100", nil),
                RQCase("set.@sum > 100", nil),
                RQCase("set.@avg > 100", nil),
            ]
        }
        if ["String", "Data"].contains(base) {
            result += [
                RQCase("set ==[c] $0", 2),
                RQCase("set LIKE $0", 2),
                RQCase("set BEGINSWITH $0", 2),
                RQCase("set ENDSWITH $0", 2),
                RQCase("set CONTAINS $0", 2),
                RQCase("ALL set LIKE $0", 2),
                RQCase("ALL set BEGINSWITH $0", 2),
                RQCase("ALL set ENDSWITH $0", 2),
                RQCase("ALL set CONTAINS $0", 2),
                RQCase("NONE set LIKE $0", 3),
                RQCase("NONE set BEGINSWITH $0", 3),
                RQCase("NONE set ENDSWITH $0", 3),
                RQCase("NONE set CONTAINS $0", 3),
                RQCase("set.length == 10", 1),
                RQCase("set.length == 0", 0),
                RQCase("set.length > 0", 4),
            ]
        } else {
            result += [
                RQCase("set ==[c] $0", nil),
                RQCase("set LIKE $0", nil),
                RQCase("set BEGINSWITH $0", nil),
                RQCase("set ENDSWITH $0", nil),
                RQCase("set CONTAINS $0", nil),
            ]
        }
        return result.map { $0.on(type) }
    }

    // realm-core test_parser.cpp (current): TEST_TYPES(Parser_Set, …) — counts and CHECK_THROWs
    static let cases: [RQCase] = types.flatMap(cases)
    static let knownFailingCases: [RQCase] = [
    ]

    @Test(arguments: rqExcluding(cases, knownFailingCases)) func check(_ testCase: RQCase) { rqSetRun(testCase, in: directory, known: false) }
    @Test(arguments: knownFailingCases) func knownFailing(_ testCase: RQCase) { rqSetRun(testCase, in: directory, known: true) }
}

// MARK: - Parser_SetLinks

struct RealmParserCurrentSetLinksTests {
    let directory = TemporaryDirectory()

    /// Ten targets 0…9; two holders with the sets {0…5} and {4…9}, each linked from an origin.
    func fixture() throws -> Database {
        let db = try directory.open([RQSetOrigin.self, RQSetHolder.self, RQSetTarget.self])
        try db.write {
            let targets = (0..<10).map { i in
                let target = RQSetTarget()
                target.val = i
                return target
            }
            for range in [0..<6, 4..<10] {
                let holder = RQSetHolder()
                holder.set.insert(objectsIn: range.map { targets[$0] })
                let origin = RQSetOrigin()
                origin.link = holder
                try db.add(origin)
            }
        }
        return db
    }

    // realm-core test_parser.cpp (current): TEST(Parser_SetLinks)
    static let holders: [RQCase] = [RQCase("set.@count == 6", 2)]
    static let origins: [RQCase] = [RQCase("link.set.val == 3", 1), RQCase("link.set.val == 5", 2)]
    static let knownFailingHolders: [RQCase] = []
    static let knownFailingOrigins: [RQCase] = []

    @Test(arguments: rqExcluding(holders, knownFailingHolders)) func holder(_ c: RQCase) { rqCheck("Parser_SetLinks", RQSetHolder.self, c, fixture: fixture) }
    @Test(arguments: rqExcluding(origins, knownFailingOrigins)) func origin(_ c: RQCase) { rqCheck("Parser_SetLinks", RQSetOrigin.self, c, fixture: fixture) }
    @Test(arguments: knownFailingHolders) func knownFailingHolder(_ c: RQCase) {
        rqCheckKnownFailing("Parser_SetLinks", RQSetHolder.self, c, fixture: fixture)
    }
    @Test(arguments: knownFailingOrigins) func knownFailingOrigin(_ c: RQCase) {
        rqCheckKnownFailing("Parser_SetLinks", RQSetOrigin.self, c, fixture: fixture)
    }
}

// MARK: - Parser_Dictionary

struct RealmParserCurrentDictionaryTests {
    let directory = TemporaryDirectory()

    /// The dictionaries of upstream's 100 objects (each holds only integers), and ten origins
    /// linking to the i·10-th object and listing the ten from it. `extra` adds "some extra": 42 to
    /// the first dictionary, as upstream does before its last integer query.
    func fixture(extra: Bool = false) throws -> Database {
        let db = try directory.open([RQDictRow.self, RQDictOrigin.self])
        try db.write {
            var rows: [RQDictRow] = []
            for i in 0..<100 {
                let row = RQDictRow()
                if i % 4 == 0 {
                    _ = row.dict.updateValue(i, forKey: "Value")
                } else if i % 10 == 0 {
                    _ = row.dict.updateValue(100, forKey: "Value")
                }
                if i % 3 != 0 { _ = row.dict.updateValue(3, forKey: "Value") }
                if i % 5 == 0 { _ = row.dict.updateValue(5, forKey: "Foo") }
                _ = row.dict.updateValue(i, forKey: "Bar")
                if extra && i == 0 { _ = row.dict.updateValue(42, forKey: "some extra") }
                try db.add(row)
                rows.append(row)
            }
            for i in 0..<10 {
                let origin = RQDictOrigin()
                origin.link = rows[i * 10]
                origin.links.append(contentsOf: rows[(i * 10)..<(i * 10 + 10)])
                try db.add(origin)
            }
        }
        return db
    }

    /// Upstream's `expected`: objects whose "Value" is over 50.
    static let valueOver50: Int = (0..<100).filter { i in
        if i % 3 != 0 { return false }
        if i % 4 == 0 { return i > 50 }
        return i % 10 == 0
    }.count

    // realm-core test_parser.cpp (current): TEST(Parser_Dictionary) — the integer part
    static let rows: [RQCase] = [
        RQCase("dict.@values > 50", 50),
        RQCase("dict['Value'] > 50", valueOver50),
        RQCase("dict[$0] > 50", valueOver50),
        RQCase("ANY dict.@keys == 'Foo'", 20),
        RQCase("NONE dict.@keys == 'Value'", 23),
        RQCase("dict.@size == 3", 17),
        RQCase("dict.@max == 100", 2),
        RQCase("dict.@min < 2", 2),
        RQCase("dict.@sum >= 100", 9),
        RQCase("dict.@avg < 10", 16),
    ]
    static let knownFailingRows: [RQCase] = [
    ]
    static let origins: [RQCase] = [
        RQCase("link.dict['Value'] > 50", 3),
        RQCase("links.dict['Value'] > 50", 5),
        RQCase("links.dict > 50", 6),
        RQCase("links.dict['Value'] == NULL", 10),
        RQCase("links.dict.@max == 100", 2),
        RQCase("link.dict.@max == 100", 2),
        RQCase("link.dict.Value > 50", nil),
    ]
    static let knownFailingOrigins: [RQCase] = [
    ]
    static let extra: [RQCase] = [RQCase("dict['some extra'] == 42", 1)]
    static let knownFailingExtra: [RQCase] = [
    ]

    @Test(arguments: rqExcluding(rows, knownFailingRows)) func row(_ c: RQCase) {
        rqCheck("Parser_Dictionary", RQDictRow.self, c, arguments: ["Value"]) { try fixture() }
    }
    @Test(arguments: knownFailingRows) func knownFailingRow(_ c: RQCase) {
        rqCheckKnownFailing("Parser_Dictionary", RQDictRow.self, c, arguments: ["Value"]) { try fixture() }
    }
    @Test(arguments: rqExcluding(origins, knownFailingOrigins)) func origin(_ c: RQCase) {
        rqCheck("Parser_Dictionary", RQDictOrigin.self, c) { try fixture() }
    }
    @Test(arguments: knownFailingOrigins) func knownFailingOrigin(_ c: RQCase) {
        rqCheckKnownFailing("Parser_Dictionary", RQDictOrigin.self, c) { try fixture() }
    }
    @Test(arguments: rqExcluding(extra, knownFailingExtra)) func extraKey(_ c: RQCase) {
        rqCheck("Parser_Dictionary", RQDictRow.self, c) { try fixture(extra: true) }
    }
    @Test(arguments: knownFailingExtra) func knownFailingExtraKey(_ c: RQCase) {
        rqCheckKnownFailing("Parser_Dictionary", RQDictRow.self, c) { try fixture(extra: true) }
    }
}

// MARK: - Parser_DictionaryObjects

struct RealmParserCurrentDictionaryObjectsTests {
    let directory = TemporaryDirectory()

    func fixture() throws -> Database {
        let db = try directory.open([RQPetOwner.self, RQDog.self])
        try db.write {
            let dogs = [("astro", 4), ("pluto", 5), ("lady", 5), ("snoopy", 3)].map { name, age in
                let dog = RQDog()
                dog.name = name
                dog.age = age
                return dog
            }
            let adam = RQPetOwner()
            adam.name = "adam"
            _ = adam.pets.updateValue(dogs[1], forKey: "dog1")
            _ = adam.pets.updateValue(dogs[2], forKey: "dog2")
            _ = adam.pets.updateValue(nil, forKey: "none")
            let bernie = RQPetOwner()
            bernie.name = "bernie"
            _ = bernie.pets.updateValue(dogs[0], forKey: "dog1")
            _ = bernie.pets.updateValue(dogs[3], forKey: "dog2")
            adam.friend = bernie
            bernie.friend = adam
            try db.add(adam)
        }
        return db
    }

    // realm-core test_parser.cpp (current): TEST(Parser_DictionaryObjects)
    static let cases: [RQCase] = [RQCase("pets.@values.age > 4", 1)]
    static let knownFailingCases: [RQCase] = [
    ]

    @Test(arguments: rqExcluding(cases, knownFailingCases)) func check(_ c: RQCase) {
        rqCheck("Parser_DictionaryObjects", RQPetOwner.self, c, fixture: fixture)
    }
    @Test(arguments: knownFailingCases) func knownFailing(_ c: RQCase) {
        rqCheckKnownFailing("Parser_DictionaryObjects", RQPetOwner.self, c, fixture: fixture)
    }
}

// MARK: - Parser_DictionaryAggregates

struct RealmParserCurrentDictionaryAggregateTests {
    let directory = TemporaryDirectory()

    /// One dictionary {"1": 5.55444333, "2": 6.55444333, "3": 7.55444333} and one empty; links to
    /// each and a nil link. Returns the database and the arguments: min, max, sum, avg of the values.
    func run(_ c: RQCase, known: Bool) {
        let upstream = "Parser_DictionaryAggregates"
        func go<T: Object, L: Object>(_ type: T.Type, _ linkType: L.Type, _ arguments: [Any?], _ fixture: @escaping () throws -> Database) {
            let onLinks = c.query.hasPrefix("link.")
            switch (onLinks, known) {
            case (true, false): rqCheck(upstream, linkType, c, arguments: arguments, fixture: fixture)
            case (true, true): rqCheckKnownFailing(upstream, linkType, c, arguments: arguments, fixture: fixture)
            case (false, false): rqCheck(upstream, type, c, arguments: arguments, fixture: fixture)
            case (false, true): rqCheckKnownFailing(upstream, type, c, arguments: arguments, fixture: fixture)
            }
        }
        switch c.variant {
        case "Float":
            let v: [Float] = [5.55444333, 6.55444333, 7.55444333]
            let sum = v[0] + v[1] + v[2]
            go(RQFloatDict.self, RQFloatDictLink.self, [v[0], v[2], sum, sum / 3, nil, Float(0)]) {
                let db = try directory.open([RQFloatDict.self, RQFloatDictLink.self])
                try db.write {
                    let full = RQFloatDict()
                    for (i, x) in v.enumerated() { _ = full.dict.updateValue(x, forKey: String(i + 1)) }
                    for target in [full, RQFloatDict()] {
                        let link = RQFloatDictLink()
                        link.link = target
                        try db.add(link)
                    }
                    try db.add(RQFloatDictLink())
                }
                return db
            }
        case "Double":
            let v: [Double] = [5.55444333, 6.55444333, 7.55444333]
            let sum = v[0] + v[1] + v[2]
            go(RQDoubleDict.self, RQDoubleDictLink.self, [v[0], v[2], sum, sum / 3, nil, Double(0)]) {
                let db = try directory.open([RQDoubleDict.self, RQDoubleDictLink.self])
                try db.write {
                    let full = RQDoubleDict()
                    for (i, x) in v.enumerated() { _ = full.dict.updateValue(x, forKey: String(i + 1)) }
                    for target in [full, RQDoubleDict()] {
                        let link = RQDoubleDictLink()
                        link.link = target
                        try db.add(link)
                    }
                    try db.add(RQDoubleDictLink())
                }
                return db
            }
        default:
            let v: [Decimal] = [Decimal(string: "5.55444333"), Decimal(string: "6.55444333"), Decimal(string: "7.55444333")]
                .map { $0 ?? 0 }
            let sum = v[0] + v[1] + v[2]
            go(RQDecimalDict.self, RQDecimalDictLink.self, [v[0], v[2], sum, sum / 3, nil, Decimal(0)]) {
                let db = try directory.open([RQDecimalDict.self, RQDecimalDictLink.self])
                try db.write {
                    let full = RQDecimalDict()
                    for (i, x) in v.enumerated() { _ = full.dict.updateValue(x, forKey: String(i + 1)) }
                    for target in [full, RQDecimalDict()] {
                        let link = RQDecimalDictLink()
                        link.link = target
                        try db.add(link)
                    }
                    try db.add(RQDecimalDictLink())
                }
                return db
            }
        }
    }

    // realm-core test_parser.cpp (current): TEST_TYPES(Parser_DictionaryAggregates, Prop<float>, Prop<double>, Prop<Decimal128>)
    // $0 min, $1 max, $2 sum, $3 average of the three values, $4 nil, $5 zero.
    static let base: [RQCase] = [
        RQCase("dict.@min == $0", 1), RQCase("link.dict.@min == $0", 1),
        RQCase("dict.@max == $1", 1), RQCase("link.dict.@max == $1", 1),
        RQCase("dict.@sum == $2", 1), RQCase("link.dict.@sum == $2", 1),
        RQCase("dict.@avg == $3", 1), RQCase("link.dict.@avg == $3", 1),
        RQCase("dict.@min == $4", 1), RQCase("link.dict.@min == $4", 2),
        RQCase("dict.@max == $4", 1), RQCase("link.dict.@max == $4", 2),
        RQCase("dict.@sum == $4", 0), RQCase("link.dict.@sum == $4", 0),
        RQCase("dict.@avg == $4", 1), RQCase("link.dict.@avg == $4", 2),
        RQCase("dict.@sum == $5", 1), RQCase("link.dict.@sum == $5", 2),
    ]
    static let cases: [RQCase] = ["Float", "Double", "Decimal"].flatMap { t in base.map { $0.on(t) } }
    static let knownFailingCases: [RQCase] = []

    @Test(arguments: rqExcluding(cases, knownFailingCases)) func check(_ c: RQCase) { run(c, known: false) }
    @Test(arguments: knownFailingCases) func knownFailing(_ c: RQCase) { run(c, known: true) }
}

// MARK: - Parser_BacklinksIndex

struct RealmParserCurrentBacklinksIndexTests {
    let directory = TemporaryDirectory()

    /// Items 5, 2, 12, 14, 20; Paul (48) owns [5, 2] and wishes {12, 14}; Peter (25) owns [5, 20]
    /// and borrowed {Mary: 14, Paul: nil}.
    func fixture() throws -> Database {
        let db = try directory.open([RQIndexPerson.self, RQIndexItem.self])
        try db.write {
            let items = [5, 2, 12, 14, 20].map { id in
                let item = RQIndexItem()
                item.item_id = id
                return item
            }
            for item in items { try db.add(item) }
            let paul = RQIndexPerson()
            paul.age = 48
            paul.owns.append(contentsOf: [items[0], items[1]])
            paul.wish.insert(objectsIn: [items[2], items[3]])
            let peter = RQIndexPerson()
            peter.age = 25
            peter.owns.append(contentsOf: [items[0], items[4]])
            _ = peter.borrowed.updateValue(items[3], forKey: "Mary")
            _ = peter.borrowed.updateValue(nil, forKey: "Paul")
            try db.add(paul)
            try db.add(peter)
        }
        return db
    }

    // realm-core test_parser.cpp (current): TEST(Parser_BacklinksIndex)
    static let cases: [RQCase] = [
        RQCase("@links.RQIndexPerson.owns.age == 48", 2),
        RQCase("@links.RQIndexPerson.wish.age == 48", 2),
        RQCase("@links.RQIndexPerson.borrowed.age == 25", 1),
    ]
    static let knownFailingCases: [RQCase] = [
    ]

    @Test(arguments: rqExcluding(cases, knownFailingCases)) func check(_ c: RQCase) {
        rqCheck("Parser_BacklinksIndex", RQIndexItem.self, c, fixture: fixture)
    }
    @Test(arguments: knownFailingCases) func knownFailing(_ c: RQCase) {
        rqCheckKnownFailing("Parser_BacklinksIndex", RQIndexItem.self, c, fixture: fixture)
    }
}
