import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Deleting an object removes the links to it; cascading links delete what they point to.
struct DeleteRuleTests {
    let directory = TemporaryDirectory()

    @Test func deletingATargetNullifiesAndRemovesEveryLink() throws {
        let db = try directory.open([Owner.self])
        let rex = pet(10, "Rex")
        let fido = pet(11, "Fido")
        let ann = owner(1)
        ann.favorite = rex
        ann.pets.append(contentsOf: [rex, fido, rex])
        ann.petsByName["r"] = rex
        ann.petsByName["f"] = fido
        let bob = owner(2)
        bob.friends.insert(ann)
        bob.best = ann
        try db.write { try db.add([ann, bob]) }
        try db.write { db.delete(rex) }
        #expect(ann.favorite == nil)
        #expect(ann.pets.map(\.id) == [11])
        #expect(ann.petsByName.keys == ["f"])
        #expect(try db.backlinkEntries("Owner", "pets").map(\.0) == [fido._objdbKey])
        try db.write { db.delete(ann) }
        #expect(bob.friends.isEmpty)
        #expect(bob.best == nil)
        #expect(db.objects(Pet.self).map(\.id) == [11])   // nullify: pets stay
        #expect(try db.backlinkEntries("Owner", "friends").isEmpty)
        #expect(try db.backlinkEntries("Owner", "best").isEmpty)
    }

    @Test func deletingWithPendingListChangesSeesThem() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1)
        try db.write { try db.add(ann) }
        try db.write {
            let rex = pet(10)
            ann.pets.append(rex)                            // buffered
            db.delete(rex)                                  // must see the buffered link
            #expect(ann.pets.isEmpty)
        }
        #expect(ann.pets.isEmpty)
        #expect(try db.backlinkEntries("Owner", "pets").isEmpty)
    }

    @Test func cascadeDeletesTargetsNothingElseLinksTo() throws {
        let db = try directory.open([Owner.self])
        let shared = pet(10, "Shared")
        let own = pet(11, "Own")
        let ann = owner(1)
        ann.ownedPets.append(contentsOf: [shared, own])
        let bob = owner(2)
        bob.favorite = shared                               // keeps `shared` alive
        try db.write { try db.add([ann, bob]) }
        try db.write { db.delete(ann) }
        #expect(db.objects(Pet.self).map(\.name) == ["Shared"])
        #expect(own.isInvalidated)
        try db.write { db.delete(bob) }                     // `favorite` does not cascade
        #expect(db.objects(Pet.self).count == 1)
    }

    @Test func cascadeFollowsChainsAndStopsAtCycles() throws {
        let db = try directory.open([CascadeNode.self])
        let a = CascadeNode(); a.name = "a"
        let b = CascadeNode(); b.name = "b"
        let c = CascadeNode(); c.name = "c"
        a.next = b; b.next = c; c.next = a                  // a cycle: a → b → c → a
        try db.write { try db.add(a) }
        #expect(db.objects(CascadeNode.self).count == 3)
        // `a` is linked from `c`, but deleting it still removes the link and cascades to b, then c.
        try db.write { db.delete(a) }
        #expect(db.objects(CascadeNode.self).isEmpty)
    }

    @Test func deletingResultsAndDeleteAllClearBacklinks() throws {
        let db = try directory.open([Owner.self])
        let rex = pet(10)
        let ann = owner(1)
        ann.pets.append(rex)
        try db.write { try db.add(ann) }
        try db.write { db.delete(db.objects(Pet.self)) }
        #expect(ann.pets.isEmpty)
        try db.write { ann.pets.append(pet(11)) }
        try db.write { db.deleteAll() }
        #expect(try db.backlinkEntries("Owner", "pets").isEmpty)
        #expect(db.storedCount("Address") == 0)
    }
}

/// A node whose successor is deleted with it.
final class CascadeNode: Object {
    @Persisted var name: String = ""
    @Persisted(deleteRule: .cascade) var next: CascadeNode?
}
