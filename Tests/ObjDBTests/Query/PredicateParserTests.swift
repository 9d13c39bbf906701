import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Parses `text` with the given arguments.
private func parse(_ text: String, _ arguments: Any?...) throws -> QueryPredicate {
    try PredicateParser.parse(text, arguments: arguments)
}

/// A key path from dotted names (`""` for none), optionally starting at a subquery variable.
private func path(_ text: String, variable: String? = nil) -> QueryKeyPath {
    QueryKeyPath(components: text.split(separator: ".").map(String.init), variable: variable)
}

/// A key path expression.
private func key(_ text: String, variable: String? = nil) -> QueryExpression {
    .keyPath(path(text, variable: variable))
}

/// A constant expression.
private func value(_ value: QueryValue) -> QueryExpression { .value(value) }

/// A comparison predicate.
private func compare(
    _ left: QueryExpression, _ op: QueryOperator, _ right: QueryExpression, options: QueryStringOptions = [],
    quantifier: QueryQuantifier = .any, at position: Int = 0
) -> QueryPredicate {
    .comparison(QueryComparison(left: left, op: op, right: right, options: options, quantifier: quantifier, position: position))
}

/// The character offset of the first `needle` in `text`.
private func offset(of needle: String, in text: String) -> Int {
    guard let range = text.range(of: needle) else { return -1 }
    return text.distance(from: text.startIndex, to: range.lowerBound)
}

/// The message of the `invalidQuery` error parsing fails with, or a description of what happened instead.
private func failure(_ text: String, _ arguments: [Any?] = []) -> String {
    do {
        return "parsed: \(try PredicateParser.parse(text, arguments: arguments))"
    } catch let error as ObjDBError {
        return error.code == .invalidQuery ? error.message : "wrong code: \(error)"
    } catch {
        return "unexpected error: \(error)"
    }
}

/// The single comparison of a predicate.
private func comparison(_ predicate: QueryPredicate) throws -> QueryComparison {
    guard case .comparison(let comparison) = predicate else {
        Issue.record("not a comparison: \(predicate)")
        throw ObjDBError(.invalidQuery, "not a comparison")
    }
    return comparison
}

/// An argument type no conversion covers.
private struct Unsupported {}

/// A `RawRepresentable` that isn't an enum.
private struct Code: RawRepresentable {
    var rawValue: Int
}

struct PredicateParserTests {
    // MARK: Logic

    @Test func logicalOperatorsAndPrecedence() throws {
        let text = "a == 1 OR b == 2 AND NOT c == 3"
        #expect(try parse(text) == .or([
            compare(key("a"), .equal, value(.int(1)), at: 0),
            .and([
                compare(key("b"), .equal, value(.int(2)), at: 10),
                .not(compare(key("c"), .equal, value(.int(3)), at: 25)),
            ]),
        ]))
        let symbols = "a == 1 || b == 2 && !c == 3"
        #expect(try parse(symbols) == .or([
            compare(key("a"), .equal, value(.int(1)), at: 0),
            .and([
                compare(key("b"), .equal, value(.int(2)), at: 10),
                .not(compare(key("c"), .equal, value(.int(3)), at: 21)),
            ]),
        ]))
        #expect(try parse("a == 1 or b == 2 And not c == 3") == parse(text))
    }

    @Test func chainsFlattenAndParenthesesGroup() throws {
        #expect(try parse("a == 1 AND b == 2 AND c == 3") == .and([
            compare(key("a"), .equal, value(.int(1)), at: 0),
            compare(key("b"), .equal, value(.int(2)), at: 11),
            compare(key("c"), .equal, value(.int(3)), at: 22),
        ]))
        #expect(try parse("(a == 1 OR b == 2) AND c == 3") == .and([
            .or([compare(key("a"), .equal, value(.int(1)), at: 1), compare(key("b"), .equal, value(.int(2)), at: 11)]),
            compare(key("c"), .equal, value(.int(3)), at: 23),
        ]))
        #expect(try parse("((a == 1))") == compare(key("a"), .equal, value(.int(1)), at: 2))
        #expect(try parse("NOT NOT a == 1") == .not(.not(compare(key("a"), .equal, value(.int(1)), at: 8))))
        #expect(try parse("!!a == 1") == .not(.not(compare(key("a"), .equal, value(.int(1)), at: 2))))
        #expect(try parse("!(a == 1)") == .not(compare(key("a"), .equal, value(.int(1)), at: 2)))
    }

    @Test func nestingIsLimited() throws {
        let deep = String(repeating: "(", count: 100) + "a == 1" + String(repeating: ")", count: 100)
        #expect(try parse(deep) == compare(key("a"), .equal, value(.int(1)), at: 100))
        #expect(try parse(String(repeating: "NOT ", count: 99) + "(a == 1)") != .constant(true))
        #expect(failure("(" + deep + ")").hasPrefix(
            "Invalid predicate at position 100: parentheses, NOT and SUBQUERY nest more than 100 levels deep in \"…"))
        #expect(failure(String(repeating: "!", count: 100_000) + "a == 1").contains("at position 100: parentheses, NOT and SUBQUERY nest"))
        // Each level has its own variable: reusing an enclosing one is an error of its own.
        let subqueries = (0..<101).map { "SUBQUERY(a, $x\($0), " }.joined() + "TRUEPREDICATE" + String(repeating: ").@count > 0", count: 101)
        #expect(failure(subqueries).contains("nest more than 100 levels deep"))
    }

    @Test func constants() throws {
        #expect(try parse("TRUEPREDICATE") == .constant(true))
        #expect(try parse("falsepredicate") == .constant(false))
        #expect(try parse("NOT FALSEPREDICATE OR TruePredicate") == .or([.not(.constant(false)), .constant(true)]))
    }

    // MARK: Operators

    @Test(arguments: [
        ("==", QueryOperator.equal), ("=", .equal), ("!=", .notEqual), ("<>", .notEqual), ("<", .less),
        ("<=", .lessOrEqual), ("=<", .lessOrEqual), (">", .greater), (">=", .greaterOrEqual), ("=>", .greaterOrEqual),
        ("CONTAINS", .contains), ("contains", .contains), ("BEGINSWITH", .beginsWith), ("beginsWith", .beginsWith),
        ("ENDSWITH", .endsWith), ("LIKE", .like), ("like", .like),
    ])
    func comparisonOperators(_ written: String, _ op: QueryOperator) throws {
        #expect(try parse("name \(written) 'x'") == compare(key("name"), op, value(.string("x"))))
    }

    @Test func operatorsNeedNoSpaces() throws {
        #expect(try parse("age>=-3") == compare(key("age"), .greaterOrEqual, value(.int(-3))))
        #expect(try parse("age<>3&&b=1") == .and([
            compare(key("age"), .notEqual, value(.int(3))), compare(key("b"), .equal, value(.int(1)), at: 8),
        ]))
    }

    @Test func stringOptions() throws {
        let both: QueryStringOptions = [.caseInsensitive, .diacriticInsensitive]
        #expect(try parse("name ==[c] 'a'") == compare(key("name"), .equal, value(.string("a")), options: .caseInsensitive))
        #expect(try parse("name !=[d] 'a'") == compare(key("name"), .notEqual, value(.string("a")), options: .diacriticInsensitive))
        #expect(try parse("name CONTAINS[cd] 'a'") == compare(key("name"), .contains, value(.string("a")), options: both))
        #expect(try parse("name BEGINSWITH[dc] 'a'") == compare(key("name"), .beginsWith, value(.string("a")), options: both))
        #expect(try parse("name ENDSWITH[C] 'a'") == compare(key("name"), .endsWith, value(.string("a")), options: .caseInsensitive))
        #expect(try parse("name LIKE [c] 'a*'") == compare(key("name"), .like, value(.string("a*")), options: .caseInsensitive))
        #expect(try parse("name IN[c] {'a', 'b'}")
            == compare(key("name"), .in, .list([.string("a"), .string("b")]), options: .caseInsensitive))
    }

    @Test func quantifiers() throws {
        #expect(try parse("ANY dogs.name == 'Rex'") == compare(key("dogs.name"), .equal, value(.string("Rex")), quantifier: .any))
        #expect(try parse("some dogs.age > 3") == compare(key("dogs.age"), .greater, value(.int(3)), quantifier: .any))
        #expect(try parse("ALL dogs.age > 3") == compare(key("dogs.age"), .greater, value(.int(3)), quantifier: .all))
        #expect(try parse("NONE dogs.name BEGINSWITH[c] 'r'")
            == compare(key("dogs.name"), .beginsWith, value(.string("r")), options: .caseInsensitive, quantifier: .none))
        let inner = try comparison(try parse("x == 1 AND NONE tags == 'a'").andOperand(1))
        #expect(inner.position == 11)
        #expect(inner.quantifier == .none)
    }

    @Test func between() throws {
        #expect(try parse("age BETWEEN {1, 5}") == compare(key("age"), .between, .list([.int(1), .int(5)])))
        #expect(try parse("age between %@", [18, 65]) == compare(key("age"), .between, .list([.int(18), .int(65)])))
        #expect(try parse("age BETWEEN $0", [1.5, 2] as [Any]) == compare(key("age"), .between, .list([.double(1.5), .int(2)])))
        let low = Date(timeIntervalSince1970: 0)
        let high = Date(timeIntervalSince1970: 86_400)
        #expect(try parse("created BETWEEN {%@, %@}", low, high) == compare(key("created"), .between, .list([.date(low), .date(high)])))
    }

    @Test func inWithLists() throws {
        #expect(try parse("age IN {1, 2, 3}") == compare(key("age"), .in, .list([.int(1), .int(2), .int(3)])))
        #expect(try parse("age IN {}") == compare(key("age"), .in, .list([])))
        #expect(try parse("name IN %@", ["a", "b"]) == compare(key("name"), .in, .list([.string("a"), .string("b")])))
        #expect(try parse("name in $0", Set(["a"])) == compare(key("name"), .in, .list([.string("a")])))
        #expect(try parse("age IN %@", 1...3) == compare(key("age"), .in, .list([.int(1), .int(2), .int(3)])))
        #expect(try parse("age IN {nil, 1}") == compare(key("age"), .in, .list([.null, .int(1)])))
        #expect(try parse("ANY dogs.age IN {1}") == compare(key("dogs.age"), .in, .list([.int(1)])))
    }

    /// `value IN keyPath` keeps IN with the key path on the left; binding checks that the key path
    /// reaches several values and compares with ANY == (QueryDifferentialTests).
    @Test func valueInKeyPathPutsTheKeyPathLeft() throws {
        #expect(try parse("'a' IN tags") == compare(key("tags"), .in, value(.string("a")), quantifier: .any))
        #expect(try parse("x == 1 OR %@ IN[c] owner.tags", "b") == .or([
            compare(key("x"), .equal, value(.int(1))),
            compare(key("owner.tags"), .in, value(.string("b")), options: .caseInsensitive, at: 10),
        ]))
        #expect(try parse("5 IN scores") == compare(key("scores"), .in, value(.int(5))))
    }

    /// A list on the left with ANY, ALL or NONE before it or before the key path: the key path
    /// goes on the left, the operator is mirrored (IN stays IN), and the list's quantifier is
    /// marked as the outer one (ANY where not written).
    @Test func listOnTheLeftPutsTheKeyPathLeft() throws {
        let prices = QueryExpression.list([.double(5.5), .double(4.0)])
        let anyAll = try comparison(try parse("ANY {5.5, 4.0} IN ALL items.price"))
        #expect(anyAll.left == key("items.price") && anyAll.op == .in && anyAll.right == prices)
        #expect(anyAll.listQuantifier == .any && anyAll.quantifier == .all && anyAll.listFirst)
        let lessOrEqual = try comparison(try parse("ALL {6.0, 6.1} <= ALL items.price"))
        #expect(lessOrEqual.op == .greaterOrEqual && lessOrEqual.listQuantifier == .all && lessOrEqual.quantifier == .all)
        let unwritten = try comparison(try parse("{'a'} IN NONE tags"))
        #expect(unwritten.listQuantifier == .any && unwritten.quantifier == .none && unwritten.listFirst)
        let argument = try comparison(try parse("NONE %@ < %K", [1, 2], "dogs.age"))
        #expect(argument.left == key("dogs.age") && argument.op == .greater && argument.right == .list([.int(1), .int(2)]))
        #expect(argument.listQuantifier == .none && argument.quantifier == .any && argument.listFirst)
        #expect(try comparison(try parse("age > 3")).stringSyntax)
    }

    // MARK: Key paths and aggregates

    @Test func keyPaths() throws {
        #expect(try parse("owner.address.city == 'Oslo'") == compare(key("owner.address.city"), .equal, value(.string("Oslo"))))
        #expect(try parse("_private1 == 1") == compare(key("_private1"), .equal, value(.int(1))))
        #expect(try parse("größe == 1") == compare(key("größe"), .equal, value(.int(1))))
        #expect(try parse("名前 == 'x'") == compare(key("名前"), .equal, value(.string("x"))))
        #expect(try parse("a == b") == compare(key("a"), .equal, key("b")))
        #expect(try parse("3 < age") == compare(value(.int(3)), .less, key("age")))
    }

    @Test func keyPathArguments() throws {
        #expect(try parse("%K == %@", "owner.name", "Ann") == compare(key("owner.name"), .equal, value(.string("Ann"))))
        #expect(try parse("%K == 1", "in") == compare(key("in"), .equal, value(.int(1))))
        #expect(try parse("%K.@count > 1", "dogs") == compare(.aggregate(path("dogs"), .count, property: nil), .greater, value(.int(1))))
        #expect(try parse("%K.name == 'x'", Substring("owner")) == compare(key("owner.name"), .equal, value(.string("x"))))
    }

    @Test func aggregates() throws {
        #expect(try parse("dogs.@count > 2") == compare(.aggregate(path("dogs"), .count, property: nil), .greater, value(.int(2))))
        #expect(try parse("dogs.@size > 2") == compare(.aggregate(path("dogs"), .count, property: nil), .greater, value(.int(2))))
        #expect(try parse("owner.dogs.@COUNT == 0")
            == compare(.aggregate(path("owner.dogs"), .count, property: nil), .equal, value(.int(0))))
        #expect(try parse("dogs.@sum.age > 10") == compare(.aggregate(path("dogs"), .sum, property: "age"), .greater, value(.int(10))))
        #expect(try parse("dogs.@avg.weight < 2.5")
            == compare(.aggregate(path("dogs"), .average, property: "weight"), .less, value(.double(2.5))))
        #expect(try parse("dogs.@min.age >= 1") == compare(.aggregate(path("dogs"), .min, property: "age"), .greaterOrEqual, value(.int(1))))
        #expect(try parse("tags.@max == 'z'") == compare(.aggregate(path("tags"), .max, property: nil), .equal, value(.string("z"))))
        #expect(try parse("scores.@min < scores.@max")
            == compare(.aggregate(path("scores"), .min, property: nil), .less, .aggregate(path("scores"), .max, property: nil)))
    }

    @Test func subqueries() throws {
        let text = "SUBQUERY(dogs, $d, $d.age > 3 AND $d.name BEGINSWITH 'R').@count > 1"
        let inner: QueryPredicate = .and([
            compare(key("age", variable: "d"), .greater, value(.int(3)), at: 19),
            compare(key("name", variable: "d"), .beginsWith, value(.string("R")), at: 34),
        ])
        #expect(try parse(text)
            == compare(.subqueryCount(collection: path("dogs"), variable: "d", predicate: inner), .greater, value(.int(1))))
        #expect(try parse("subquery(tags, $t, $t == 'a').@size == 0")
            == compare(
                .subqueryCount(collection: path("tags"), variable: "t", predicate: compare(key("", variable: "t"), .equal, value(.string("a")), at: 19)),
                .equal, value(.int(0))))
    }

    @Test func nestedSubqueriesSeeOuterVariables() throws {
        let text = "SUBQUERY(owners, $o, SUBQUERY($o.dogs, $d, $d.age > $o.age).@count > 0).@count == 1"
        let innermost = compare(key("age", variable: "d"), .greater, key("age", variable: "o"), at: 43)
        let middle = compare(
            .subqueryCount(collection: path("dogs", variable: "o"), variable: "d", predicate: innermost), .greater, value(.int(0)), at: 21)
        #expect(try parse(text)
            == compare(.subqueryCount(collection: path("owners"), variable: "o", predicate: middle), .equal, value(.int(1))))
    }

    @Test func positions() throws {
        let text = "name == 'x' AND (ANY dogs.age > 3 OR owner.dogs.@count == %@)"
        let predicate = try parse(text, 2)
        guard case .and(let operands) = predicate, operands.count == 2, case .or(let alternatives) = operands[1],
            alternatives.count == 2
        else {
            Issue.record("unexpected shape: \(predicate)")
            return
        }
        let first = try comparison(operands[0])
        let any = try comparison(alternatives[0])
        let count = try comparison(alternatives[1])
        #expect(first.position == 0)
        #expect(any.position == offset(of: "ANY", in: text))
        #expect(count.position == offset(of: "owner", in: text))
        guard case .keyPath(let dogs) = any.left, case .aggregate(let owner, _, _) = count.left else {
            Issue.record("unexpected operands")
            return
        }
        #expect(dogs.position == offset(of: "dogs", in: text))
        #expect(owner.position == offset(of: "owner", in: text))
        let sub = try comparison(try parse("x == 1 OR SUBQUERY(dogs, $d, $d.age > 3).@count > 0").orOperand(1))
        guard case .subqueryCount(let collection, _, let inner) = sub.left, case .comparison(let age) = inner,
            case .keyPath(let variablePath) = age.left
        else {
            Issue.record("unexpected subquery")
            return
        }
        #expect(sub.position == 10)
        #expect(collection.position == 19)
        #expect(age.position == 29)
        #expect(variablePath.position == 29)
        #expect(try comparison(try parse("%K == 1", "a.b")).left == key("a.b"))
        guard case .keyPath(let substituted) = try comparison(try parse("  %K == 1", "a")).left else { return }
        #expect(substituted.position == 2)
        // Positions count characters, not bytes or UTF-16 units.
        #expect(try comparison(try parse("naïve == '😀' OR b == 1").orOperand(1)).position == 16)
    }

    // MARK: Literals

    @Test func integers() throws {
        let cases: [(String, Int64)] = [
            ("0", 0), ("42", 42), ("-7", -7), ("0x1F", 31), ("0XfF", 255), ("-0x10", -16),
            ("9223372036854775807", .max), ("-9223372036854775808", .min),
            ("0x7FFFFFFFFFFFFFFF", .max), ("-0x8000000000000000", .min), ("007", 7),
        ]
        for (text, expected) in cases {
            #expect(try parse("n == \(text)") == compare(key("n"), .equal, value(.int(expected))), "\(text)")
        }
    }

    @Test func floatingPointNumbers() throws {
        let cases: [(String, Double)] = [("1.5", 1.5), ("-2.25", -2.25), ("1e3", 1000), ("2.5E-2", 0.025), ("-1e+2", -100), ("0.0", 0)]
        for (text, expected) in cases {
            #expect(try parse("n == \(text)") == compare(key("n"), .equal, value(.double(expected))), "\(text)")
        }
    }

    @Test func strings() throws {
        let cases: [(String, String)] = [
            (#"'single'"#, "single"), (#""double""#, "double"), (#"''"#, ""),
            (#"'it\'s'"#, "it's"), (#""say \"hi\"""#, #"say "hi""#), (#"'a\\b'"#, #"a\b"#),
            (#"'1\n2\t3\r4\05'"#, "1\n2\t3\r4\u{0}5"), (#"'\u00e9t\u00C9'"#, "étÉ"), (#"'\uD83D\uDE00'"#, "😀"),
            (#""it's""#, "it's"), (#"'say "hi"'"#, #"say "hi""#), ("'AND OR ) ('", "AND OR ) ("), ("'日本'", "日本"),
        ]
        for (literal, expected) in cases {
            #expect(try parse("s == \(literal)") == compare(key("s"), .equal, value(.string(expected))), "\(literal)")
        }
    }

    @Test func booleansAndNull() throws {
        for (literal, expected) in [("true", true), ("TRUE", true), ("YES", true), ("yes", true), ("false", false), ("False", false), ("NO", false)] {
            #expect(try parse("b == \(literal)") == compare(key("b"), .equal, value(.bool(expected))), "\(literal)")
        }
        #expect(try parse("b == nil") == compare(key("b"), .equal, value(.null)))
        #expect(try parse("b != NULL") == compare(key("b"), .notEqual, value(.null)))
    }

    @Test func dates() throws {
        let tenOClock = Date(timeIntervalSince1970: 1_704_189_600)  // 2024-01-02 10:00:00 UTC
        let cases: [(String, Date)] = [
            ("T2024-01-02@10:00:00", tenOClock),
            ("2024-01-02@10:00:00", tenOClock),
            ("2024-1-2T10:0:0", tenOClock),
            ("T2024-01-02@10:00:00:500000000", Date(timeIntervalSince1970: 1_704_189_600.5)),
            ("T2024-02-29@23:59:59", Date(timeIntervalSince1970: 1_709_251_199)),
            ("T1969-12-31@23:59:59", Date(timeIntervalSince1970: -1)),
            ("T1712345678:123", Date(timeIntervalSince1970: 1_712_345_678 + 123e-9)),
            ("T0:0", Date(timeIntervalSince1970: 0)),
            ("T-5:-500000000", Date(timeIntervalSince1970: -5.5)),
        ]
        for (literal, expected) in cases {
            #expect(try parse("d > \(literal)") == compare(key("d"), .greater, value(.date(expected))), "\(literal)")
        }
        #expect(try parse("d BETWEEN {T2024-01-02@10:00:00, T1712345678:0}")
            == compare(key("d"), .between, .list([.date(tenOClock), .date(Date(timeIntervalSince1970: 1_712_345_678))])))
    }

    @Test func uuidObjectIdAndData() throws {
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(try parse("u == uuid(E621E1F8-C36C-495A-93FC-0C247A3E6E5F)") == compare(key("u"), .equal, value(.uuid(uuid))))
        #expect(try parse("u == UUID(e621e1f8-c36c-495a-93fc-0c247a3e6e5f)") == compare(key("u"), .equal, value(.uuid(uuid))))
        let id = try #require(ObjectId(string: "65a1f0c2b3e4d5f6a7b8c9d0"))
        #expect(try parse("o == oid(65A1F0C2B3E4D5F6A7B8C9D0)") == compare(key("o"), .equal, value(.objectId(id))))
        #expect(try parse("b == B64\"aGVsbG8=\"") == compare(key("b"), .equal, value(.data(Data("hello".utf8)))))
        #expect(try parse("b == b64'' OR uuid == 1") == .or([
            compare(key("b"), .equal, value(.data(Data()))), compare(key("uuid"), .equal, value(.int(1)), at: 14),
        ]))
    }

    // MARK: Arguments

    @Test func argumentConversions() throws {
        let date = Date(timeIntervalSince1970: 1234)
        let uuid = UUID()
        let id = ObjectId.generate()
        let cases: [(Any?, QueryValue)] = [
            (nil, .null), (NSNull(), .null), (Optional<Int>.none as Any, .null), (Optional(Optional<Int>.none) as Any, .null),
            (Optional(5) as Any, .int(5)), (Optional(Optional("x")) as Any, .string("x")),
            (true, .bool(true)), (false, .bool(false)), (7, .int(7)), (Int8(-3), .int(-3)), (UInt32.max, .int(4_294_967_295)),
            (UInt64(12), .int(12)), (Int64.min, .int(.min)), (2.5, .double(2.5)), (Float(0.5), .double(0.5)),
            ("s", .string("s")), (Substring("sub"), .string("sub")), (Data([1, 2]), .data(Data([1, 2]))),
            (date, .date(date)), (uuid, .uuid(uuid)), (id, .objectId(id)), (Decimal(string: "1.25") ?? 0, .decimal(Decimal(string: "1.25") ?? 0)),
            (Kind.vip, .string("vip")), (Level.high, .int(9)), (Code(rawValue: 4), .int(4)),
            (NSNumber(value: 5), .int(5)), (NSNumber(value: true), .bool(true)), (NSNumber(value: 1.5), .double(1.5)),
        ]
        for (argument, expected) in cases {
            #expect(try parse("v == %@", argument) == compare(key("v"), .equal, value(expected)), "\(String(describing: argument))")
        }
    }

    @Test func listArguments() throws {
        #expect(try parse("v IN %@", [1, nil, 3] as [Int?]) == compare(key("v"), .in, .list([.int(1), .null, .int(3)])))
        #expect(try parse("v IN %@", [Kind.regular, Kind.vip]) == compare(key("v"), .in, .list([.string("regular"), .string("vip")])))
        #expect(try parse("v IN %@", [Any]()) == compare(key("v"), .in, .list([])))
        #expect(try parse("v IN {%@, $1, 'c'}", "a", "b") == compare(key("v"), .in, .list([.string("a"), .string("b"), .string("c")])))
    }

    @Test func argumentsByIndexAndInOrder() throws {
        #expect(try parse("a == $1 AND b == $0 AND c == $1", "zero", "one") == .and([
            compare(key("a"), .equal, value(.string("one"))),
            compare(key("b"), .equal, value(.string("zero")), at: 12),
            compare(key("c"), .equal, value(.string("one")), at: 24),
        ]))
        #expect(try parse("%K == %@ AND %K == %@", "a", 1, "b", 2) == .and([
            compare(key("a"), .equal, value(.int(1))), compare(key("b"), .equal, value(.int(2)), at: 13),
        ]))
    }

    @Test func managedObjectsAreArguments() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open()
        let ann = person(1, "Ann")
        try db.write { try db.add(ann) }
        let info = try #require(ann._objdbInfo)
        #expect(try parse("owner == %@", ann) == compare(key("owner"), .equal, value(.object(className: info.name, key: ann._objdbKey))))
        #expect(info.name == "Person")
        #expect(try parse("owner IN %@", [ann]) == compare(key("owner"), .in, .list([.object(className: "Person", key: ann._objdbKey)])))
    }

    // MARK: Errors

    @Test func errorMessagesQuoteTheProblemAndThePredicate() throws {
        #expect(failure("age >> 3") == #"Invalid predicate at position 4: unknown operator '>>' in "age >> 3""#)
        #expect(failure("age 3") == #"Invalid predicate at position 4: expected an operator after 'age', found '3' in "age 3""#)
        #expect(failure("") == #"Invalid predicate at position 0: the predicate is empty in """#)
        let error = #expect(throws: ObjDBError.self) { try PredicateParser.parse("a ==", arguments: []) }
        #expect(error?.code == .invalidQuery)
    }

    @Test func longPredicatesAreShortenedAroundThePosition() {
        let text = String(repeating: "a == 1 AND ", count: 20) + "b >> 2"
        let message = failure(text)
        #expect(message.hasPrefix("Invalid predicate at position \(text.count - 4): unknown operator '>>' in \"…"))
        #expect(message.hasSuffix("b >> 2\""))
        #expect(message.count < 200)
    }

    @Test(arguments: [
        // Empty and unbalanced.
        ("   ", 0, "the predicate is empty"),
        ("(age > 3", 8, "missing ')' to close the '(' at position 0; found the end of the predicate"),
        ("((age > 3) OR b == 1", 20, "missing ')' to close the '(' at position 0"),
        ("age > 3)", 7, "unexpected ')' without a matching '('"),
        ("()", 1, "expected a key path or value after '(', found ')'"),
        // Operators and operands.
        ("age >> 3", 4, "unknown operator '>>'"),
        ("a & b", 2, "unknown operator '&'"),
        ("age 3", 4, "expected an operator after 'age', found '3'"),
        ("age", 3, "expected an operator after 'age', found the end of the predicate"),
        ("name MATCHES 'x'", 5, "unknown operator 'MATCHES' after 'name'"),
        ("dogs.@count 3", 12, "expected an operator after 'dogs.@count', found '3'"),
        ("age >", 5, "expected a key path or value after '>', found the end of the predicate"),
        ("age == == 3", 7, "expected a key path or value after '==', found '=='"),
        ("age > 3 AND", 11, "expected a key path or value after 'AND', found the end of the predicate"),
        ("NOT", 3, "expected a key path or value after 'NOT', found the end of the predicate"),
        ("age > 3 foo", 8, "expected AND, OR or the end of the predicate after '3', found 'foo'"),
        ("age > 3 TRUEPREDICATE", 8, "expected AND, OR or the end of the predicate after '3', found 'TRUEPREDICATE'"),
        ("age == AND", 7, "found 'AND' (a property named like a keyword must be given with %K)"),
        ("and == 3", 0, "expected a key path or value, found 'and' (a property named like a keyword must be given with %K)"),
        ("owner.in == 3", 6, "'in' is a reserved word; a property with that name must be given with %K"),
        ("owner. == 3", 7, "expected a property name or an aggregate such as @count after '.', found '=='"),
        ("ANY 3 == age", 4, "ANY must be followed by a key path or a list, found '3'"),
        ("all dogs.@count > 1", 4, "ALL must be followed by a key path or a list, found 'dogs.@count'"),
        ("ANY name IN tags", 0, "ANY, ALL and NONE can't be used with 'value IN keyPath'"),
        ("age == #3", 7, "unexpected character '#'"),
        // Literals.
        ("name == 'abc", 8, "unterminated string; add the closing '"),
        ("name == \"abc' AND b == 1", 8, "unterminated string; add the closing \""),
        ("name == 'a\\qb'", 10, "unknown escape sequence '\\q'"),
        ("name == 'a\\u12'", 10, "'\\u' must be followed by four hexadecimal digits"),
        ("name == '\\uD83D'", 9, "is half of a surrogate pair"),
        ("name == '\\uD83D\\u0041'", 15, "'\\u41' is not a low surrogate"),
        ("age > 12abc", 8, "expected AND, OR or the end of the predicate after '12', found 'abc'"),
        ("age > 1.2.3", 6, "'1.2.3' is not a valid number"),
        ("age > 1e", 7, "expected AND, OR or the end of the predicate after '1', found 'e'"),
        ("age > 0x", 6, "'0x' is not a valid number"),
        ("age > 0xZZ", 6, "'0xZZ' is not a valid number"),
        ("age > 9223372036854775808", 6, "'9223372036854775808' is out of range for a 64-bit integer"),
        ("age > -9223372036854775809", 6, "is out of range for a 64-bit integer"),
        ("age > 0x8000000000000000", 6, "'0x8000000000000000' is out of range for a 64-bit integer"),
        ("age > 0x10000000000000000", 6, "is out of range for a 64-bit integer"),
        ("age > 1e999", 6, "'1e999' is out of range for a Double"),
        ("d == T2024-13-02@10:00:00", 5, "invalid date 'T2024-13-02@10:00:00': month 13 is not between 1 and 12"),
        ("d == T2023-02-29@10:00:00", 5, "2023-02 has no day 29"),
        ("d == 2024-01-02@24:00:00", 5, "hour 24 is not between 0 and 23"),
        ("d == 2024-01-02@10:60:00", 5, "minute 60 is not between 0 and 59"),
        ("d == 2024-01-02@10:00:60", 5, "second 60 is not between 0 and 59"),
        ("d == 2024-01-02", 5, "invalid date '2024-01-02': expected YYYY-MM-DD@HH:MM:SS"),
        ("d == T2024-01-02@10:00", 5, "invalid date 'T2024-01-02@10:00': expected"),
        ("d == T2024-01-02@10:00:00:1234567890", 5, "expected YYYY-MM-DD@HH:MM:SS"),
        ("d == T24-01-02@10:00:00", 17, "unexpected character ':'"),  // T24-01-02 is a name, as in Realm
        ("d == T12:1000000000", 5, "nanoseconds must be below 1000000000"),
        ("d == T99999999999999999999:0", 5, "the number of seconds is out of range"),
        ("u == uuid(1234)", 5, "invalid UUID '1234'; expected uuid(XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX)"),
        ("u == uuid(E621E1F8-C36C-495A-93FC-0C247A3E6E5G)", 5, "invalid UUID"),
        ("u == uuid(E621E1F8-C36C-495A-93FC-0C247A3E6E5F", 5, "missing ')' to close uuid("),
        ("o == oid(123)", 5, "invalid ObjectId '123'; expected oid( with 24 hexadecimal digits )"),
        ("o == oid(65a1f0c2b3e4d5f6a7b8c9dz)", 5, "invalid ObjectId"),
        ("b == B64\"***\"", 5, "invalid base64 data '***'"),
        ("b == B64\"aGVsbG8=", 5, "unterminated B64 data"),
        // Lists, BETWEEN and IN.
        ("age BETWEEN {1, 2, 3}", 12, "BETWEEN needs a list of two values like {1, 5}, found a list of 3 values"),
        ("age BETWEEN {1}", 12, "found a list of 1 value"),
        ("age BETWEEN 1", 12, "BETWEEN needs a list of two values like {1, 5}, found '1'"),
        ("age BETWEEN tags", 12, "found 'tags'"),
        ("age IN 5", 7, "IN needs a list like {1, 2}, an array argument or a key path on its right, found '5'"),
        ("age IN dogs.@count", 7, "IN needs a list like {1, 2}, an array argument or a key path on its right, found 'dogs.@count'"),
        ("{1} IN tags", 0, "'{1}' is a list, but a single value is needed here"),
        ("{1, 2} IN ANY 5", 0, "'{1, 2}' is a list, but a single value is needed here"),
        ("ANY {1, 2} CONTAINS tags", 0, "'CONTAINS' can't have a list on its left"),
        ("ALL {1, 2} BETWEEN tags", 0, "'BETWEEN' can't have a list on its left"),
        ("ANY {1, 2} == 3", 14, "a list on the left of '==' needs a key path on its right, found '3'"),
        ("ALL {1} < ANY tags.@count", 14, "ANY must be followed by a key path, found 'tags.@count'"),
        ("age IN {1, {2}}", 11, "lists can't be nested"),
        ("age IN {1, name}", 11, "a list can only hold values, found 'name'"),
        ("age IN {1 2}", 10, "expected ',' or '}' in the list that starts at position 7, found '2'"),
        ("age IN {1,", 10, "expected a key path or value after ',', found the end of the predicate"),
        // Options.
        ("name ==[x] 'a'", 7, "unknown option '[x]'; expected [c], [d] or [cd]"),
        ("name ==[] 'a'", 7, "unknown option '[]'"),
        ("name ==[cdc] 'a'", 7, "unknown option '[cdc]'"),
        ("age <[c] 3", 5, "the option '[c]' can't be used with '<'"),
        ("age BETWEEN[c] {1, 2}", 11, "can't be used with 'BETWEEN'"),
        ("name ==[c 'a'", 7, "missing ']' to close the option that starts here"),
        ("name [c] == 'a'", 5, "expected an operator after 'name', found '[c]'"),
        // Aggregates and subqueries.
        ("dogs.@foo > 1", 5, "unknown aggregate '@foo'; expected @count, @size, @min, @max, @sum or @avg"),
        ("dogs.@count.age > 1", 11, "'@count' can't be followed by a property name"),
        ("dogs.@sum.age.x > 1", 13, "only one property name can follow '@sum'"),
        ("dogs.@sum. > 1", 11, "expected a property name after '.', found '>'"),
        ("dogs@count > 1", 4, "expected an operator after 'dogs', found '@count'"),
        ("age == @", 7, "'@' must be followed by an aggregate such as @count"),
        ("SUBQUERY(dogs, $d, $d.age > 3) > 1", 31, "SUBQUERY(…) must be followed by .@count, found '>'"),
        ("SUBQUERY(dogs, $d, $d.age > 3).@sum > 1", 31, "SUBQUERY(…) must be followed by .@count, found '@sum'"),
        ("SUBQUERY(dogs, $d, $d.age > 3).@count.x > 1", 37, "SUBQUERY(…).@count can't be followed by a property name"),
        ("SUBQUERY dogs", 9, "expected '(' after 'SUBQUERY', found 'dogs'"),
        ("SUBQUERY(5, $d, TRUEPREDICATE).@count > 0", 9, "SUBQUERY needs a collection key path as its first argument, found '5'"),
        ("SUBQUERY(dogs.@count, $d, TRUEPREDICATE).@count > 0", 9, "found 'dogs.@count'"),
        ("SUBQUERY(dogs $d, TRUEPREDICATE).@count > 0", 14, "expected ',' and a variable such as $x after 'dogs', found '$d'"),
        ("SUBQUERY(dogs, d, TRUEPREDICATE).@count > 0", 15, "expected a variable such as $x as the second argument of SUBQUERY after ',', found 'd'"),
        ("SUBQUERY(dogs, 'd', TRUEPREDICATE).@count > 0", 15, "expected a variable such as $x"),
        ("SUBQUERY(dogs, $d $d.age > 1).@count > 0", 18, "expected ',' and the predicate of the SUBQUERY after '$d', found '$d'"),
        ("SUBQUERY(dogs, $d, $d.age > 3.@count > 1", 30, "missing ')' to close the SUBQUERY"),
        ("SUBQUERY(dogs, $d, $d.age > 3 .@count > 1", 30, "missing ')' to close the SUBQUERY at position 0; found '.'"),
        ("SUBQUERY(dogs, $d, $d.age > 3", 29, "missing ')' to close the SUBQUERY at position 0; found the end of the predicate"),
        // Arguments.
        ("age == %d", 7, "unknown format specifier '%d'; use %@ for a value or %K for a key path"),
        ("age == %", 7, "unknown format specifier '%' at the end"),
        ("age == $0abc", 7, "'$0abc' is neither an argument ($0, $1, …) nor a variable ($x)"),
        ("age == $99999999999999999999", 7, "argument index '$99999999999999999999' is too large"),
        // Regression (found by `objdb-reliability fuzz`, #482067): Int.max as an index trapped
        // counting the arguments it needs (Int.max + 1).
        ("age == $9223372036854775807", 7, "argument index '$9223372036854775807' is too large"),
        ("text CONTAINS {0x10, -1, $9223372036854775807}", 25, "argument index '$9223372036854775807' is too large"),
        ("age == $2147483647", 7, "argument index '$2147483647' is too large"),
    ])
    func syntaxErrors(_ text: String, _ position: Int, _ problem: String) {
        let message = failure(text)
        let prefix = "Invalid predicate at position \(position): "
        #expect(message.hasPrefix(prefix), "\(text) → \(message)")
        #expect(message.contains(problem), "\(text) → \(message)")
        #expect(message.hasSuffix(" in \"\(text)\""), "\(text) → \(message)")
    }

    // Extra arguments are allowed, as Realm allows them: one argument list may serve many
    // queries (`filter("age > $0", 1, 2, 3)`); only missing ones are errors.
    @Test func extraArgumentsAreAllowed() throws {
        _ = try PredicateParser.parse("age > $0", arguments: [1, 2, 3])
        _ = try PredicateParser.parse("a == %@ AND b == %@", arguments: [1, 2, 3])
        _ = try PredicateParser.parse("a == 1", arguments: ["unused"])
        _ = try PredicateParser.parse("a == $1", arguments: [0, 1, 2])
    }

    @Test func argumentCountMustMatch() {
        #expect(failure("age == %@", [])
            == #"Invalid predicate at position 7: the predicate uses 1 argument but 0 were given in "age == %@""#)
        #expect(failure("a == %@ AND b == %@", [1])
            == #"Invalid predicate at position 17: the predicate uses 2 arguments but 1 was given in "a == %@ AND b == %@""#)
        #expect(failure("a == $2", [1, 2]).hasPrefix("Invalid predicate at position 5: the predicate uses 3 arguments but 2 were given"))
        #expect(failure("%K == 1", []).hasPrefix("Invalid predicate at position 0: the predicate uses 1 argument but 0 were given"))
        // Problems are reported left to right: a syntax error before the first missing argument comes first.
        #expect(failure("age >> %@", []).hasPrefix("Invalid predicate at position 4: unknown operator '>>'"))
        #expect(failure("age > 3 foo", [1]).hasPrefix("Invalid predicate at position 8: expected AND, OR or the end"))
        #expect(failure("a == $0 AND $1", [1]).hasPrefix("Invalid predicate at position 12: the predicate uses 2 arguments but 1 was given"))
    }

    @Test func unusableArguments() {
        #expect(failure("a == %@", [Unsupported()]).contains(
            "at position 5: the argument at index 0 has type 'Unsupported', which a predicate can't use; pass a Bool"))
        #expect(failure("a == $1", [1, [1: 2]]).contains("the argument at index 1 holds a value of type '(key: Int, value: Int)'"))
        #expect(failure("a IN %@", [[Unsupported()]]).contains("the argument at index 0 holds a value of type 'Unsupported' (in Array<Unsupported>)"))
        #expect(failure("a IN %@", [[[1], [2]]]).contains("the argument at index 0 (Array<Array<Int>>) holds lists; lists can't be nested"))
        #expect(failure("a == %@", [UInt64.max]).contains(
            "at position 5: the argument at index 0 (UInt64 18446744073709551615) is out of range for a 64-bit integer"))
        #expect(failure("a == %@", [NSNumber(value: UInt64.max)]).contains("is out of range for a 64-bit integer"))
        #expect(failure("a == %@", [person(1, "Ann")]).contains(
            "at position 5: the argument at index 0 is an unmanaged Person object; add it to the database before querying for it"))
        // An array argument after == is a list compared with each value (Realm's ANY by default).
        #expect(throws: Never.self) { try parse("a == %@", [1, 2]) }
        #expect(failure("a IN {%@}", [[1, 2]]).contains("at position 6: lists can't be nested"))
        #expect(failure("a IN %@", [5]).contains("at position 5: IN needs a list like {1, 2}, an array argument or a key path on its right, found '%@'"))
        #expect(failure("a BETWEEN $0", [[1, 2, 3]]).contains("at position 10: BETWEEN needs a list of two values like {1, 5}, found a list of 3 values"))
        #expect(failure("SUBQUERY(dogs, $0, TRUEPREDICATE).@count > 0").contains(
            "at position 15: expected a variable such as $x as the second argument of SUBQUERY after ',', found '$0'"))
        #expect(failure("%K == 1", [5]).contains("at position 0: %K needs a String key path, but the argument at index 0 is Int"))
        #expect(failure("%K == 1", [nil]).contains("%K needs a String key path, but the argument at index 0 is nil"))
        #expect(failure("%K == 1", ["a..b"]).contains("the key path 'a..b' given for %K (argument at index 0) must be property names joined by dots"))
        #expect(failure("%K == 1", ["dogs.@count"]).contains("must be property names joined by dots; write aggregates after it"))
    }
}

extension QueryPredicate {
    /// The operand at `index` of an `.and`, or the predicate itself.
    fileprivate func andOperand(_ index: Int) -> QueryPredicate {
        guard case .and(let operands) = self, operands.indices.contains(index) else { return self }
        return operands[index]
    }

    /// The operand at `index` of an `.or`, or the predicate itself.
    fileprivate func orOperand(_ index: Int) -> QueryPredicate {
        guard case .or(let operands) = self, operands.indices.contains(index) else { return self }
        return operands[index]
    }
}
