import Testing
@testable import ObjDB

/// realm-core test_parser.cpp `TEST(Parser_list_of_primitive_ints)`: the table of lists of
/// integers and the table linking to it, with the upstream queries and counts.
final class PrimitiveIntRow: Object {
    @Persisted var integers: List<Int>
    @Persisted var single_int: Int = 0
    @Persisted var integers_nullable: List<Int?>
    @Persisted var single_int_nullable: Int?
}

/// The second table of `Parser_list_of_primitive_ints`: a link and a list to the first.
final class PrimitiveIntHolder: Object {
    @Persisted var link: PrimitiveIntRow?
    @Persisted var list: List<PrimitiveIntRow>
}

/// Quantifiers and aggregates through paths with several collections, and through nil links,
/// evaluate as Realm evaluates them: per object holding the last collection.
struct NestedCollectionQueryTests {
    let directory = TemporaryDirectory()

    /// Ten rows with `integers == [i]`, then (after the holders) one with defaults and one whose
    /// nullable list holds one nil; holders: link to 1 and list [1]; link to 2 and list of the
    /// ten; nothing.
    private func fixture() throws -> Database {
        let db = try directory.open([PrimitiveIntRow.self, PrimitiveIntHolder.self])
        try db.write {
            var rows: [PrimitiveIntRow] = []
            for i in 0..<10 {
                let row = PrimitiveIntRow()
                row.integers.append(i)
                row.single_int = i
                row.integers_nullable.append(i)
                row.single_int_nullable = i
                try db.add(row)
                rows.append(row)
            }
            let first = PrimitiveIntHolder()
            first.link = rows[1]
            first.list.append(rows[1])
            let second = PrimitiveIntHolder()
            second.link = rows[2]
            second.list.append(objectsIn: rows)
            try db.add(first)
            try db.add(second)
            try db.add(PrimitiveIntHolder())
            try db.add(PrimitiveIntRow())
            let nulls = PrimitiveIntRow()
            nulls.integers_nullable.append(nil)
            try db.add(nulls)
        }
        return db
    }

    static let rowCases: [(String, Int)] = [
        ("integers.@count == 0", 2),
        ("integers == NULL", 0),
        ("ALL integers == NULL", 2),
        ("NONE integers == NULL", 12),
        ("integers_nullable.@count == 0", 1),
        ("integers_nullable == NULL", 1),
        ("ALL integers_nullable == NULL", 2),
        ("NONE integers_nullable == NULL", 11),
        ("integers == single_int", 10),
        ("integers_nullable == single_int", 10),
        ("integers == single_int_nullable", 10),
        ("integers_nullable == single_int_nullable", 11),
        ("integers.@min == single_int", 10),
        ("integers.@min == single_int_nullable", 12),
        ("integers_nullable.@min == single_int", 10),
        ("integers_nullable.@min == single_int_nullable", 12),
        ("integers.@max == single_int", 10),
        ("integers.@max == single_int_nullable", 12),
        ("integers_nullable.@max == single_int", 10),
        ("integers_nullable.@max == single_int_nullable", 12),
        ("integers.@sum == single_int", 12),
        ("integers.@sum == single_int_nullable", 10),
        ("integers_nullable.@sum == single_int", 12),
        ("integers_nullable.@sum == single_int_nullable", 10),
        ("integers.@avg == single_int", 10),
        ("integers.@avg == single_int_nullable", 12),
        ("integers_nullable.@avg == single_int", 10),
        ("integers_nullable.@avg == single_int_nullable", 12),
        ("integers.@count == single_int", 3),
        ("integers.@count == single_int_nullable", 1),
        ("integers_nullable.@count == single_int", 2),
        ("integers_nullable.@count == single_int_nullable", 1),
    ]

    @Test(arguments: rowCases) func listsOfIntegersAgainstProperties(_ query: String, _ expected: Int) throws {
        let db = try fixture()
        #expect(try db.objects(PrimitiveIntRow.self).filter(query).count == expected, "\(query)")
    }

    static let holderCases: [(String, Int)] = [
        // operations across links
        ("link.integers == 0 || link.integers == 3", 0),
        ("link.integers == 1", 1),
        ("link.integers == 2", 1),
        ("link.integers == NULL", 0),
        ("link.integers_nullable == NULL", 0),
        ("link.integers.@count == 1", 2),
        ("link.integers.@count == 0", 1),
        ("link.integers.@min == 1", 1),
        ("link.integers.@max == 1", 1),
        ("link.integers.@sum == 1", 1),
        ("link.integers.@avg == 1", 1),
        // operations across lists
        ("list.integers == 1", 2),
        ("list.integers == 2", 1),
        ("list.integers == NULL", 0),
        ("list.integers.@count == 1", 2),
        ("list.integers.@min == 1", 2),
        ("list.integers.@max == 1", 2),
        ("list.integers.@avg == 1", 2),
        ("list.integers.@sum == 1", 2),
        // the quantifier applies to the last list, any element of the first may match; an empty
        // first list is one empty list of integers (newest realm-core's counts)
        ("ALL list.integers == 1", 3),
        ("NONE list.integers == 1", 2),
    ]

    @Test(arguments: holderCases) func listsOfIntegersThroughLinksAndLists(_ query: String, _ expected: Int) throws {
        let db = try fixture()
        #expect(try db.objects(PrimitiveIntHolder.self).filter(query).count == expected, "\(query)")
    }

    @Test func eachIntegerMatchesItsRow() throws {
        let db = try fixture()
        let rows = db.objects(PrimitiveIntRow.self)
        for i in 0..<10 {
            for query in ["integers == $0", "integers.@min == $0", "integers.@max == $0", "integers.@avg == $0",
                          "ANY integers == $0", "SOME integers == $0", "$0 IN integers", "!(NONE integers == $0)"] {
                #expect(try rows.filter(query, i).count == 1, "\(query) with \(i)")
            }
            // The two rows added last have an empty list: ALL holds for them, ANY does not, and
            // their sum is 0.
            #expect(try rows.filter("integers.@sum == $0", i).count == (i == 0 ? 3 : 1))
            for (query, expected) in [("ALL integers == $0", 3), ("NONE integers == $0", 11), ("!(ANY integers == $0)", 11), ("!(ALL integers == $0)", 9),
                                      ("ANY integers != $0", 9), ("ALL integers != $0", 11), ("NONE integers != $0", 3)] {
                #expect(try rows.filter(query, i).count == expected, "\(query) with \(i)")
            }
        }
    }
}
