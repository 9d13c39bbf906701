import Foundation
import Testing
@_spi(Inspection) @testable import ObjDB
import ObjDBTestModels

/// Edge cases of buffered collections, graph upserts and embedded ownership.
struct RelationshipEdgeCaseTests {
    let directory = TemporaryDirectory()

    @Test func queriesAndLinkingObjectsSeeBufferedCollectionEdits() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1, "Ann")
        let rex = pet(10, "Rex")
        try db.write { try db.add([ann]); try db.add(rex) }
        try db.write {
            let withPets = db.objects(Owner.self).where { $0.pets.count > 0 }
            let owners = rex.owners
            let rexInList = ann.pets.where { $0.name == "Rex" }
            #expect(withPets.count == 0 && owners.count == 0 && rexInList.count == 0)
            ann.pets.append(rex)                           // buffered: no row written yet
            #expect(withPets.count == 1)
            #expect(owners.count == 1)
            #expect(rexInList.count == 1)
            let raw = try #require(db.dynamicObjects("Owner").first)
            ann.tags.append("x")
            #expect((raw["tags"] as? [Any?])?.count == 1)
        }
    }

    @Test func createUpdatesAddNestedUnmanagedObjects() throws {
        let db = try directory.open([Owner.self])
        try db.write { try db.add(pet(1, "Rex")) }
        try db.write {
            try db.create(Pet.self, value: ["id": 1, "owner": ["id": 7, "name": "Ann"]], update: .modified)
            try db.create(Owner.self, value: ["id": 8, "pets": [["id": 5, "name": "Bo"]]], update: .modified)
            try db.create(Owner.self, value: ["id": 8, "pets": [["id": 6, "name": "Cy"]], "address": ["city": "Oslo"]], update: .modified)
        }
        let rex = try #require(db.object(ofType: Pet.self, forPrimaryKey: 1))
        #expect(rex.owner?.id == 7)
        #expect(rex.owner?.name == "Ann")
        let eight = try #require(db.object(ofType: Owner.self, forPrimaryKey: 8))
        #expect(eight.pets.map(\.id) == [6])
        #expect(eight.address?.city == "Oslo")
        #expect(db.objects(Pet.self).count == 3)             // 1, 5 and 6
    }

    @Test func upsertingAGraphWithEmbeddedObjectsAndRepeatedKeys() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1, "Ann")
        ann.address = address("Oslo")
        try db.write { try db.add(ann, update: .modified) }   // the address has no primary key
        #expect(ann.address?.city == "Oslo")
        let again = owner(1, "Ann")
        again.address = address("Bergen")
        again.pets.append(pet(5, "x"))
        again.favorite = pet(5, "y")                         // the same key twice: one pet
        try db.write { try db.add(again, update: .modified) }
        #expect(db.objects(Pet.self).count == 1)
        // One stored pet, with the values of one of the two instances.
        #expect(["x", "y"].contains(db.object(ofType: Pet.self, forPrimaryKey: 5)?.name ?? ""))
        #expect(again.favorite?.id == 5 && again.pets.first?.id == 5)
        #expect(db.storedCount("Address") == 1)              // the replaced address went
        #expect(again.address?.city == "Bergen")
    }

    @Test func embeddedObjectsAddedAndDroppedBeforeTheFlushAreDeleted() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1)
        try db.write { try db.add(ann) }
        try db.write {
            ann.pastAddresses.append(address("Rome"))
            ann.pastAddresses.removeAll()
        }
        #expect(db.storedCount("Address") == 0)
        try db.write {
            ann.pastAddresses.append(address("A"))
            ann.pastAddresses[0] = address("B")
        }
        #expect(db.storedCount("Address") == 1)
        #expect(ann.pastAddresses.map(\.city) == ["B"])
    }

    @Test func anEmbeddedObjectInABufferedListAlreadyHasAParent() async {
        await #expect(processExitsWith: .failure) {
            let directory = TemporaryDirectory()
            let db = try directory.open([Owner.self])
            let a = owner(1)
            let b = owner(2)
            try db.write { try db.add([a, b]) }
            try db.write {
                a.pastAddresses.append(address("Rome"))
                b.pastAddresses.append(a.pastAddresses[0])   // owned by a's buffered list
            }
        }
    }
}

extension RelationshipEdgeCaseTests {
    /// Once added, a graph with cycles holds no references of its own: the stored links answer.
    @Test func addedGraphsWithCyclesAreFreed() throws {
        let db = try directory.open([Owner.self])
        weak var addedOwner: Owner?
        weak var addedPet: Pet?
        weak var addedFriend: Owner?
        try {
            let ann = owner(1, "Ann")
            let bob = owner(2, "Bob")
            let rex = pet(1, "Rex")
            ann.best = ann
            ann.pets.append(rex)
            ann.favorite = rex
            ann.friends.insert(bob)
            ann.petsByName["rex"] = rex
            bob.friends.insert(ann)
            rex.owner = ann
            try db.write { try db.add(ann) }
            addedOwner = ann
            addedPet = rex
            addedFriend = bob
            #expect(ann.best?.name == "Ann")
        }()
        #expect(addedOwner == nil)
        #expect(addedPet == nil)
        #expect(addedFriend == nil)
        let stored = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        #expect(stored.best?.name == "Ann")
        #expect(stored.favorite?.owner?.name == "Ann")
        #expect(stored.pets.map(\.name) == ["Rex"])
        #expect(stored.petsByName["rex"]??.name == "Rex")
        #expect(stored.friends.map(\.name) == ["Bob"])
        #expect(db.object(ofType: Owner.self, forPrimaryKey: 2)?.friends.map(\.name) == ["Ann"])
    }
}

/// Edge cases of queries found in review.
struct QueryEdgeCaseTests {
    let directory = TemporaryDirectory()

    @Test func linkKeyPathsOfDifferentClassesDoNotCompare() throws {
        let db = try directory.open([Owner.self])
        let a = owner(1)
        a.favorite = pet(1)
        a.best = a
        try db.write { try db.add(a) }
        let error = try #require(throws: ObjDBError.self) { try db.objects(Owner.self).filter("favorite == best") }
        #expect(error.code == .invalidQuery)
        #expect(try db.objects(Owner.self).filter("best == best").count == 1)
    }

    @Test func keyPathsThroughOptionalLinksNameNoProperty() {
        #expect(KeyPathNames.name(of: \Pet.owner?.id) == nil)
        #expect(KeyPathNames.name(of: \Pet.owner) == "owner")
        #expect(KeyPathNames.name(of: \Person.age) == "age")
    }

    @Test func halfOpenRangesHoldPerElement() throws {
        let db = try directory.open([Owner.self])
        let a = owner(1)
        a.numbers.append(contentsOf: [1, 10])
        let b = owner(2)
        b.numbers.append(contentsOf: [3])
        try db.write { try db.add([a, b]) }
        let owners = db.objects(Owner.self)
        #expect(owners.where { $0.numbers.elements.contains(3..<5) }.map(\.id) == [2])
        #expect(owners.where { $0.numbers.elements.contains(3...5) }.map(\.id) == [2])
        #expect(owners.where { $0.id.contains(1..<2) }.map(\.id) == [1])
    }

    @Test func narrowIntegerSumsClampInsteadOfVanishing() throws {
        let db = try directory.open([AllTypes.self])
        try db.write {
            for id in 1...2 {
                let o = AllTypes()
                o.id = id
                o.int8 = 100
                try db.add(o)
            }
        }
        let all = db.objects(AllTypes.self)
        #expect(all.sum(of: \.int8) == Int8.max)
        #expect(all.sum(ofProperty: "int8") as Int == 200)
    }

    @Test func indexedDateRangesSkipNaN() throws {
        let db = try directory.open([DatedEvent.self])
        try db.write {
            for (id, seconds) in [(1, 10.0), (2, .nan), (3, -.nan), (4, .infinity), (5, -5.0)] {
                let event = DatedEvent()
                event.id = id
                event.when = Date(timeIntervalSinceReferenceDate: seconds)
                try db.add(event)
            }
        }
        let events = db.objects(DatedEvent.self)
        let zero = Date(timeIntervalSinceReferenceDate: 0)
        #expect(try events.filter("when > %@", zero).queryPlan.contains("index range"))
        #expect(try events.filter("when > %@", zero).map(\.id) == [1, 4])
        #expect(try events.filter("when < %@", zero).map(\.id) == [5])
        #expect(try events.filter("when > %@", zero).count == 2)
        #expect(try events.filter("when < %@", zero).count == 1)
    }
}

/// An event with an indexed date.
final class DatedEvent: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(indexed: true) var when: Date = Date(timeIntervalSinceReferenceDate: 0)
}
