import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Embedded objects belong to exactly one parent and live and die with it.
struct EmbeddedObjectTests {
    let directory = TemporaryDirectory()

    @Test func embeddedObjectsAreDeletedWithTheirParent() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1)
        ann.address = address("Oslo", latitude: 59.9)
        ann.pastAddresses.append(contentsOf: [address("Rome"), address("Lima", latitude: -12)])
        try db.write { try db.add(ann) }
        #expect(db.storedCount("Address") == 3)
        #expect(db.storedCount("Location") == 2)
        #expect(ann.address?.location?.latitude == 59.9)
        try db.write { db.delete(ann) }
        #expect(db.storedCount("Address") == 0)
        #expect(db.storedCount("Location") == 0)
    }

    @Test func replacingOrRemovingAnEmbeddedObjectDeletesTheOldOne() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1)
        ann.address = address("Oslo", latitude: 1)
        try db.write { try db.add(ann) }
        let old = try #require(ann.address)
        try db.write { ann.address = address("Bergen") }
        #expect(old.isInvalidated)
        #expect(ann.address?.city == "Bergen")
        #expect(db.storedCount("Address") == 1)
        #expect(db.storedCount("Location") == 0)         // the old one's own embedded object went too
        try db.write { ann.pastAddresses.append(address("Rome")) }
        try db.write { ann.pastAddresses.removeAll() }
        try db.write { ann.address = nil }
        #expect(db.storedCount("Address") == 0)
    }

    @Test func movingWithinAListKeepsTheEmbeddedObjects() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1)
        ann.pastAddresses.append(contentsOf: [address("A"), address("B")])
        try db.write { try db.add(ann) }
        try db.write { ann.pastAddresses.move(from: 0, to: 1) }
        #expect(ann.pastAddresses.map(\.city) == ["B", "A"])
        #expect(db.storedCount("Address") == 2)
    }

    @Test func deletingAnEmbeddedObjectRemovesItFromItsParent() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1)
        ann.address = address("Oslo", latitude: 3)
        ann.pastAddresses.append(contentsOf: [address("A"), address("B")])
        try db.write { try db.add(ann) }
        try db.write {
            if let home = ann.address { db.delete(home) }
            db.delete(ann.pastAddresses[0])
        }
        #expect(ann.address == nil)
        #expect(ann.pastAddresses.map(\.city) == ["B"])
        #expect(db.storedCount("Address") == 1)
        #expect(db.storedCount("Location") == 0)
    }

    @Test func changingAnEmbeddedObjectsProperties() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1)
        ann.address = address("Oslo")
        try db.write { try db.add(ann) }
        try db.write { ann.address?.city = "Trondheim" }
        #expect(ann.address?.city == "Trondheim")
        #expect(db.storedCount("Address") == 1)
    }

    @Test func anOwnedEmbeddedObjectCannotBeGivenToAnotherParent() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1)
        ann.address = address("Oslo")
        try db.write { try db.add(ann) }
        let bob = owner(2)
        bob.address = ann.address
        let error = try #require(throws: ObjDBError.self) { try db.write { try db.add(bob) } }
        #expect(error.code == .embeddedObjectOwned)
        #expect(error.message.contains("already belongs"))
        #expect(db.objects(Owner.self).count == 1)
        #expect(ann.address?.city == "Oslo")
    }

    @Test func assigningAnOwnedEmbeddedObjectIsAProgrammerError() async {
        await #expect(processExitsWith: .failure) {
            let directory = TemporaryDirectory()
            let db = try directory.open([Owner.self])
            let ann = owner(1)
            ann.address = address("Oslo")
            let bob = owner(2)
            try db.write { try db.add([ann, bob]) }
            try db.write { bob.address = ann.address }
        }
    }

    @Test func embeddedClassesCannotHaveAPrimaryKey() throws {
        let error = try #require(throws: ObjDBError.self) { try directory.open([KeyedEmbeddedOwner.self]) }
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("primary key"))
    }
}

/// Declares an embedded class with a primary key, which is refused.
final class KeyedEmbedded: EmbeddedObject {
    @Persisted(primaryKey: true) var id: Int = 0
}

/// Links to ``KeyedEmbedded``.
final class KeyedEmbeddedOwner: Object {
    @Persisted var child: KeyedEmbedded?
}
