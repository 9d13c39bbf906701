import Foundation
import Testing
import ObjDB

// Lists of constants on either side of a comparison, with ANY/ALL/NONE on the list, the key path
// or both, ported from the newest realm-core test/test_parser.cpp the reference index holds: the
// file as carried by BarqDB/barq-core (commit 7257512f, a fork of realm-core whose tests keep
// realm-core's queries and counts; 327,016 characters). The older realm-core versions in the index
// have no constant list on the left. Runs on the shop of RealmParserCurrentAggregateTests
// (`rqShop`): people 0, 1, 2 with item prices [5.5, 4.0, 9.5, 6.5], [5.5 × 10], [9.5, 9.5, 6.5].

struct RealmParserListLiteralTests {
    let directory = TemporaryDirectory()

    // realm-core test_parser.cpp (newest): TEST(Parser_OperatorIN) — "list property compared to a
    // constant list": the list's quantifier applies outside the key path's, and ANY where none is written.
    static let listOnTheLeft: [RQCase] = [
        RQCase("ANY {5.5, 4.0} IN ANY items.price", 2),
        RQCase("ALL {5.5, 4.0} IN items.price", 1),
        RQCase("ALL {5.5} IN items.price", 2),
        RQCase("NONE {5.5, 4.0} IN items.price", 1),
        RQCase("NONE {5.5, 4.0} IN ALL items.price", 2),
        RQCase("ANY {5.5, 4.0} IN ALL items.price", 1),
        RQCase("ANY {5.5, 4.0} IN NONE items.price", 2),
        RQCase("!(ANY {5.5, 4.0} IN ANY items.price)", 1),
        RQCase("ALL {5.5, 4.0} IN NONE items.price", 1),
        RQCase("ALL {5.5, 4.0, 9.5, 6.5} IN ALL items.price", 0),
        RQCase("ALL {5.5, 5.5} IN ALL items.price", 1),
        RQCase("ALL {6.0, 6.1, 1.1} <= ALL items.price", 1),
        RQCase("NONE {5.5, 4.0, 9.5, 6.5} IN ANY items.price", 0),
        RQCase("NONE {5.5, 4.0, 9.5, 6.5} IN ALL items.price", 2),
        RQCase("NONE {5.5, 4.0} IN NONE items.price", 1),
    ]
    // TEST(Parser_OperatorIN), same block: a list on the right with its own quantifier.
    static let listOnTheRight: [RQCase] = [
        RQCase("ANY items.name contains[c] ANY {'A', 'B'}", 2),
        RQCase("ALL items.name contains[c] {'A', 'B'}", 1),
        RQCase("ALL items.name contains[c] NONE {'A', 'B'}", 1),
        RQCase("NONE items.name contains[c] {'A', 'B'}", 1),
        RQCase("NONE items.name contains[c] ALL {'A', 'L'}", 1),
        RQCase("ANY items.name contains[c] NONE {'A', 'B'}", 2),
        RQCase("ANY items.name contains[c] ALL {'A', 'B'}", 0),
    ]
    // TEST(Parser_OperatorIN) — "empty constant list" (but `{} IN items.price`, see RealmParserCurrentSkipped)
    // and "one item in constant list".
    static let emptyAndSingle: [RQCase] = [
        RQCase("{ } IN ALL items.price", 0),
        RQCase("{   } IN NONE items.price", 0),
        RQCase("ALL {} IN ALL items.price", 3),
        RQCase("ALL { } IN NONE items.price", 3),
        RQCase("ALL { } IN ANY items.price", 3),
        RQCase("NONE {   } IN ALL items.price", 3),
        RQCase("NONE {} IN ANY items.price", 3),
        RQCase("ANY {6.5} IN ANY items.price", 2),
        RQCase("{6.5} IN ANY items.price", 2),
        RQCase("{6.5} IN ALL items.price", 0),
        RQCase("{6.5} IN NONE items.price", 1),
        RQCase("ALL {6.5} IN ALL items.price", 0),
        RQCase("ALL {6.5} IN NONE items.price", 1),
        RQCase("ALL {6.5} IN ANY items.price", 2),
        RQCase("NONE {6.5} IN ALL items.price", 3),
        RQCase("NONE {6.5} IN ANY items.price", 1),
    ]
    // TEST(Parser_OperatorIN) — "RHS is a constant list".
    static let constantLists: [RQCase] = [
        RQCase("customer_id IN {}", 0),
        RQCase("customer_id IN {0, 1, 2}", 3),
        RQCase("NOT customer_id IN {0}", 2),
        RQCase("customer_id != {0}", 2),
        RQCase("customer_id != {0, 1}", 3),
        RQCase("NOT customer_id IN {0, 1}", 1),
        RQCase("customer_id != {0, 1, 2}", 3),
        RQCase("customer_id > {0, 1}", 2),
        RQCase("customer_id > {4, 5, 6}", 0),
        RQCase("customer_id < {0, 1}", 1),
        RQCase("customer_id < {0}", 0),
        RQCase("customer_id >= {0, 1}", 3),
        RQCase("customer_id >= {2, 3, 4}", 1),
        RQCase("customer_id <= {0, 1}", 2),
        RQCase("customer_id <= {-1}", 0),
        RQCase("fav_item.name IN {'milk', 'oranges', 'cereal'}", 2),
        RQCase("fav_item.price IN {6.5, 9.5}", 1),
        RQCase("fav_item.name IN {0, null, -1, 'not found', 3.14, oid(000000000000000000000000)}", 0),
        RQCase("fav_item.name != {'milk', 'oranges'}", 3),
        RQCase("NOT fav_item.name IN {'milk', 'oranges'}", 1),
        RQCase("fav_item.name contains[c] {'ILK', 'Range'}", 2),
        RQCase("fav_item.name beginswith[c] {'MIL', 'CERe'}", 1),
        RQCase("fav_item.name endswith {'lk', 'EAL', 'GeS'}", 1),
        RQCase("fav_item.name endswith[c] {'lk', 'EAL', 'GeS'}", 2),
        RQCase("fav_item.name like {'*lk', '*zz*'}", 2),
    ]
    // TEST(Parser_OperatorIN) — CHECK_THROW: "unsupported combinations" (no arithmetic on two lists, no
    // aggregate or length of a constant list) and ALL/NONE before a key path that reaches one value.
    static let rejected: [RQCase] = [
        RQCase("{1, 2, 3, 4, 5, 6} * {1, 2, 3} == items.price", nil),
        RQCase("{8, 10}.@size >= ANY items.price", nil),
        RQCase("{8, 10}.@max >= ANY items.price", nil),
        RQCase("{8, 10}.@min >= ANY items.price", nil),
        RQCase("{8, 10}.@avg >= ANY items.price", nil),
        RQCase("{8, 10}.length >= ANY items.price", nil),
        RQCase("ALL customer_id IN {0, 1, 2}", nil),
        RQCase("NONE customer_id IN {0, 1, 2}", nil),
    ]
    static let knownFailing: [RQCase] = []

    static let all = listOnTheLeft + listOnTheRight + emptyAndSingle + constantLists + rejected

    @Test(arguments: rqExcluding(all, knownFailing)) func operatorIN(_ c: RQCase) {
        rqCheck("Parser_OperatorIN", RQShopPerson.self, c) { try rqShop(directory) }
    }
    @Test(arguments: knownFailing) func knownFailingOperatorIN(_ c: RQCase) {
        rqCheckKnownFailing("Parser_OperatorIN", RQShopPerson.self, c) { try rqShop(directory) }
    }

    // TEST(Parser_OperatorIN) — "RHS is a param": the same lists given as array arguments.
    static let arrayArguments: [(String, [Int], Int)] = [
        ("customer_id IN $0", [], 0), ("customer_id IN $0", [0, 1, 2], 3), ("NOT customer_id IN $0", [0], 2),
        ("customer_id != $0", [0], 2), ("customer_id != $0", [0, 1], 3), ("NOT customer_id IN $0", [0, 1], 1),
        ("customer_id != $0", [0, 1, 2], 3), ("customer_id > $0", [0, 1], 2), ("customer_id > $0", [4, 5, 6], 0),
        ("customer_id < $0", [0, 1], 1), ("customer_id < $0", [0], 0), ("customer_id >= $0", [0, 1], 3),
        ("customer_id >= $0", [2, 3, 4], 1), ("customer_id <= $0", [0, 1], 2), ("customer_id <= $0", [-1], 0),
        ("customer_id IN ANY $0", [0, 1, 2], 3), ("customer_id IN ALL $0", [0, 1, 2], 0), ("customer_id IN NONE $0", [0, 1, 2], 0),
    ]

    @Test(arguments: arrayArguments) func operatorINWithArrayArgument(_ query: String, _ values: [Int], _ expected: Int) throws {
        let db = try rqShop(directory)
        #expect(try db.objects(RQShopPerson.self).filter(query, values).count == expected, "\(query) with \(values)")
    }

    @Test func operatorINWithStringArrayArguments() throws {
        let people = try rqShop(directory).objects(RQShopPerson.self)
        #expect(try people.filter("fav_item.name IN $0", ["milk", "oranges", "cereal"]).count == 2)
        #expect(try people.filter("fav_item.price IN $0", [6.5, 9.5]).count == 1)
        #expect(try people.filter("fav_item.name IN $0", [String]()).count == 0)
        #expect(try people.filter("fav_item.name != $0", ["milk", "oranges"]).count == 3)
        #expect(try people.filter("NOT fav_item.name IN $0", ["milk", "oranges"]).count == 1)
        #expect(try people.filter("fav_item.name contains[c] $0", ["ILK", "Range"]).count == 2)
        #expect(try people.filter("fav_item.name beginswith[c] $0", ["MIL", "CERe"]).count == 1)
        #expect(try people.filter("fav_item.name endswith $0", ["lk", "EAL", "GeS"]).count == 1)
        #expect(try people.filter("fav_item.name endswith[c] $0", ["lk", "EAL", "GeS"]).count == 2)
        #expect(try people.filter("fav_item.name like $0", ["*lk", "*zz*"]).count == 2)
        // CHECK_THROW: a quantifier after IN needs a list, and $0 is null there upstream.
        for query in ["customer_id IN NONE $0", "customer_id IN ANY $0", "customer_id IN ALL $0"] {
            #expect(throws: ObjDBError.self, "\(query)") { try people.filter(query, nil as Int?) }
        }
    }
}

/// realm-core test_parser.cpp (newest, as above): TEST(Parser_ListVsList) — a list of integers
/// against constant lists with a quantifier on each side; rows 1: [1, 2] and 2: [11, 5, 9, 5].
struct RealmParserListVsListTests {
    let directory = TemporaryDirectory()

    func fixture() throws -> Database {
        let db = try directory.open([RQKeyedIntList.self])
        try db.write {
            for (id, values) in [(1, [1, 2]), (2, [11, 5, 9, 5])] {
                let row = RQKeyedIntList()
                row.id = id
                row.integers.append(objectsIn: values)
                try db.add(row)
            }
        }
        return db
    }

    /// The query and the primary keys upstream finds (it checks the key where one row matches).
    static let cases: [(String, [Int])] = [
        ("ANY {1, 2, 3} == ALL integers", []),
        ("ALL integers == ANY {2, 1, 3}", [1]),
        ("ANY {1, 2, 3} > ALL integers", [1]),
        ("ANY {4, 8} == ANY integers", []),
        ("ANY {1, 2, 3} == ANY integers", [1]),
        ("ANY {1, 2, 3} == NONE integers", [1, 2]),
        ("ANY {1, 2, 7} <= NONE integers", [1]),
        ("ANY {-1, 0} < NONE integers", []),
        ("ALL {1, 2, 3} > ALL integers", []),
        ("ALL {4, 8} > ALL integers", [1]),
        ("ALL {1, 2, 12} < ANY integers", []),
        ("ALL {4, 8} > ANY integers", [1]),
        ("ALL {2, 5} == NONE integers", []),
        ("ALL {3, 1, 4, 3} == NONE integers", [2]),
        ("NONE {1, 2, 3, 12} > ALL integers", []),
        ("NONE {4, 8} > ALL integers", [2]),
        ("NONE {1, 12} > ANY integers", []),
        ("NONE {4, 8} < ANY integers", [1]),
        ("NONE {-1, 12} < NONE integers", []),
        ("NONE {-1, 5} < NONE integers", [2]),
        ("NONE {0, 1} < NONE integers", [1, 2]),
    ]

    @Test(arguments: cases) func listVsList(_ query: String, _ keys: [Int]) throws {
        let rows = try fixture().objects(RQKeyedIntList.self)
        #expect(try rows.filter(query).map(\.id).sorted() == keys, "\(query)")
    }
}
