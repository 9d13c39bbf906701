import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Frozen sectioned results and sections. Cases follow realm-swift's `SectionedResultsTests`
/// `testFrozen` and `testFrozenSection`.
@Suite(.serialized)
struct SectionedResultsFreezeTests {
    let directory = TemporaryDirectory()

    /// banana, box, apple, chalk (ids 1…4).
    func fruit() throws -> Database {
        let db = try directory.open([Person.self])
        try db.write {
            for (index, name) in ["banana", "box", "apple", "chalk"].enumerated() { try db.add(person(index + 1, name)) }
        }
        return db
    }

    // realm-swift: testFrozen
    @Test func frozenSectionsKeepTheirVersionAndThaw() throws {
        let db = try fruit()
        for ascending in [true, false] {
            let keys = ascending ? ["a", "b", "c"] : ["c", "b", "a"]
            let sections = db.objects(Person.self).sectioned(by: \.initial, ascending: ascending)
            #expect(!sections.isFrozen)
            let frozen = sections.freeze()
            try db.write { try db.add(person(ascending ? 10 : 11, "zebra")) }
            #expect(frozen.isFrozen && frozen[0].isFrozen)
            #expect(frozen.count == 3)
            #expect(frozen.map(\.key) == keys)
            #expect(frozen.freeze().allKeys == keys)
            let thawed = try #require(frozen.thaw())
            #expect(!thawed.isFrozen)
            #expect(thawed.count == 4)
            #expect(thawed.map(\.key) == (ascending ? keys + ["z"] : ["z"] + keys))
            #expect(sections.count == 4)
            try db.write { db.delete(db.objects(Person.self).where { $0.name == "zebra" }) }
        }
    }

    // realm-swift: testFrozenSection
    @Test func aFrozenSectionKeepsItsObjects() throws {
        let db = try fruit()
        let frozen = db.objects(Person.self).sectioned(by: \.initial)[0].freeze()
        try db.write { try db.add(person(5, "avocado")) }
        #expect(frozen.isFrozen && frozen.count == 1 && frozen.key == "a")
        #expect(frozen[0].name == "apple" && frozen[0].isFrozen)
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen && thawed.count == 2 && thawed.key == "a")
        #expect(thawed.map(\.name) == ["apple", "avocado"])
    }

    @Test func freezingReusesTheLayoutAlreadyComputed() throws {
        let db = try fruit()
        var calls = 0
        let sections = db.objects(Person.self).sectioned(by: { person -> String in
            calls += 1
            return String(person.name.prefix(1))
        }, sortDescriptors: [SortDescriptor(keyPath: "name")])
        #expect(sections.count == 3 && calls == 4)
        let frozen = sections.freeze()
        #expect(frozen.allKeys == ["a", "b", "c"] && calls == 4)
    }

    @Test func frozenSectionsOfTheDeletedKeyStayReadable() throws {
        let db = try fruit()
        let sections = db.objects(Person.self).sectioned(by: \.initial)
        let frozenB = sections[1].freeze()
        try db.write { for name in ["banana", "box"] { db.delete(db.objects(Person.self).where { $0.name == name }) } }
        #expect(sections[1].key == "c")
        #expect(frozenB.map(\.name) == ["banana", "box"] && !frozenB.isInvalidated)
        let thawed = try #require(frozenB.thaw())
        #expect(thawed.isEmpty && thawed.isInvalidated)
    }

    @Test func freezingInAWriteIsAProgrammerError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open([Person.self])
            let sections = db.objects(Person.self).sectioned(by: \.name)
            try db.write { _ = sections.freeze() }
        }
        #expect(standardError(result).contains("ObjDB: "))
    }
}
