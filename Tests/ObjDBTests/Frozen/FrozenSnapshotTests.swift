import Foundation
import Testing
@testable @_spi(Implementation) import ObjDB
import ObjDBTestModels

/// Frozen databases, objects and collections. Cases follow realm-swift's
/// `RealmSwift/Tests/ObjectTests.swift` (`testIsFrozen`, `testFreezingFrozenObjectReturnsSelf`,
/// `testFreezeDoesNotChangeObject`, `testThaw`, `testThawDeleted`, `testThawPreviousVersion`),
/// `ResultsTests.swift` (`testFreeze`, `testFrozenResultsDoNotUpdate`, `testQueryFrozenResults`),
/// `ListTests.swift` (`testFrozenListsDoNotUpdate`) and `RealmTests.swift` (`testFreezeRealm`,
/// `testThawRealm`).
@Suite(.serialized)
struct FrozenSnapshotTests {
    let directory = TemporaryDirectory()

    /// A database with `count` people, opened in the caller's isolation domain.
    func populated(_ count: Int = 5, isolation: isolated (any Actor)? = #isolation) throws -> Database {
        let db = try Database(configuration: directory.configuration([Person.self]))
        try db.write {
            for id in 1...count { try db.add(person(id, "P\(id)", age: id * 10)) }
        }
        return db
    }

    // RealmTests testFreezeRealm: a frozen database keeps its version while the live one moves.
    @Test func aFrozenDatabaseKeepsItsVersion() throws {
        let db = try populated()
        let frozenDB = db.freeze()
        #expect(frozenDB.isFrozen)
        #expect(!db.isFrozen)
        #expect(frozenDB.freeze() === frozenDB)
        #expect(db.freeze() === frozenDB)  // the same version gives the same frozen database
        try db.write { try db.add(person(6, "P6")) }
        #expect(db.objects(Person.self).count == 6)
        #expect(frozenDB.objects(Person.self).count == 5)
        #expect(frozenDB.refresh() == false)
        #expect(frozenDB.objects(Person.self).count == 5)
        #expect(frozenDB.object(ofType: Person.self, forPrimaryKey: 6) == nil)
        #expect(frozenDB.object(ofType: Person.self, forPrimaryKey: 3)?.name == "P3")
        #expect(db.freeze() !== frozenDB)  // a new version
    }

    // RealmTests testThawRealm: thawing gives the live instance of this actor.
    @MainActor @Test func thawingADatabaseGivesTheLiveInstanceOfThisActor() throws {
        let db = try populated()
        let frozenDB = db.freeze()
        try db.write { try db.add(person(6, "P6")) }
        let live = frozenDB.thaw()
        #expect(!live.isFrozen)
        #expect(live === db)
        #expect(live.objects(Person.self).count == 6)
        #expect(db.thaw() === db)
    }

    // ObjectTests testIsFrozen, testFreezingFrozenObjectReturnsSelf, testFreezeDoesNotChangeObject.
    @Test func aFrozenObjectKeepsItsValues() throws {
        let db = try populated()
        let ann = try #require(db.object(ofType: Person.self, forPrimaryKey: 1))
        let frozen = ann.freeze()
        #expect(frozen.isFrozen)
        #expect(!ann.isFrozen)
        #expect(frozen.freeze() === frozen)
        #expect(frozen !== ann)
        try db.write { ann.name = "Ann"; ann.age = 99 }
        #expect(ann.name == "Ann")
        #expect(frozen.name == "P1")
        #expect(frozen.age == 10)
        #expect(frozen.database?.isFrozen == true)
        // Two objects frozen at one version share one frozen database.
        let bob = try #require(db.object(ofType: Person.self, forPrimaryKey: 2)).freeze()
        let again = try #require(db.object(ofType: Person.self, forPrimaryKey: 1)).freeze()
        #expect(bob.database === again.database)
        #expect(again.name == "Ann")
    }

    // ObjectTests testThaw, testThawPreviousVersion, testThawDeleted.
    @MainActor @Test func thawingAnObjectGivesItsNewestValuesOrNil() throws {
        let db = try populated()
        let ann = try #require(db.object(ofType: Person.self, forPrimaryKey: 1))
        let bob = try #require(db.object(ofType: Person.self, forPrimaryKey: 2))
        let frozenAnn = ann.freeze()
        let frozenBob = bob.freeze()
        try db.write {
            ann.name = "Ann"
            db.delete(bob)
        }
        let thawed = try #require(frozenAnn.thaw())
        #expect(!thawed.isFrozen)
        #expect(thawed.name == "Ann")
        #expect(thawed.database === db)
        try db.write { thawed.age = 1 }  // writable through this context's database
        #expect(ann.age == 1)
        #expect(frozenBob.thaw() == nil)
        #expect(frozenBob.name == "P2")  // still readable in its version
        #expect(ann.thaw() === ann)
    }

    // Outside any actor, thaw() opens an instance of its own: nothing tells which instance of
    // a queue or a task the caller may use.
    @Test func offTheMainThreadThawingOpensAnInstance() async throws {
        let configuration = directory.configuration([Person.self])
        let thawed = try await Task.detached { () -> Bool in
            let db = try Database(configuration: configuration)
            try db.write { try db.add(person(1, "Ann")) }
            let frozen = db.freeze()
            let live = frozen.thaw()
            return live !== db && !live.isFrozen && live.objects(Person.self).count == 1
        }.value
        #expect(thawed)
    }

    // A live instance that reads an older version is refreshed by thaw(): it sees what was frozen.
    @MainActor @Test func thawingRefreshesAnOlderInstance() async throws {
        let db = try populated()
        #expect(db.objects(Person.self).count == 5)  // reads this version from now on
        let configuration = directory.configuration([Person.self])
        let frozen = try await Task.detached { () -> FrozenResults<Person> in
            let other = try Database(configuration: configuration)
            try other.write { try other.add(person(6, "P6")) }
            return other.objects(Person.self).where { $0.id == 6 }.freeze()
        }.value
        let six = try #require(frozen.first)
        let thawed = try #require(six.thaw())
        #expect(thawed.database === db)
        #expect(thawed.name == "P6")
    }

    // ResultsTests testFreeze, testFrozenResultsDoNotUpdate.
    @Test func frozenResultsDoNotUpdate() throws {
        let db = try populated()
        let adults = db.objects(Person.self).where { $0.age >= 30 }.sorted(byKeyPath: "age", ascending: false)
        let frozen = adults.freeze()
        #expect(frozen.isFrozen)
        #expect(!adults.isFrozen)
        try db.write {
            try db.add(person(6, "P6", age: 60))
            db.objects(Person.self).filter { $0.id == 3 }.forEach { $0.age = 1 }
        }
        #expect(adults.map(\.id) == [6, 5, 4])
        #expect(frozen.count == 3)
        #expect(frozen.map(\.id) == [5, 4, 3])
        #expect(frozen[2].age == 30)
        #expect(frozen.first?.id == 5)
        #expect(frozen.last?.id == 3)
        #expect(frozen.allSatisfy { $0.isFrozen })
        #expect(frozen.description == "Frozen Results<Person> (3 objects)")
    }

    // ResultsTests testQueryFrozenResults: queries on frozen results read the frozen version.
    @Test func queriesOnFrozenResultsReadTheFrozenVersion() throws {
        let db = try populated()
        let frozen = db.objects(Person.self).freeze()
        try db.write { db.delete(db.objects(Person.self)) }
        #expect(db.objects(Person.self).isEmpty)
        #expect(frozen.count == 5)
        #expect(try frozen.filter("age > %@", 25).map(\.id) == [3, 4, 5])
        #expect(frozen.where { $0.name == "P2" }.map(\.id) == [2])
        #expect(frozen.sorted(byKeyPath: "age", ascending: false).first?.id == 5)
        #expect(frozen.sorted(by: \.name).map(\.id) == [1, 2, 3, 4, 5])
        #expect(frozen.sum(of: \.age) == 150)
        #expect(frozen.max(ofProperty: "age") == 50)
        #expect(frozen.average(ofProperty: "age") == 30)
        #expect(frozen.where { $0.age > 20 }.count == 3)
        let p4 = try #require(frozen.filter("id == 4").first)
        #expect(frozen.index(of: p4) == 3)
        #expect(throws: ObjDBError.self) { try frozen.filter("nosuch > 1") }
        let live = try #require(frozen.thaw())
        #expect(!live.isFrozen)
        #expect(live.isEmpty)
    }

    // ListTests testFrozenListsDoNotUpdate; the same for sets, maps and linking objects.
    @Test func frozenCollectionsOfAnObjectDoNotUpdate() throws {
        let db = try directory.open([Owner.self, Pet.self, Address.self, Location.self])
        let ann = owner(1, "Ann")
        ann.pets.append(contentsOf: [pet(1, "Rex"), pet(2, "Tom")])
        ann.tags.append(contentsOf: ["a", "b"])
        ann.nicknames.insert("Annie")
        ann.scores["x"] = 1.5
        try db.write { try db.add(ann) }
        let rex = try #require(db.object(ofType: Pet.self, forPrimaryKey: 1))
        let pets = ann.pets.freeze()
        let tags = ann.tags.freeze()
        let nicknames = ann.nicknames.freeze()
        let scores = ann.scores.freeze()
        let owners = rex.owners.freeze()
        #expect(ann.pets.isFrozen == false)
        try db.write {
            ann.pets.removeAll()
            ann.tags.append("c")
            ann.nicknames.insert("A")
            ann.scores["x"] = 9
            ann.scores["y"] = 2
        }
        #expect(ann.pets.isEmpty)
        #expect(pets.map(\.name) == ["Rex", "Tom"])
        #expect(pets.isFrozen)
        #expect(pets.where { $0.name == "Tom" }.count == 1)
        #expect(tags.map { $0 } == ["a", "b"])
        #expect(nicknames.count == 1 && nicknames.first == "Annie")
        #expect(scores["x"] == 1.5)
        #expect(scores["y"] == nil)
        #expect(scores.keys == ["x"])
        #expect(owners.map(\.name) == ["Ann"])
        #expect(rex.owners.isEmpty)
        #expect(ann.pets.freeze().isEmpty)
        // A frozen object's collections are frozen too, and freeze to the same version.
        let frozenAnn = ann.freeze()
        #expect(frozenAnn.tags.isFrozen)
        #expect(frozenAnn.tags.freeze().map { $0 } == ["a", "b", "c"])
        #expect(try #require(frozenAnn.pets.thaw()).isFrozen == false)
        #expect(pets.thaw()?.isEmpty == true)
    }

    // Frozen collections are Sendable: read on several threads at once, each read its own view.
    @Test func frozenResultsAreReadableFromManyThreadsAtOnce() async throws {
        let db = try populated(200)
        let frozen = db.objects(Person.self).where { $0.age > 500 }.freeze()
        try db.write { db.delete(db.objects(Person.self)) }
        let sums = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<4 { group.addTask { frozen.reduce(0) { $0 + ($1.age ?? 0) } } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let expected = (51...200).reduce(0) { $0 + $1 * 10 }
        #expect(sums == [expected, expected, expected, expected])
    }

    // A frozen version pins one read transaction, shared by everything frozen at it.
    @Test func everythingFrozenAtOneVersionSharesOneTransaction() throws {
        let db = try populated()
        let results = db.objects(Person.self).freeze()
        let object = try #require(db.object(ofType: Person.self, forPrimaryKey: 1)).freeze()
        let frozenDB = db.freeze()
        #expect(results.source.version === frozenDB.frozenVersion)
        #expect(object.database === frozenDB)
        #expect(results.source.version.transaction === db.snapshot)
    }
}
