import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// To-one links and adding object graphs.
struct LinkTests {
    let directory = TemporaryDirectory()

    @Test func addingAnObjectAddsEverythingItLinksTo() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1, "Ann")
        let rex = pet(10, "Rex")
        let fido = pet(11, "Fido")
        ann.favorite = rex
        ann.pets.append(fido)
        ann.petsByName["f"] = fido
        rex.owner = ann                          // a cycle back to the root
        try db.write { try db.add(ann) }
        #expect(rex.isManaged && fido.isManaged)
        #expect(db.objects(Pet.self).count == 2)
        #expect(db.objects(Owner.self).count == 1)
        #expect(ann.favorite?.name == "Rex")
        #expect(rex.owner?.name == "Ann")
        #expect(ann.petsByName["f"]??.id == 11)
    }

    @Test func linksSurviveReopening() throws {
        do {
            let db = try directory.open([Owner.self])
            let ann = owner(1, "Ann")
            let bob = owner(2, "Bob")
            ann.best = bob
            bob.best = ann                       // cycle of two
            ann.favorite = pet(10, "Rex")
            try db.write { try db.add(ann) }
        }
        let db = try directory.open([Owner.self])
        let ann = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        #expect(ann.best?.name == "Bob")
        #expect(ann.best?.best?.name == "Ann")
        #expect(ann.favorite?.name == "Rex")
        #expect(db.objects(Owner.self).count == 2)
    }

    @Test func theSameUnmanagedInstanceTwiceIsOneObjectReferencedTwice() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1)
        let rex = pet(10, "Rex")
        ann.pets.append(rex)
        ann.pets.append(rex)
        ann.favorite = rex
        try db.write { try db.add(ann) }
        #expect(db.objects(Pet.self).count == 1)
        #expect(ann.pets.map(\.id) == [10, 10])
        #expect(rex.owners.count == 2)          // once per link, as in Realm
        try db.write { ann.pets.remove(at: 0) }
        #expect(rex.owners.count == 1)          // still linked by the second element
        try db.write { ann.pets.remove(at: 0) }
        #expect(rex.owners.isEmpty)
        #expect(rex.fans.count == 1)
    }

    @Test func settingALinkOnAManagedObjectAddsAnUnmanagedTarget() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1)
        try db.write { try db.add(ann) }
        let rex = pet(10, "Rex")
        try db.write { ann.favorite = rex }
        #expect(rex.isManaged)
        #expect(ann.favorite?.name == "Rex")
        try db.write { ann.favorite = nil }
        #expect(ann.favorite == nil)
        #expect(rex.fans.isEmpty)
        #expect(db.objects(Pet.self).count == 1)   // nullify leaves the pet
        #expect(try db.backlinkEntries("Owner", "favorite").isEmpty)
    }

    @Test func aLinkedObjectWithATakenPrimaryKeyUndoesTheWholeAdd() throws {
        let db = try directory.open([Owner.self])
        try db.write { try db.add(pet(10, "Taken")) }
        let ann = owner(1)
        let fresh = pet(11, "Fresh")
        ann.pets.append(fresh)
        ann.pets.append(pet(10, "Clash"))
        try db.write {
            let error = try #require(throws: ObjDBError.self) { try db.add(ann) }
            #expect(error.code == .primaryKeyExists)
            #expect(!ann.isManaged && !fresh.isManaged)
            #expect(db.objects(Owner.self).isEmpty)
            #expect(db.objects(Pet.self).map(\.name) == ["Taken"])
        }
        #expect(try db.backlinkEntries("Owner", "pets").isEmpty)
        // With an update policy the existing pet is updated and linked instead.
        try db.write { try db.add(ann, update: .modified) }
        #expect(ann.pets.map(\.name) == ["Fresh", "Clash"])
        #expect(db.objects(Pet.self).count == 2)
    }

    @Test func linkingToAnObjectOfAnotherDatabaseIsRefused() throws {
        let db = try directory.open([Owner.self])
        let other = try directory.open([Owner.self], name: "other.objdb")
        let foreign = pet(10)
        try other.write { try other.add(foreign) }
        let ann = owner(1)
        ann.favorite = foreign
        let error = try #require(throws: ObjDBError.self) { try db.write { try db.add(ann) } }
        #expect(error.code == .wrongDatabase)
        #expect(db.objects(Owner.self).isEmpty)
    }

    @Test func createAcceptsNestedDictionariesAndArrays() throws {
        let db = try directory.open([Owner.self])
        let ann = try db.write {
            try db.create(Owner.self, value: [
                "id": 1, "name": "Ann",
                "favorite": ["id": 10, "name": "Rex"],
                "pets": [["id": 11, "name": "Fido"], ["id": 12, "name": "Bo"]],
                "tags": ["x", "y"],
                "scores": ["a": 1.5],
                "address": ["city": "Oslo"],
            ])
        }
        #expect(ann.favorite?.name == "Rex")
        #expect(ann.pets.map(\.name) == ["Fido", "Bo"])
        #expect(Array(ann.tags) == ["x", "y"])
        #expect(ann.scores["a"] == 1.5)
        #expect(ann.address?.city == "Oslo")
        #expect(db.objects(Pet.self).count == 3)
        let bad = try #require(throws: ObjDBError.self) {
            try db.write { try db.create(Owner.self, value: ["id": 2, "tags": [1, 2]]) }
        }
        #expect(bad.code == .typeMismatch)
        #expect(bad.message.contains("tags"))
    }

    @Test func transitiveObjectTypes() throws {
        // Only Owner is configured: Pet, Address and Location are found through its links.
        let db = try directory.open([Owner.self])
        let names = Set(db.schema.objectSchema.map(\.className))
        #expect(names == ["Owner", "Pet", "Address", "Location"])
        #expect(db.schema["Address"]?.isEmbedded == true)
        let owners = try #require(db.schema["Pet"]?["owners"])
        #expect(owners.type == .linkingObjects)
        #expect(owners.objectClassName == "Owner" && owners.linkOriginPropertyName == "pets")
        let pets = try #require(db.schema["Owner"]?["pets"])
        #expect(pets.isArray && pets.type == .object && pets.objectClassName == "Pet")
        #expect(db.schema["Owner"]?["ownedPets"]?.deleteRule == .cascade)
        #expect(db.schema["Owner"]?["scores"]?.typeName == "Map<String, Double>")
    }

    @Test func writingLinksOutsideATransactionIsAProgrammerError() async {
        await #expect(processExitsWith: .failure) {
            let directory = TemporaryDirectory()
            let db = try directory.open([Owner.self])
            let ann = owner(1)
            try db.write { try db.add(ann) }
            ann.favorite = pet(2)
        }
        await #expect(processExitsWith: .failure) {
            let directory = TemporaryDirectory()
            let db = try directory.open([Owner.self])
            let ann = owner(1)
            try db.write { try db.add(ann) }
            ann.tags.append("x")
        }
    }

    @Test func keyValueCodingReadsAndWritesRelationships() throws {
        let db = try directory.open([Owner.self])
        let ann = owner(1)
        try db.write { try db.add(ann) }
        try db.write {
            try ann.setValue(["x", "y"], forKey: "tags")
            try ann.setValue(pet(10, "Rex"), forKey: "favorite")
            try ann.setValue([pet(11, "Bo")], forKey: "pets")
            try ann.setValue(["k": 2.0], forKey: "scores")
        }
        #expect((try ann.value(forKey: "tags") as? List<String>).map(Array.init) == ["x", "y"])
        #expect((try ann.value(forKey: "favorite") as? Pet)?.name == "Rex")
        #expect((try ann.value(forKey: "pets") as? List<Pet>)?.map(\.name) == ["Bo"])
        #expect((try ann.value(forKey: "scores") as? Map<String, Double>)?["k"] == 2)
        let rex = try #require(ann.favorite)
        #expect((try rex.value(forKey: "fans") as? LinkingObjects<Owner>)?.count == 1)
        try db.write {
            let wrong = try #require(throws: ObjDBError.self) { try ann.setValue([1, 2], forKey: "tags") }
            #expect(wrong.code == .typeMismatch)
            let computed = try #require(throws: ObjDBError.self) { try rex.setValue([ann], forKey: "fans") }
            #expect(computed.code == .invalidValue)
            let unknown = try #require(throws: ObjDBError.self) { try ann.setValue(1, forKey: "nope") }
            #expect(unknown.code == .unknownProperty)
        }
        #expect(Array(ann.tags) == ["x", "y"])
    }
}
