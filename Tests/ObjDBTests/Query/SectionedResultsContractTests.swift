import Foundation
#if canImport(UIKit)
import UIKit  // IndexPath(item:section:) on Apple platforms
#elseif canImport(AppKit)
import AppKit  // IndexPath(item:section:) on Apple platforms
#endif
import Testing
import ObjDB
import ObjDBTestModels

/// The sectioned-results calls of the API contract, compiled against the public API alone (no
/// `@testable`) and run as written there.
struct SectionedResultsContractTests {
    let directory = TemporaryDirectory()

    @Test func theContractCompilesAndRuns() throws {
        let db = try directory.open([Person.self])
        try db.write {
            for (id, name, age) in [(1, "Ann", 34), (2, "Bob", 27), (3, "Abe", 38)] { try db.add(person(id, name, age: age)) }
        }
        let people = db.objects(Person.self)
        let sections: SectionedResults<String, Person> = people.sectioned(by: \.initial, ascending: true)
        let byDecade: SectionedResults<Int, Person> = people.sectioned(by: { ($0.age ?? 0) / 10 * 10 },
                                                                       sortDescriptors: [SortDescriptor(keyPath: "age")])
        #expect(sections.allKeys == ["A", "B"] && sections.count == 2)
        #expect(sections[0].key == "A" && sections[0].count == 2 && sections[0][0].name == "Abe")
        #expect(sections[IndexPath(item: 0, section: 0)].name == "Abe")
        #expect(byDecade.allKeys == [20, 30])
        let section: ResultsSection<String, Person> = sections[1]
        #expect(section.map(\.name) == ["Bob"])
        #expect(!sections.isFrozen && sections.freeze().isFrozen && !sections.isInvalidated)

        var calls: [String] = []
        let token = sections.observe { change in
            switch change {
            case .initial(let s):
                calls.append("initial \(s.count)")
            case .update(let s, let deletions, let insertions, let modifications,
                         let sectionsToInsert, let sectionsToDelete):
                let paths: [IndexPath] = deletions + insertions + modifications
                let indices: IndexSet = sectionsToInsert.union(sectionsToDelete)
                calls.append("update \(s.count) \(paths.count) \(indices.count)")
            case .error(let e):
                calls.append("error \(e)")
            }
        }
        db.refresh()
        try db.write { try db.add(person(4, "Cy", age: 51)) }
        #expect(calls == ["initial 2", "update 3 1 1"])
        token.invalidate()
    }
}
