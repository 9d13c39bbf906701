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

    /// Realm holds an origin once per link (realm-core's backlink columns store one entry per
    /// link; realm-swift `LinkingObjectsTests`): an owner listing rex twice is two owners, and
    /// `count`, `@count`, subqueries and filters over linking objects count links.
    @Test func linkingObjectsHoldAnOriginOncePerLink() throws {
        let db = try directory.open([Owner.self])
        let rex = pet(10, "Rex")
        let fido = pet(11, "Fido")
        let ann = owner(1, "Ann")
        let bob = owner(2, "Bob")
        ann.pets.append(objectsIn: [rex, fido, rex])         // rex twice
        bob.pets.append(rex)
        ann.favorite = rex                                   // a to-one link links once
        try db.write {
            try db.add(ann)
            try db.add(bob)
        }
        #expect(rex.owners.map(\.name) == ["Ann", "Ann", "Bob"])
        #expect(fido.owners.map(\.name) == ["Ann"])
        #expect(rex.fans.count == 1)
        #expect(try rex.owners.filter("name == 'Ann'").count == 2)
        let pets = db.objects(Pet.self)
        #expect(try pets.filter("owners.@count == 3").map(\.name) == ["Rex"])
        #expect(try pets.filter("owners.@sum.id == 4").map(\.name) == ["Rex"])      // 1 + 1 + 2
        #expect(try pets.filter("owners.@avg.id == 1").map(\.name) == ["Fido"])
        #expect(try pets.filter("SUBQUERY(owners, $o, $o.name == 'Ann').@count == 2").map(\.name) == ["Rex"])
        #expect(try pets.filter("ANY owners.name == 'Bob'").map(\.name) == ["Rex"])
        try db.write { ann.pets.remove(at: 0) }              // one of Ann's two links goes
        #expect(rex.owners.map(\.name) == ["Ann", "Bob"])
        #expect(try pets.filter("owners.@count == 2").map(\.name) == ["Rex"])
    }
}
