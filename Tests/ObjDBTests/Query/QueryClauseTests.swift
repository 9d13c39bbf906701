import Testing
@testable import ObjDB
import ObjDBTestModels

/// `SORT(…)`, `DISTINCT(…)` and `LIMIT(…)` after a predicate string apply in the order written,
/// as in Realm's query language (realm-core test_parser.cpp `Parser_SortAndDistinct`,
/// `Parser_Limit`, whose counts RealmParserOrderingTests carries; these check the orders too).
struct QueryClauseTests {
    let directory = TemporaryDirectory()

    /// Five people: ids 1…5, names e, d, c, b, a, ages 30, 20, 30, 10, 20.
    private func people() throws -> Results<Person> {
        let db = try directory.open([Person.self])
        try db.write {
            for (id, name, age) in [(1, "e", 30), (2, "d", 20), (3, "c", 30), (4, "b", 10), (5, "a", 20)] {
                try db.add(person(id, name, age: age))
            }
        }
        return db.objects(Person.self)
    }

    @Test func clausesApplyInTheOrderWritten() throws {
        let people = try people()
        #expect(try people.filter("TRUEPREDICATE SORT(name ASC)").map(\.id) == [5, 4, 3, 2, 1])
        #expect(try people.filter("age > 10 SORT(age DESC, name ASC)").map(\.id) == [3, 1, 5, 2])
        // The limit takes the first two in key order, then those two are sorted.
        #expect(try people.filter("TRUEPREDICATE LIMIT(2) SORT(name ASC)").map(\.id) == [2, 1])
        #expect(try people.filter("TRUEPREDICATE SORT(name ASC) LIMIT(2)").map(\.id) == [5, 4])
        // A later SORT is the primary key; the earlier one breaks its ties.
        #expect(try people.filter("TRUEPREDICATE SORT(name DESC) SORT(age ASC)").map(\.id) == [4, 2, 5, 1, 3])
        // DISTINCT keeps the first of each value in the order so far; a second DISTINCT applies to what is left.
        #expect(try people.filter("TRUEPREDICATE SORT(name ASC) DISTINCT(age)").map(\.id) == [5, 4, 3])
        #expect(try people.filter("TRUEPREDICATE DISTINCT(age) DISTINCT(name)").map(\.id) == [1, 2, 4])
        #expect(try people.filter("TRUEPREDICATE LIMIT(3) LIMIT(10) LIMIT(2)").count == 2)
        #expect(try people.filter("age == 1000 SORT(name ASC) LIMIT(0)").isEmpty)
        // A property may still be called sort, distinct or limit: only `(` makes a clause.
        #expect(try people.filter("name == 'a' SORT(age ASC)").first?.id == 5)
    }

    @Test func badClausesAreRefused() throws {
        let people = try people()
        for query in ["age > 1 SORT(age)", "age > 1 SORT(nope ASC)", "age > 1 LIMIT(-1)", "age > 1 LIMIT(2.5)", "age > 1 LIMIT(0x10)",
                      "age > 1 LIMIT(1, 2)", "age > 1 DISTINCT()", "age > 1 SORT(age ASC", "SORT(age ASC)", "age > 1 LIMIT(1) AND age < 3"] {
            #expect(throws: ObjDBError.self, "\(query)") { try people.filter(query) }
            do {
                _ = try people.filter(query)
            } catch let error as ObjDBError {
                #expect(error.code == .invalidQuery, "\(query): \(error)")
            }
        }
        // Clauses order results: the parser alone (used where there are no results) refuses them.
        #expect(throws: ObjDBError.self) { try PredicateParser.parse("age > 1 LIMIT(1)", arguments: []) }
    }
}
