import Foundation
import ObjDB

/// The owner of the relationship scenarios in ObjDB.
final class BenchOwner: Object {
    /// Primary key.
    @Persisted(primaryKey: true) var id: Int = 0
    /// "Owner <id>".
    @Persisted var name: String = ""
    /// The to-one link of the linking-objects scenario.
    @Persisted var favorite: BenchPet?
    /// The list of the append scenario.
    @Persisted var pets: List<BenchPet>

    /// Stored as `Owner`, like the other systems' tables.
    override class var className: String { "Owner" }

    /// A new unmanaged owner.
    static func make(id: Int) -> BenchOwner {
        let owner = BenchOwner()
        owner.id = id
        owner.name = "Owner \(id)"
        return owner
    }
}

/// The pet of the relationship scenarios in ObjDB.
final class BenchPet: Object {
    /// Primary key.
    @Persisted(primaryKey: true) var id: Int = 0
    /// "Pet <id>".
    @Persisted var name: String = ""
    /// The owners whose `pets` list holds this pet.
    @Persisted(originProperty: "pets") var owners: LinkingObjects<BenchOwner>
    /// The owners whose `favorite` is this pet.
    @Persisted(originProperty: "favorite") var fans: LinkingObjects<BenchOwner>

    /// Stored as `Pet`, like the other systems' tables.
    override class var className: String { "Pet" }

    /// A new unmanaged pet.
    static func make(id: Int) -> BenchPet {
        let pet = BenchPet()
        pet.id = id
        pet.name = "Pet \(id)"
        return pet
    }
}

/// The relationship scenarios through ObjDB's public API only.
final class ObjDBRelationships: RelationshipSystem {
    /// The column title.
    static let name = ObjDBSystem.name
    /// The open database; `nil` once closed.
    private var db: Database?
    /// The owner whose list the append scenario fills.
    private var owner: BenchOwner?
    /// The managed pets the append scenario appends, fetched untimed.
    private var pets: [BenchPet] = []
    /// The managed target pets of the linking-objects scenario, fetched untimed.
    private var targets: [BenchPet] = []

    /// Creates `links.objdb` in `directory` with the default durability (`.full`).
    init(directory: String) throws {
        var config = Configuration(fileURL: URL(fileURLWithPath: directory).appendingPathComponent("links.objdb"))
        config.objectTypes = [BenchOwner.self, BenchPet.self]
        config.maximumSize = mapSizeOverride
        db = try Database(configuration: config)
    }

    /// The open database.
    private var database: Database {
        guard let db else { preconditionFailure("ObjDBRelationships used after close()") }
        return db
    }

    /// Adds the owner and the pets in one `write { }`, then fetches the managed pets into an array.
    func prepareList(_ work: ListWorkload) throws {
        let db = database
        try db.write {
            try db.add(BenchOwner.make(id: ListWorkload.ownerID))
            for id in work.petIDs { try db.add(BenchPet.make(id: id)) }
        }
        owner = db.object(ofType: BenchOwner.self, forPrimaryKey: ListWorkload.ownerID)
        let byID = Dictionary(uniqueKeysWithValues: db.objects(BenchPet.self).map { ($0.id, $0) })
        pets = try work.petIDs.map { id in
            guard let pet = byID[id] else { throw CheckFailure(description: "ObjDB: pet \(id) missing after setup") }
            return pet
        }
    }

    /// `write { for pet in pets { owner.pets.append(pet) } }`.
    func appendPets() throws {
        let db = database
        guard let owner else { throw CheckFailure(description: "ObjDB: appendPets() before prepareList()") }
        let pets = self.pets
        try db.write {
            for pet in pets { owner.pets.append(pet) }
        }
    }

    /// Iterates the owner's list, freshly looked up.
    func readList() throws -> ListChecksum {
        var sum = ListChecksum()
        guard let owner = database.object(ofType: BenchOwner.self, forPrimaryKey: ListWorkload.ownerID) else { return sum }
        for pet in owner.pets { sum.add(pet.id) }
        return sum
    }

    /// `pet.owners` of each pet, looked up by primary key.
    func countBacklinked(_ petIDs: [Int]) throws -> Int {
        let db = database
        return petIDs.count { id in
            db.object(ofType: BenchPet.self, forPrimaryKey: id)?.owners.map(\.id) == [ListWorkload.ownerID]
        }
    }

    /// Adds the pets, then the owners with their `favorite` set, in one `write { }`; then fetches
    /// the managed targets.
    func prepareLinks(_ work: LinkWorkload) throws {
        let db = database
        try db.write {
            var pets: [BenchPet] = []
            pets.reserveCapacity(work.pets)
            for id in 1...work.pets {
                let pet = BenchPet.make(id: id)
                try db.add(pet)
                pets.append(pet)
            }
            for (index, favorite) in work.favorites.enumerated() {
                let owner = BenchOwner.make(id: index + 1)
                owner.favorite = pets[favorite - 1]
                try db.add(owner)
            }
        }
        targets = try work.targets.map { id in
            guard let pet = db.object(ofType: BenchPet.self, forPrimaryKey: id) else {
                throw CheckFailure(description: "ObjDB: target pet \(id) missing after setup")
            }
            return pet
        }
    }

    /// `for owner in target.fans { sum += owner.id }`, cycling over the targets.
    func sumLinkingOwners(lookups: Int) throws -> LinkSum {
        let targets = self.targets
        var sum = LinkSum()
        for lookup in 0..<lookups {
            for owner in targets[lookup % targets.count].fans { sum.add(owner.id) }
        }
        return sum
    }

    /// Drops the objects and the database, closing the file.
    func close() {
        owner = nil
        pets = []
        targets = []
        db = nil
    }
}
