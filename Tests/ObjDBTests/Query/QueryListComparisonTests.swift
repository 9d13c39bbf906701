import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Lists after any operator, with ANY (the default), ALL or NONE, on either side, and lists of
/// mixed types, as Realm's query language evaluates them.
struct QueryListComparisonTests {
    let directory = TemporaryDirectory()

    /// People 1…4 aged 10, 20, 30 and nil, named Ann, Bob, Cid, Dan.
    private func people() throws -> Results<Person> {
        let db = try directory.open([Person.self])
        try db.write {
            for (id, name, age) in [(1, "Ann", 10), (2, "Bob", 20), (3, "Cid", 30)] { try db.add(person(id, name, age: age)) }
            try db.add(person(4, "Dan"))
        }
        return db.objects(Person.self)
    }

    @Test func aListAfterAnyOperatorComparesWithEachValue() throws {
        let people = try people()
        func ids(_ query: String, _ arguments: Any?...) throws -> [Int] { try people.filter(query, argumentArray: arguments).map(\.id) }
        #expect(try ids("age == ANY {10, 30}") == [1, 3])
        #expect(try ids("age == {10, 30}") == [1, 3])                 // ANY is the default
        #expect(try ids("age > {15, 100}") == [2, 3])                 // greater than some value
        #expect(try ids("age > ALL {5, 15}") == [2, 3])
        #expect(try ids("age < ALL {15, 25}") == [1])
        #expect(try ids("age == NONE {10, 20}") == [3, 4])            // nil equals neither
        #expect(try ids("name CONTAINS[c] {'a', 'zz'}") == [1, 4])
        #expect(try ids("name BEGINSWITH ANY $0", ["B", "C"]) == [2, 3])
        #expect(try ids("age != $0", [10, 10]) == [2, 3, 4])         // an array argument is a list
        #expect(try ids("age IN ALL $0", [20, 20]) == [2])            // equal to every value
        #expect(try ids("age IN ALL $0", [20, 30]).isEmpty)
        #expect(try ids("age IN NONE {10, 20}") == [3, 4])
        #expect(try ids("age == ANY {}").isEmpty)
        #expect(try ids("age == ALL {}") == [1, 2, 3, 4])
    }

    @Test func aListOnTheLeftOfInWithAQuantifiedCollection() throws {
        let db = try directory.open([Owner.self])
        try db.write {
            for (id, tags) in [(1, ["a", "b"]), (2, ["a", "c"]), (3, [String]())] {
                let o = owner(id)
                o.tags.append(objectsIn: tags)
                try db.add(o)
            }
        }
        let owners = db.objects(Owner.self)
        // ANY where no quantifier is written before the list, as in Realm: some value equals every
        // tag (only the empty tags of 3); "every tag is a or b" is ALL tags IN {'a', 'b'}.
        #expect(try owners.filter("{'a', 'b'} IN ALL tags").map(\.id) == [3])
        #expect(try owners.filter("ALL tags IN {'a', 'b'}").map(\.id) == [1, 3])
        #expect(try owners.filter("{'c', 'x'} IN ANY tags").map(\.id) == [2])
        #expect(try owners.filter("{'c'} IN NONE tags").map(\.id) == [1, 3])
        #expect(try owners.filter("ALL tags == ANY {'a', 'b'}").map(\.id) == [1, 3])
    }

    /// A list on the left of a key path that reaches one value is the same comparison mirrored:
    /// `ALL {5, 15} < age` is `age > ALL {5, 15}`.
    @Test func aListOnTheLeftOfOneValue() throws {
        let people = try people()
        func ids(_ query: String, _ arguments: Any?...) throws -> [Int] { try people.filter(query, argumentArray: arguments).map(\.id) }
        #expect(try ids("ALL {5, 15} < age") == [2, 3])
        #expect(try ids("ANY {10, 30} == age") == [1, 3])
        #expect(try ids("NONE {10, 20} == age") == [3, 4])
        #expect(try ids("ANY %@ >= age", [15, 25]) == [1, 2])
        #expect(try ids("ALL {} == age") == [1, 2, 3, 4])
        #expect(throws: ObjDBError.self) { try people.filter("{10, 20} == age") }
        #expect(throws: ObjDBError.self) { try people.filter("ANY {10, 20} IN age") }
    }

    @Test func mixedListsMatchTheValuesOfTheRightType() throws {
        let people = try people()
        #expect(try people.filter("age IN {10, 'ten', 30}").map(\.id) == [1, 3])
        #expect(try people.filter("age IN {'ten'}").isEmpty)
        #expect(try people.filter("name IN {'Bob', 7, nil}").map(\.id) == [2])
        // Ordering a number against a string is still an error.
        #expect(throws: ObjDBError.self) { try people.filter("age > {1, 'x'}") }
        #expect(throws: ObjDBError.self) { try people.filter("age > ANY 3") }
    }

    /// realm-core test_parser.cpp `Parser_Arithmetic` (ported with its figures in
    /// RealmParserCurrentValueTests); here: nil, folding and errors.
    @Test func arithmetic() throws {
        let people = try people()
        func ids(_ query: String, _ arguments: Any?...) throws -> [Int] { try people.filter(query, argumentArray: arguments).map(\.id) }
        #expect(try ids("age * 2 > 30") == [2, 3])
        #expect(try ids("2 * (age - 10) == 20") == [2])
        #expect(try ids("age + 1 == 11") == [1])
        #expect(try ids("age == (5 + 5) * 3") == [3])          // folded to 30 when parsed
        #expect(try ids("age / 0 > 1000") == [1, 2, 3])        // infinite; nil stays nil
        #expect(try ids("age * $0 == $1", 3, 60) == [2])
        #expect(throws: ObjDBError.self) { try people.filter("name * 2 > 1") }
        #expect(throws: ObjDBError.self) { try people.filter("age * 'x' > 1") }
    }

    /// A Double literal or argument against a Decimal property means the decimal it is written
    /// as (realm-core `Parser_Decimal128`: `dec == 7.1E-7`), not the binary fraction nearest to it.
    @Test func doublesAgainstDecimalsMeanTheirWrittenValue() throws {
        let db = try directory.open([AllTypes.self])
        try db.write {
            for (id, text) in [(1, "19.99"), (2, "0.00000071"), (3, "20")] {
                let o = AllTypes()
                o.id = id
                o.decimal = try #require(Decimal(string: text))
                try db.add(o)
            }
        }
        let all = db.objects(AllTypes.self)
        #expect(try all.filter("decimal == 19.99").map(\.id) == [1])
        #expect(try all.filter("decimal == 7.1E-7").map(\.id) == [2])
        #expect(try all.filter("decimal == %@", 19.99).map(\.id) == [1])
        #expect(try all.filter("decimal IN {19.99, 20}").map(\.id) == [1, 3])
        #expect(try all.filter("decimal > 19.98 AND decimal < 19.995").map(\.id) == [1])
    }
}
