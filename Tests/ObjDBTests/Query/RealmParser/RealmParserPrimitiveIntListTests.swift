import Foundation
import Testing
import ObjDB

// realm-core test_parser.cpp: TEST(Parser_list_of_primitive_ints), in its newest version (the file
// as carried by BarqDB/barq-core, see RealmParserListLiteralTests). The current realm-core version
// in the index has the same cases but for the last two (`ALL list.integers == 1` 2 and
// `NONE list.integers == 1` 1 there): the newest counts an empty list of objects before the list of
// integers as one empty list, which ALL and NONE hold for.
//
// Upstream's table of ten rows with `integers == [i]` is queried first; then a row with defaults and
// a row whose nullable list holds one null are added. The second table links to it: a link to row
// 1 and a list [row 1]; a link to row 2 and a list of the ten rows; nothing.

struct RealmParserPrimitiveIntListTests {
    let directory = TemporaryDirectory()

    /// The ten rows and the three holders, and with `extraRows` the two rows added afterwards.
    func fixture(extraRows: Bool) throws -> Database {
        let db = try directory.open([RQIntListRow.self, RQIntListHolder.self])
        try db.write {
            var rows: [RQIntListRow] = []
            for i in 0..<10 {
                let row = RQIntListRow()
                row.integers.append(i)
                row.single_int = i
                row.integers_nullable.append(i)
                row.single_int_nullable = i
                try db.add(row)
                rows.append(row)
            }
            let first = RQIntListHolder()
            first.link = rows[1]
            first.list.append(rows[1])
            let second = RQIntListHolder()
            second.link = rows[2]
            second.list.append(objectsIn: rows)
            try db.add(first)
            try db.add(second)
            try db.add(RQIntListHolder())
            guard extraRows else { return }
            try db.add(RQIntListRow())
            let nulls = RQIntListRow()
            nulls.integers_nullable.append(nil)
            try db.add(nulls)
        }
        return db
    }

    /// The loop over the ten rows, for each `i`.
    static let perRow: [RQCase] = (0..<10).flatMap { i in
        [
            RQCase("integers == \(i)", 1), RQCase("integers.@min == \(i)", 1), RQCase("integers.@max == \(i)", 1),
            RQCase("integers.@avg == \(i)", 1), RQCase("integers.@sum == \(i)", 1), RQCase("ANY integers == \(i)", 1),
            RQCase("SOME integers == \(i)", 1), RQCase("ALL integers == \(i)", 1), RQCase("NONE integers == \(i)", 9),
            RQCase("!(ANY integers == \(i))", 9), RQCase("!(SOME integers == \(i))", 9), RQCase("!(ALL integers == \(i))", 9),
            RQCase("!(NONE integers == \(i))", 1), RQCase("ANY integers != \(i)", 9), RQCase("SOME integers != \(i)", 9),
            RQCase("ALL integers != \(i)", 9), RQCase("NONE integers != \(i)", 1), RQCase("\(i) IN integers", 1),
        ]
    }
    /// After the loop, still ten rows.
    static let tenRows: [RQCase] = perRow + [
        RQCase("integers.@count == 0", 0),
        RQCase("integers.@size == 0", 0),
        RQCase("integers.@count == 1", 10),
        RQCase("integers.@size == 1", 10),
    ]
    /// With the two rows added (12).
    static let twelveRows: [RQCase] = [
        RQCase("integers.@count == 0", 2),
        RQCase("integers == NULL", 0),
        RQCase("ALL integers == NULL", 2),
        RQCase("NONE integers == NULL", 12),
        RQCase("integers_nullable.@count == 0", 1),
        RQCase("integers_nullable == NULL", 1),
        RQCase("ALL integers_nullable == NULL", 2),
        RQCase("NONE integers_nullable == NULL", 11),
        RQCase("integers == single_int", 10),
        RQCase("integers_nullable == single_int", 10),
        RQCase("integers == single_int_nullable", 10),
        RQCase("integers_nullable == single_int_nullable", 11),
        RQCase("integers.@min == single_int", 10),
        RQCase("integers.@min == single_int_nullable", 12),
        RQCase("integers_nullable.@min == single_int", 10),
        RQCase("integers_nullable.@min == single_int_nullable", 12),
        RQCase("integers.@max == single_int", 10),
        RQCase("integers.@max == single_int_nullable", 12),
        RQCase("integers_nullable.@max == single_int", 10),
        RQCase("integers_nullable.@max == single_int_nullable", 12),
        RQCase("integers.@sum == single_int", 12),
        RQCase("integers.@sum == single_int_nullable", 10),
        RQCase("integers_nullable.@sum == single_int", 12),
        RQCase("integers_nullable.@sum == single_int_nullable", 10),
        RQCase("integers.@avg == single_int", 10),
        RQCase("integers.@avg == single_int_nullable", 12),
        RQCase("integers_nullable.@avg == single_int", 10),
        RQCase("integers_nullable.@avg == single_int_nullable", 12),
        RQCase("integers.@count == single_int", 3),
        RQCase("integers.@count == single_int_nullable", 1),
        RQCase("integers_nullable.@count == single_int", 2),
        RQCase("integers_nullable.@count == single_int_nullable", 1),
        // CHECK_THROW: no property after a list of values, no SUBQUERY on it, no list against a list,
        // no string operator on integers, no string against integers.
        RQCase("integers.@min.no_property == 0", nil),
        RQCase("SUBQUERY(integers, $x, $x == 1).@count > 0", nil),
        RQCase("integers == integers", nil),
        RQCase("integers != integers", nil),
        RQCase("integers > integers", nil),
        RQCase("integers < integers", nil),
        RQCase("integers contains integers", nil),
        RQCase("integers beginswith integers", nil),
        RQCase("integers endswith integers", nil),
        RQCase("integers like integers", nil),
        RQCase("integers like 0", nil),
        RQCase("integers contains[c] 0", nil),
        RQCase("integers beginswith 0", nil),
        RQCase("integers ENDSWITH 0", nil),
        RQCase("integers == 'string'", nil),
    ]
    /// On the second table, with twelve rows.
    static let holders: [RQCase] = [
        RQCase("link.integers == 0 || link.integers == 3", 0),
        RQCase("link.integers == 1", 1),
        RQCase("link.integers == 2", 1),
        RQCase("link.integers == NULL", 0),
        RQCase("link.integers_nullable == NULL", 0),
        RQCase("link.integers.@count == 1", 2),
        RQCase("link.integers.@count == 0", 1),
        RQCase("link.integers.@min == 1", 1),
        RQCase("link.integers.@max == 1", 1),
        RQCase("link.integers.@sum == 1", 1),
        RQCase("link.integers.@avg == 1", 1),
        RQCase("list.integers == 1", 2),
        RQCase("list.integers == 2", 1),
        RQCase("list.integers == NULL", 0),
        RQCase("list.integers.@count == 1", 2),
        RQCase("list.integers.@min == 1", 2),
        RQCase("list.integers.@max == 1", 2),
        RQCase("list.integers.@avg == 1", 2),
        RQCase("list.integers.@sum == 1", 2),
        // the quantifier applies to each list of integers; the holder with an empty `list` sees one
        // empty list of integers, which ALL and NONE hold for
        RQCase("ALL list.integers == 1", 3),
        RQCase("NONE list.integers == 1", 2),
    ]
    static let knownFailing: [RQCase] = []

    @Test(arguments: rqExcluding(tenRows, knownFailing)) func onTenRows(_ c: RQCase) {
        rqCheck("Parser_list_of_primitive_ints", RQIntListRow.self, c) { try fixture(extraRows: false) }
    }
    @Test(arguments: rqExcluding(twelveRows, knownFailing)) func onTwelveRows(_ c: RQCase) {
        rqCheck("Parser_list_of_primitive_ints", RQIntListRow.self, c) { try fixture(extraRows: true) }
    }
    @Test(arguments: rqExcluding(holders, knownFailing)) func onHolders(_ c: RQCase) {
        rqCheck("Parser_list_of_primitive_ints", RQIntListHolder.self, c) { try fixture(extraRows: true) }
    }
    @Test(arguments: knownFailing) func knownFailingCase(_ c: RQCase) {
        rqCheckKnownFailing("Parser_list_of_primitive_ints", RQIntListHolder.self, c) { try fixture(extraRows: true) }
    }

    // verify_query_sub with one argument, 1.
    @Test func integersEqualToAnArgument() throws {
        let rows = try fixture(extraRows: true).objects(RQIntListRow.self)
        #expect(try rows.filter("integers == $0", 1).count == 1)
    }

    // Not an upstream case: an empty list of objects before the integers is one empty list for
    // aggregates too, as upstream's nil link is (`link.integers.@count == 0` is 1 above, the
    // holder without a link): its count is 0, its sum 0, its minimum nil.
    @Test func anEmptyListOfObjectsAggregatesAsOneEmptyList() throws {
        let holders = try fixture(extraRows: true).objects(RQIntListHolder.self)
        #expect(try holders.filter("list.integers.@count == 0").count == 1)
        #expect(try holders.filter("list.integers.@sum == 0").count == 2)  // also the list holding row 0 ([0])
        #expect(try holders.filter("list.integers.@min == nil").count == 1)
        #expect(try holders.filter("link.integers.@min == nil").count == 1)
    }

    // The same through every form that asks for one element, for each row's integer: the list
    // holding only `i` is the one match; the two rows added last have an empty list, which ALL
    // holds for and ANY does not, and whose sum is 0.
    @Test func eachIntegerMatchesItsRow() throws {
        let rows = try fixture(extraRows: true).objects(RQIntListRow.self)
        for i in 0..<10 {
            for query in ["integers == $0", "integers.@min == $0", "integers.@max == $0", "integers.@avg == $0",
                          "ANY integers == $0", "SOME integers == $0", "$0 IN integers", "!(NONE integers == $0)"] {
                #expect(try rows.filter(query, i).count == 1, "\(query) with \(i)")
            }
            #expect(try rows.filter("integers.@sum == $0", i).count == (i == 0 ? 3 : 1))
            for (query, expected) in [("ALL integers == $0", 3), ("NONE integers == $0", 11), ("!(ANY integers == $0)", 11), ("!(ALL integers == $0)", 9),
                                      ("ANY integers != $0", 9), ("ALL integers != $0", 11), ("NONE integers != $0", 3)] {
                #expect(try rows.filter(query, i).count == expected, "\(query) with \(i)")
            }
        }
    }
}
