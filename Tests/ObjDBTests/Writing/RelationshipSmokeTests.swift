import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

struct RelationshipSmokeTests {
    let directory = TemporaryDirectory()

    func open() throws -> Database { try directory.open([Owner.self]) }

    @Test func linksAndListsRoundTrip() throws {
        let db = try open()
        let ann = Owner(); ann.id = 1; ann.name = "Ann"
        let rex = Pet(); rex.id = 10; rex.name = "Rex"
        let fido = Pet(); fido.id = 11; fido.name = "Fido"
        ann.pets.append(rex); ann.pets.append(fido); ann.pets.append(rex)
        ann.favorite = fido
        rex.owner = ann
        ann.tags.append(contentsOf: ["a", "b"])
        ann.numbers.append(contentsOf: [1, nil, 3])
        ann.nicknames.insert("Annie")
        ann.scores["math"] = 9.5
        ann.petsByName["rex"] = rex
        let address = Address(); address.city = "Oslo"
        ann.address = address
        try db.write { try db.add(ann) }
        #expect(db.objects(Pet.self).count == 2)
        #expect(ann.pets.map(\.name) == ["Rex", "Fido", "Rex"])
        #expect(ann.favorite?.name == "Fido")
        #expect(rex.owner?.name == "Ann")
        #expect(Array(ann.tags) == ["a", "b"])
        #expect(Array(ann.numbers) == [1, nil, 3])
        #expect(Array(ann.nicknames) == ["Annie"])
        #expect(ann.scores["math"] == 9.5)
        #expect(ann.petsByName["rex"]??.name == "Rex")
        #expect(ann.address?.city == "Oslo")
        #expect(rex.owners.map(\.name) == ["Ann", "Ann"])  // once per link: Ann's list holds Rex twice
        #expect(fido.fans.map(\.name) == ["Ann"])
        try db.write {
            ann.pets.remove(at: 0)
            ann.pets.append(Pet())
            ann.tags.move(from: 0, to: 1)
        }
        #expect(ann.pets.map(\.id) == [11, 10, 0])
        #expect(Array(ann.tags) == ["b", "a"])
        try db.write { db.delete(fido) }
        #expect(ann.pets.map(\.id) == [10, 0])
        #expect(ann.favorite == nil)
        // Reopen in a fresh process-level environment.
        let path = directory.file()
        _ = path
    }

    @Test func reopenKeepsEverything() throws {
        do {
            let db = try open()
            let ann = Owner(); ann.id = 1
            let rex = Pet(); rex.id = 10; rex.name = "Rex"
            ann.pets.append(rex)
            ann.scores["x"] = 1
            let address = Address(); address.city = "Rome"
            ann.pastAddresses.append(address)
            try db.write { try db.add(ann) }
        }
        let db = try open()
        let ann = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        #expect(ann.pets.map(\.name) == ["Rex"])
        #expect(ann.scores["x"] == 1)
        #expect(ann.pastAddresses.map(\.city) == ["Rome"])
        let rex = try #require(db.object(ofType: Pet.self, forPrimaryKey: 10))
        #expect(rex.owners.count == 1)
        try db.write { db.delete(ann) }
        #expect(rex.owners.isEmpty)
        #expect(db.objects(Pet.self).count == 1)
    }
}
