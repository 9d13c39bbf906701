import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// `Results.explain()` prints the one plan the query runs with (``ExecutionPlan``): each shape of
/// query gets the access, test and gathering the planner documents, and the plan's answer is the
/// one the brute-force check gives.
@Suite(.serialized)
struct QueryExplainTests {
    let directory = TemporaryDirectory()

    func people() throws -> Database {
        let db = try directory.open([Person.self, Owner.self])
        try db.write {
            for i in 1...300 { try db.add(person(i, "name \(i % 10)", age: i % 7 == 0 ? nil : i % 90)) }
            let owner = Owner()
            owner.id = 1
            for i in 0..<3 {
                let pet = Pet()
                pet.id = i
                pet.name = "pet \(i)"
                owner.pets.append(pet)
            }
            try db.add(owner)
        }
        return db
    }

    @Test func eachShapeOfQueryGetsItsPlan() throws {
        let db = try people()
        let all = db.objects(Person.self)
        let cases: [(Results<Person>, String)] = [
            (all, "every object of Person, in object-key order"),
            (all.where { $0.id == 7 }, "primary key lookup on id (1 value) of Person (answers the whole filter), compiled test of the whole filter only where an index key was cut"),
            (all.where { $0.name == "name 3" }, "index lookup on name (1 value) of Person (answers the whole filter), compiled test of the whole filter only where an index key was cut"),
            (try all.filter("age > 50"), "table scan of Person, row test: one integer comparison, may split among threads"),
            (try all.filter("age > 50 AND age < 60"), "table scan of Person, row test: two number comparisons, branch-free, may split among threads"),
            (try all.filter("age == 50 AND age < 60"), "table scan of Person, row test: two number comparisons, the equality first, may split among threads"),
            (try all.filter("FALSEPREDICATE"), "no candidates: nothing can match"),
            (try all.filter("name == 'name 3' AND age > 10"),
             "index lookup on name (1 value) of Person, compiled test of the whole filter"),
            (try all.filter("age > 50").prefix(5), "table scan of Person, row test: one integer comparison\nthen: stop at the first 5 matches, limit 5"),
            (try all.filter("age > 50").sorted(by: \.age).prefix(5),
             "table scan of Person, row test: one integer comparison, may split among threads\nthen: keep the best 5 by age ascending (heap), limit 5"),
            (try all.filter("age > 50").sorted(by: \.name),
             "table scan of Person, row test: one integer comparison\nthen: sort by name ascending"),
        ]
        for (results, expected) in cases {
            #expect(results.explain() == expected)
        }
        #expect(try db.objects(Owner.self).filter("ANY pets.name == 'pet 1'").explain()
            == "table scan of Owner, compiled test of the whole filter")
        let owner = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        #expect(owner.pets.where { $0.name != "pet 1" }.explain()
            == "the elements of a collection of Pet objects, in their order, compiled test of the whole filter")
    }

    @Test func plannedAnswersMatchABruteForceFilter() throws {
        let db = try people()
        let everyone = Array(db.objects(Person.self)).map { ($0.id, $0.name, $0.age) }
        func ids(_ results: Results<Person>) -> [Int] { results.map(\.id) }
        #expect(ids(db.objects(Person.self).where { $0.id == 7 }) == [7])
        #expect(ids(try db.objects(Person.self).filter("age > 50 AND age < 60"))
            == everyone.filter { ($0.2 ?? -1) > 50 && ($0.2 ?? 100) < 60 }.map(\.0))
        #expect(ids(try db.objects(Person.self).filter("age > 50").prefix(5))
            == Array(everyone.filter { ($0.2 ?? -1) > 50 }.map(\.0).prefix(5)))
        // Stable: equal ages keep key order.
        let sorted = everyone.filter { ($0.2 ?? -1) > 50 }.sorted { ($0.2 ?? 0, $0.0) < ($1.2 ?? 0, $1.0) }.map(\.0)
        #expect(ids(try db.objects(Person.self).filter("age > 50").sorted(by: \.age).prefix(5)) == Array(sorted.prefix(5)))
    }
}
