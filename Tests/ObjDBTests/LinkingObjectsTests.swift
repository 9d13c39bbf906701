import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Linking objects follow every change of the links they invert.
struct LinkingObjectsTests {
    let directory = TemporaryDirectory()

    @Test func countsFollowAddsReassignmentsRemovalsAndDeletes() throws {
        let db = try directory.open([Owner.self])
        let rex = pet(10, "Rex")
        let ann = owner(1, "Ann")
        let bob = owner(2, "Bob")
        ann.pets.append(rex)
        try db.write {
            try db.add(ann)
            try db.add(bob)
        }
        #expect(rex.owners.map(\.name) == ["Ann"])
        try db.write { bob.pets.append(rex) }              // added through another list
        #expect(rex.owners.map(\.name) == ["Ann", "Bob"])
        try db.write { ann.pets = List([pet(11)]) }        // reassigning the whole list
        #expect(rex.owners.map(\.name) == ["Bob"])
        try db.write { ann.favorite = rex }
        #expect(rex.fans.map(\.name) == ["Ann"])
        try db.write { bob.favorite = rex; ann.favorite = nil }   // reassigning a to-one link
        #expect(rex.fans.map(\.name) == ["Bob"])
        try db.write { bob.pets.removeAll() }
        #expect(rex.owners.isEmpty)
        try db.write { db.delete(bob) }
        #expect(rex.fans.isEmpty)
        #expect(!rex.isInvalidated)
    }

    @Test func changesInsideTheWriteTransactionAreVisible() throws {
        let db = try directory.open([Owner.self])
        let rex = pet(10)
        let ann = owner(1)
        try db.write {
            try db.add(ann)
            try db.add(rex)
            ann.pets.append(rex)
            #expect(rex.owners.count == 1)                  // buffered list changes are written first
            ann.pets.removeAll()
            #expect(rex.owners.isEmpty)
        }
    }

    @Test func readingDoesNotScaleWithTheNumberOfOrigins() throws {
        let db = try directory.open([Owner.self])
        let rex = pet(10)
        try db.write {
            try db.add(rex)
            for id in 1...2_000 {
                let o = owner(id)
                if id % 200 == 0 { o.pets.append(rex) }
                try db.add(o)
            }
        }
        #expect(rex.owners.map(\.id) == [200, 400, 600, 800, 1000, 1200, 1400, 1600, 1800, 2000])
        // The answer comes from the backlink table: exactly those ten entries exist for rex.
        let entries = try db.backlinkEntries("Owner", "pets").filter { $0.0 == rex._objdbKey }
        #expect(entries.count == 10)
    }

    @Test func unmanagedObjectsHaveNoLinkingObjects() {
        let rex = pet(10)
        #expect(rex.owners.isEmpty)
        #expect(rex.owners.propertyName == "pets")
    }

    @Test func linkingObjectsSurviveReopening() throws {
        do {
            let db = try directory.open([Owner.self])
            let rex = pet(10)
            let a = owner(1); a.pets.append(rex)
            let b = owner(2); b.favorite = rex
            try db.write { try db.add([a, b]) }
        }
        let db = try directory.open([Owner.self])
        let rex = try #require(db.object(ofType: Pet.self, forPrimaryKey: 10))
        #expect(rex.owners.map(\.id) == [1])
        #expect(rex.fans.map(\.id) == [2])
    }
}
