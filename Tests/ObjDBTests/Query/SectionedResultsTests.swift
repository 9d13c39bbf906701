import Foundation
#if canImport(UIKit)
import UIKit  // IndexPath(item:section:) on Apple platforms
#elseif canImport(AppKit)
import AppKit  // IndexPath(item:section:) on Apple platforms
#endif
import Testing
@testable import ObjDB
import ObjDBTestModels

extension Person {
    /// The first letter of the name: a computed key that reads `name`.
    var initial: String { String(name.prefix(1)) }
}

/// `Results.sectioned(by:)`: sections, keys, subscripts and the programmer errors. Cases follow
/// realm-swift's `SectionedResultsTests` (named in each), with `Person.name` for its `stringCol`.
@Suite(.serialized)
struct SectionedResultsTests {
    let directory = TemporaryDirectory()

    /// realm-swift's `createObjects()`: banana, box, apple, chalk (ids 1…4, ages 10…40).
    func fruit() throws -> Database {
        let db = try directory.open([Person.self])
        try db.write {
            for (index, name) in ["banana", "box", "apple", "chalk"].enumerated() {
                try db.add(person(index + 1, name, age: (index + 1) * 10))
            }
        }
        return db
    }

    func names(_ section: ResultsSection<String, Person>) -> [String] { section.map(\.name) }

    // realm-swift: testCreationFromResults
    @Test func creationFromResults() throws {
        let db = try fruit()
        let results = db.objects(Person.self)
        for ascending in [true, false] {
            let keys = ascending ? ["a", "b", "c"] : ["c", "b", "a"]
            let byKeyPath = results.sectioned(by: \.initial, ascending: ascending)
            #expect(byKeyPath.count == 3)
            #expect(byKeyPath.map(\.key) == keys)
            let byDescriptors = results.sectioned(by: \.initial, sortDescriptors: [SortDescriptor(keyPath: "name", ascending: ascending)])
            #expect(byDescriptors.count == 3)
            #expect(byDescriptors.map(\.key) == keys)
            let byBlock = results.sectioned(by: { String($0.name.prefix(1)) }, sortDescriptors: [SortDescriptor(keyPath: "name", ascending: ascending)])
            #expect(byBlock.count == 3)
            #expect(byBlock.map(\.key) == keys)
        }
    }

    // realm-swift: testAllKeys
    @Test func allKeys() throws {
        let db = try fruit()
        #expect(db.objects(Person.self).sectioned(by: \.initial, ascending: true).allKeys == ["a", "b", "c"])
    }

    // realm-swift: testSubscript
    @Test func subscripts() throws {
        let db = try fruit()
        let sections = db.objects(Person.self).sectioned(by: \.initial, ascending: true)
        let section = sections[0]
        #expect(section.count == 1)
        #expect(section[0].name == "apple")
        #expect(sections[IndexPath(item: 0, section: 0)].name == "apple")
        #expect(sections[IndexPath(item: 1, section: 1)].name == "box")
        #expect(names(sections[1]) == ["banana", "box"])
        #expect(sections[2].key == "c" && sections[2].id == "c")
    }

    @Test func iterationGivesEverySectionAndEveryObjectOnce() throws {
        let db = try fruit()
        let sections = db.objects(Person.self).sectioned(by: \.initial)
        var seen: [String] = []
        for section in sections {
            for person in section { seen.append("\(section.key):\(person.name)") }
        }
        #expect(seen == ["a:apple", "b:banana", "b:box", "c:chalk"])
        #expect(sections.map(\.count) == [1, 2, 1])
        #expect(sections.reduce(0) { $0 + $1.count } == db.objects(Person.self).count)
    }

    @Test func blockKeysGroupByDecade() throws {
        let db = try directory.open([Person.self])
        try db.write {
            for (id, age) in [(1, 34), (2, 7), (3, 31), (4, nil), (5, 12), (6, 19)] { try db.add(person(id, "p\(id)", age: age)) }
        }
        let byDecade = db.objects(Person.self).sectioned(by: { ($0.age ?? 0) / 10 * 10 }, sortDescriptors: [SortDescriptor(keyPath: "age")])
        #expect(byDecade.allKeys == [0, 10, 30])
        #expect(byDecade.map { $0.map(\.id) } == [[4, 2], [5, 6], [3, 1]])
        #expect(byDecade[IndexPath(item: 1, section: 2)].id == 1)
    }

    @Test func theKeyPathSortComesBeforeTheResultsOwnSort() throws {
        let db = try directory.open([Person.self])
        try db.write {
            for (id, name, age) in [(1, "bo", 5), (2, "al", 9), (3, "bo", 1), (4, "al", 3)] { try db.add(person(id, name, age: age)) }
        }
        let sections = db.objects(Person.self).sorted(by: \.age, ascending: false).sectioned(by: \.name)
        #expect(sections.allKeys == ["al", "bo"])
        #expect(sections.map { $0.map(\.id) } == [[2, 4], [1, 3]])
    }

    @Test func filteredResultsSectionOnlyTheirObjects() throws {
        let db = try fruit()
        let sections = try db.objects(Person.self).filter("age >= 20").sectioned(by: \.initial)
        #expect(sections.allKeys == ["a", "b", "c"])
        #expect(sections.map { $0.map(\.name) } == [["apple"], ["box"], ["chalk"]])
    }

    @Test func emptyResultsHaveNoSections() throws {
        let db = try directory.open([Person.self])
        let sections = db.objects(Person.self).sectioned(by: \.initial)
        #expect(sections.isEmpty && sections.count == 0 && sections.allKeys == [])
        #expect(sections.first == nil)
        #expect(Array(sections).isEmpty)
    }

    @Test func oneKeyForAllIsOneSection() throws {
        let db = try fruit()
        let sections = db.objects(Person.self).sectioned(by: { _ in "all" }, sortDescriptors: [SortDescriptor(keyPath: "name")])
        #expect(sections.allKeys == ["all"])
        #expect(names(sections[0]) == ["apple", "banana", "box", "chalk"])
    }

    /// A block that does not follow the sort still gives each key one section, in the order of
    /// its first object (as realm-core groups by key).
    @Test func aKeyInconsistentWithTheSortStillHasOneSection() throws {
        let db = try fruit()
        // Sorted by age: banana 10, box 20, apple 30, chalk 40; keyed by even and odd id.
        let sections = db.objects(Person.self).sectioned(by: { $0.id % 2 == 0 ? "even" : "odd" }, sortDescriptors: [SortDescriptor(keyPath: "age")])
        #expect(sections.allKeys == ["odd", "even"])
        #expect(names(sections[0]) == ["banana", "apple"])
        #expect(names(sections[1]) == ["box", "chalk"])
        #expect(sections[IndexPath(item: 1, section: 1)].name == "chalk")
    }

    @Test func sectionsAreLiveAndFoundByKey() throws {
        let db = try fruit()
        let sections = db.objects(Person.self).sectioned(by: \.initial)
        let b = sections[1]
        #expect(b.count == 2 && !b.isInvalidated)
        try db.write {
            if let apple = db.object(ofType: Person.self, forPrimaryKey: 3) { db.delete(apple) }
            try db.add(person(9, "bee"))
        }
        // "b" is section 0 now, with three objects.
        #expect(sections.allKeys == ["b", "c"])
        #expect(names(b) == ["banana", "bee", "box"])
        try db.write { for name in ["banana", "bee", "box"] { db.delete(db.objects(Person.self).where { $0.name == name }) } }
        #expect(b.count == 0 && b.isInvalidated)
        #expect(sections.allKeys == ["c"])
    }

    @Test func sectionedResultsOfADeletedObjectsListAreInvalidated() throws {
        let db = try directory.open([Owner.self, Pet.self])
        let owner = Owner()
        owner.id = 1
        try db.write {
            try db.add(owner)
            for (index, name) in ["rex", "rolf", "fido"].enumerated() {
                let pet = Pet()
                pet.id = index
                pet.name = name
                owner.pets.append(pet)
            }
        }
        let sections = owner.pets.sorted(byKeyPath: "name").sectioned(by: { String($0.name.prefix(1)) }, sortDescriptors: [SortDescriptor(keyPath: "name")])
        #expect(sections.allKeys == ["f", "r"] && !sections.isInvalidated)
        let r = sections[1]
        try db.write { db.delete(owner) }
        #expect(sections.isInvalidated && r.isInvalidated)
    }

    @Test func descriptionsNameTheClassAndCounts() throws {
        let db = try fruit()
        let sections = db.objects(Person.self).sectioned(by: \.initial)
        #expect(sections.description == "SectionedResults<Person> (3 sections)")
        #expect(sections[1].description == "ResultsSection<Person> \"b\" (2 objects)")
    }

    // Programmer errors, as Realm throws them.

    @Test func noSortDescriptorIsAProgrammerError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open([Person.self])
            _ = db.objects(Person.self).sectioned(by: { $0.name }, sortDescriptors: [])
        }
        #expect(standardError(result).contains("ObjDB: sectioned(by:sortDescriptors:) was given no sort descriptor"))
    }

    @Test func aKeyPathThatIsNotTheFirstSortKeyIsAProgrammerError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open([Person.self])
            _ = db.objects(Person.self).sectioned(by: \.name, sortDescriptors: [SortDescriptor(keyPath: "age")])
        }
        #expect(standardError(result).contains("the section key path must be the first sort key"))
    }

    @Test func observingBlockSectionsOnAQueueIsAProgrammerError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open([Person.self])
            let sections = db.objects(Person.self).sectioned(by: { $0.name }, sortDescriptors: [SortDescriptor(keyPath: "name")])
            _ = sections.observe(on: DispatchQueue(label: "sections")) { _ in }
        }
        #expect(standardError(result).contains("observe(on:) was called on sections by a block key"))
    }

    @Test func aSectionIndexOutOfRangeIsAProgrammerError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open([Person.self])
            _ = db.objects(Person.self).sectioned(by: \.name)[0]
        }
        #expect(standardError(result).contains("ObjDB: SectionedResults index 0 out of range 0..<0"))
    }
}
