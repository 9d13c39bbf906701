import Testing
@testable import ObjDB
import ObjDBTestModels

/// Queries on maps as Realm Swift writes them: one key's value (`map['key']`), the keys
/// (`@keys`, `@allKeys`) and the values (`@values`, `@allValues`).
struct QueryMapTests {
    let directory = TemporaryDirectory()

    @Test func keysValuesAndSubscripts() throws {
        let db = try directory.open([Owner.self])
        try db.write {
            let ann = owner(1, "Ann")
            ann.scores["math"] = 9.5
            ann.scores["art"] = 4
            ann.petsByName["rex"] = pet(10, "Rex")
            let bob = owner(2, "Bob")
            bob.scores["math"] = 3
            let cid = owner(3, "Cid")
            try db.add(ann)
            try db.add(bob)
            try db.add(cid)
        }
        let owners = db.objects(Owner.self)
        func ids(_ query: String, _ arguments: Any?...) throws -> [Int] { try owners.filter(query, argumentArray: arguments).map(\.id) }
        #expect(try ids("scores['math'] > 5") == [1])
        #expect(try ids("scores[$0] < 5", "math") == [2])
        #expect(try ids("scores[%@] == nil", "art") == [2, 3])          // an absent key reads as nil
        #expect(try ids("ANY scores.@keys == 'art'") == [1])
        #expect(try ids("NONE scores.@allKeys == 'math'") == [3])
        #expect(try ids("ANY scores.@values < 5") == [1, 2])
        #expect(try ids("ALL scores.@allValues > 4") == [3])             // Cid has none: ALL holds
        #expect(try ids("scores.@values.@max > 5") == [1])
        #expect(try ids("petsByName['rex'].name == 'Rex'") == [1])
        #expect(try ids("petsByName['rex'] == nil") == [2, 3])
        #expect(throws: ObjDBError.self) { try owners.filter("scores[$0] > 1", 7) }     // the key must be a String
        #expect(throws: ObjDBError.self) { try owners.filter("name['x'] == 'a'") }      // not a map
    }
}
