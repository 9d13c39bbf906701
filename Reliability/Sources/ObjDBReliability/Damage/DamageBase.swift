import Foundation
import ObjDB
import ObjDBTestModels

/// The classes of the damaged-file database: every kind of property and relationship.
public let damageModelTypes: [ObjectBase.Type] = [Person.self, Note.self, AllTypes.self, Owner.self, Pet.self]

/// The healthy database every damaged file is a copy of: every model kind, a few thousand
/// objects written in several commits, so that the file holds a previous version besides the
/// newest (LMDB keeps both until the next commit).
public struct DamageBase: Sendable {
    /// The file at its newest version.
    public let newest: URL
    /// A copy of the file taken before its last commit: what reads return if LMDB falls back to
    /// the previous version.
    public let previous: URL
    /// The file's page size.
    public let pageSize: Int

    /// Whether the file was compacted before its last commit (almost no free pages).
    public let isCompact: Bool

    /// Builds a base in `directory` with about `objects` objects. A compact base is copied with
    /// `MDB_CP_COMPACT` before its last commit, so it has almost no free pages; the other keeps
    /// the free pages its commits left, as files in use do.
    /// With `encryptionKey`, the files are encrypted with it.
    public static func build(in directory: URL, objects: Int, seed: UInt64, compact: Bool, encryptionKey: Data? = nil) throws -> DamageBase {
        func configuration(_ url: URL) -> Configuration {
            var config = Configuration(fileURL: url, objectTypes: damageModelTypes)
            config.encryptionKey = encryptionKey
            return config
        }
        let name = compact ? "base-compact" : "base"
        let newest = directory.appendingPathComponent(name + ".objdb")
        let previous = directory.appendingPathComponent(name + "-previous.objdb")
        let grown = directory.appendingPathComponent(name + "-grown.objdb")
        for url in [newest, previous, grown] {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(atPath: url.path + "-lock")
        }
        var rng = SeededRandom(seed: seed ^ 0xBA5E)
        let people = max(objects * 5 / 10, 10)
        let notes = max(objects / 10, 5)
        let allTypes = max(objects / 10, 5)
        let owners = max(objects / 20, 4)
        do {
            let db = try Database(configuration: configuration(compact ? grown : newest))
            // Commits 1-4: the objects, in several transactions.
            for part in 0..<2 {
                try db.write {
                    for id in stride(from: part + 1, through: people, by: 2) {
                        try db.add(makePerson(id, &rng))
                    }
                }
            }
            try db.write {
                for i in 0..<notes {
                    let note = Note()
                    note.text = "note \(i) " + String(repeating: "·", count: rng.below(30))
                    note.created = Date(timeIntervalSince1970: Double(rng.inRange(-1_000_000...2_000_000_000)))
                    try db.add(note)
                }
                for id in 1...allTypes { try db.add(makeAllTypes(id, &rng)) }
            }
            try db.write {
                var made: [Owner] = []
                for id in 1...owners { made.append(makeOwner(id, &rng, friends: made)) }
                try db.add(made)
            }
            // Commit 5: updates and deletes.
            try db.write {
                for person in db.objects(Person.self).filter({ $0.id % 7 == 0 }) { person.age = (person.age ?? 0) + 1 }
                db.delete(db.objects(Note.self).prefix(notes / 5))
                if let owner = db.object(ofType: Owner.self, forPrimaryKey: 1) { owner.tags.append("updated") }
            }
        }
        if compact {
            try CompactCopy.copy(grown, to: newest)
            try? FileManager.default.removeItem(at: grown)
            try? FileManager.default.removeItem(atPath: grown.path + "-lock")
        }
        try FileManager.default.copyItem(at: newest, to: previous)
        // The last commit: more updates, inserts, deletes, so that the two versions differ.
        let db = try Database(configuration: configuration(newest))
        try db.write {
            for person in db.objects(Person.self).filter({ $0.id % 5 == 0 }) { person.name += " (renamed)" }
            for id in (people + 1)...(people + 20) { try db.add(makePerson(id, &rng)) }
            if let owner = db.object(ofType: Owner.self, forPrimaryKey: 2) {
                owner.pets.removeAll()
                owner.scores["last"] = 1.5
            }
            db.delete(db.objects(AllTypes.self).filter { $0.id % 4 == 0 })
        }
        let info = try PageSize.of(newest)
        return DamageBase(newest: newest, previous: previous, pageSize: info, isCompact: compact)
    }

    static func makePerson(_ id: Int, _ rng: inout SeededRandom) -> Person {
        let person = Person()
        person.id = id
        person.name = rng.pick(["Ann", "Bob", "Cy", "Dé", "Ève", "Zoë", "名前"]) + " \(rng.below(300))"
        person.age = rng.percent(20) ? nil : rng.below(100)
        person.kind = rng.percent(30) ? .vip : .regular
        return person
    }

    static func makeAllTypes(_ id: Int, _ rng: inout SeededRandom) -> AllTypes {
        let o = AllTypes()
        o.id = id
        o.bool = rng.percent(50)
        o.int = Int(bitPattern: UInt(rng.next()))
        o.int8 = Int8(truncatingIfNeeded: rng.next())
        o.int16 = Int16(truncatingIfNeeded: rng.next())
        o.int32 = Int32(truncatingIfNeeded: rng.next())
        o.int64 = Int64(bitPattern: rng.next())
        o.float = Float(rng.inRange(-1_000...1_000)) / 7
        o.double = Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF)
        o.string = String(repeating: "s\(id)", count: rng.below(50))
        o.data = Data((0..<rng.below(300)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        o.date = Date(timeIntervalSince1970: Double(rng.inRange(-2_000_000_000...2_000_000_000)) + 0.25)
        o.uuid = UUID(uuid: uuidBytes(&rng))
        o.decimal = Decimal(rng.inRange(-100_000...100_000)) / 100
        o.objectId = ObjectId(bytes: (0..<12).map { _ in UInt8(truncatingIfNeeded: rng.next()) }) ?? ObjectId()
        o.kind = rng.percent(50) ? .vip : .regular
        o.level = rng.percent(50) ? .high : .low
        if rng.percent(60) {
            o.optBool = rng.percent(50)
            o.optInt = rng.inRange(-5...5)
            o.optInt8 = 8
            o.optInt16 = -16
            o.optInt32 = 32
            o.optInt64 = Int64(id)
            o.optFloat = 0.5
            o.optDouble = -0.0
            o.optString = "opt \(id)"
            o.optData = Data([1, 2, 3])
            o.optDate = Date(timeIntervalSince1970: 86_400)
            o.optUUID = UUID(uuid: uuidBytes(&rng))
            o.optDecimal = Decimal(id)
            o.optObjectId = ObjectId(string: "65a1f0c2b3e4d5f6a7b8c9d0")
            o.optKind = .vip
            o.optLevel = .high
        }
        return o
    }

    static func uuidBytes(_ rng: inout SeededRandom) -> uuid_t {
        let a = rng.next(), b = rng.next()
        func byte(_ word: UInt64, _ i: Int) -> UInt8 { UInt8(truncatingIfNeeded: word >> (8 * i)) }
        return (
            byte(a, 0), byte(a, 1), byte(a, 2), byte(a, 3), byte(a, 4), byte(a, 5), byte(a, 6), byte(a, 7),
            byte(b, 0), byte(b, 1), byte(b, 2), byte(b, 3), byte(b, 4), byte(b, 5), byte(b, 6), byte(b, 7)
        )
    }

    static func makeOwner(_ id: Int, _ rng: inout SeededRandom, friends: [Owner]) -> Owner {
        let owner = Owner()
        owner.id = id
        owner.name = "owner \(id)"
        for j in 0..<rng.below(5) {
            let pet = Pet()
            pet.id = id * 10 + j
            pet.name = rng.pick(["Rex", "Tom", "Kiki", "Éclair"])
            owner.pets.append(pet)
        }
        owner.favorite = owner.pets.last
        owner.tags.append(contentsOf: (0..<rng.below(6)).map { "tag\($0 * id % 11)" })
        owner.numbers.append(contentsOf: (0..<rng.below(6)).map { $0 % 3 == 0 ? nil : $0 * id })
        for n in 0..<rng.below(4) { owner.nicknames.insert("nick \(n)") }
        for k in 0..<rng.below(4) { owner.scores["score\(k)"] = Double(rng.below(1_000)) / 8 }
        if let first = owner.pets.first { owner.petsByName[first.name] = first }
        owner.petsByName["nobody"] = nil as Pet?
        if rng.percent(80) {
            let address = Address()
            address.city = rng.pick(["Oslo", "Lyon", "Kyōto", "Lima"])
            if rng.percent(50) {
                let location = Location()
                location.latitude = Double(rng.inRange(-90...90))
                location.longitude = Double(rng.inRange(-180...180)) + 0.5
                address.location = location
            }
            owner.address = address
        }
        for c in 0..<rng.below(3) {
            let past = Address()
            past.city = "past \(c)"
            owner.pastAddresses.append(past)
        }
        for j in 0..<rng.below(3) {
            let pet = Pet()
            pet.id = 100_000 + id * 10 + j
            pet.name = "owned \(j)"
            pet.owner = owner
            owner.ownedPets.append(pet)
        }
        for friend in friends.suffix(3) where rng.percent(50) { owner.friends.insert(friend) }
        owner.best = friends.last
        return owner
    }
}

/// The page size a file's first meta page declares.
enum PageSize {
    static func of(_ url: URL) throws -> Int {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let header = try handle.read(upToCount: 64) ?? Data()
        // LMDB's meta page: page header (16 bytes), then magic (4), version (4), address (8),
        // map size (8), then the free tree's record whose first field is md_pad = page size.
        guard header.count >= 44 else { throw HarnessError("\(url.path) is too short for an LMDB meta page") }
        let size = header[40..<44].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        guard size >= 512, size <= 65_536, size & (size - 1) == 0 else {
            throw HarnessError("\(url.path) declares the page size \(size)")
        }
        return size
    }
}
