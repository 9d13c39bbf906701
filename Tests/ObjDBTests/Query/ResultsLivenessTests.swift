import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Results are lazy, cached per version, and live.
struct ResultsLivenessTests {
    let directory = TemporaryDirectory()

    @Test func queriesEvaluateLazilyAndFollowNewVersions() throws {
        let db = try directory.open([Person.self])
        try db.write { for id in 1...10 { try db.add(person(id, "P\(id)", age: id * 10)) } }
        let old = db.objects(Person.self).where { $0.age >= 50 }
        #expect(old.cachedKeys == nil)                       // nothing evaluated yet
        #expect(old.count == 6)
        let keys = try #require(old.cachedKeys)
        #expect(old.map(\.id) == [5, 6, 7, 8, 9, 10])
        #expect(old.cachedKeys == keys)                      // same version: evaluated once
        try db.write { try db.add(person(11, "P11", age: 99)) }
        #expect(old.cachedKeys == nil)                       // a new version invalidates the cache
        #expect(old.count == 7)
        // Inside a write transaction the results see its uncommitted changes.
        try db.write {
            db.delete(db.objects(Person.self).where { $0.id == 5 })
            #expect(old.map(\.id) == [6, 7, 8, 9, 10, 11])
        }
        #expect(old.count == 6)                              // begins this instance's snapshot
        // Another instance's commit shows after refresh().
        let other = try directory.open([Person.self])
        try other.write { try other.add(person(12, "P12", age: 70)) }
        #expect(old.count == 6)
        #expect(db.refresh())
        #expect(old.count == 7)
    }

    @Test func chainedCallsComposeIntoOneQuery() throws {
        let db = try directory.open([Person.self])
        try db.write { for id in 1...20 { try db.add(person(id, id % 2 == 0 ? "even" : "odd", age: id)) } }
        let chained = db.objects(Person.self).where { $0.age > 5 }.sorted(by: \.age, ascending: false).where { $0.name == "even" }.prefix(3)
        // Both filters joined in one AND, not nested results.
        guard case .and(let operands)? = chained.query.filter else {
            Issue.record("expected the two filters joined with AND, got \(String(describing: chained.query.filter))")
            return
        }
        #expect(operands.count == 2)
        #expect(chained.query.sort.map(\.keyPath) == ["age"])
        #expect(chained.query.limit == 3)
        #expect(chained.map(\.id) == [20, 18, 16])
    }

    @Test func unsortedPrefixStopsAtTheLimit() throws {
        let db = try directory.open([Person.self])
        try db.write { for id in 1...1_000 { try db.add(person(id, "P", age: id)) } }
        let people = db.objects(Person.self).where { $0.age > 10 }
        // Evaluating with a limit reads only as far as the matches it needs.
        #expect(people.prefix(5).evaluateKeys(limitOverride: nil) == [11, 12, 13, 14, 15])
        #expect(people.evaluateKeys(limitOverride: 1) == [11])
        #expect(people.first?.id == 11)
        #expect(people.cachedKeys == nil)                    // `first` did not evaluate everything
    }
}
