import Foundation
import ObjDB
import ObjDBTestModels

/// What reads of the damaged-file database return, written deterministically and digested:
/// every object of every class through the public API (properties, links as primary keys,
/// lists, sets, maps, embedded objects, linking objects), counts, primary-key lookups and a few
/// queries answered by indexes and scans. Two files with equal digests read the same.
public enum CanonicalDump {
    /// The digest of what `db` reads, and the number of objects read.
    public static func digest(of db: Database) -> (digest: Digest, objects: Int) {
        var dump = Digest()
        var objects = 0
        let people = db.objects(Person.self)
        dump.line("Person count \(people.count)")
        for p in people {
            objects += 1
            dump.line("P \(p.id) \(p.name) \(p.age.map(String.init) ?? "nil") \(p.kind.rawValue)")
        }
        for id in [1, 2, 3, 50, 99, 500, 1_000] {
            dump.line("P[\(id)] \(db.object(ofType: Person.self, forPrimaryKey: id)?.name ?? "none")")
        }
        dump.line("P vip \(people.where { $0.kind == .vip }.count)")
        dump.line("P age>50 \(people.where { $0.age > 50 }.count)")
        dump.line("P Ann* \(people.where { $0.name.starts(with: "Ann") }.count)")
        dump.line("P oldest \(people.sorted(by: \.age, ascending: false).first?.id ?? -1)")

        let notes = db.objects(Note.self)
        dump.line("Note count \(notes.count)")
        for n in notes {
            objects += 1
            dump.line("N \(n.text) \(bits(n.created))")
        }

        let all = db.objects(AllTypes.self)
        dump.line("AllTypes count \(all.count)")
        for o in all {
            objects += 1
            dump.line(allTypes(o))
        }

        let owners = db.objects(Owner.self)
        dump.line("Owner count \(owners.count)")
        for o in owners {
            objects += 1
            dump.line(owner(o))
        }
        dump.line("Owner with pets \(owners.where { $0.pets.count > 0 }.count)")

        let pets = db.objects(Pet.self)
        dump.line("Pet count \(pets.count)")
        for p in pets {
            objects += 1
            let owners = p.owners.map(\.id).sorted()
            let fans = p.fans.map(\.id).sorted()
            dump.line("Pet \(p.id) \(p.name) owner \(p.owner?.id ?? -1) owners \(owners) fans \(fans)")
        }
        return (dump, objects)
    }

    static func bits(_ date: Date) -> String { String(date.timeIntervalSince1970.bitPattern, radix: 16) }
    static func bits(_ value: Double) -> String { String(value.bitPattern, radix: 16) }
    static func bits(_ value: Float) -> String { String(value.bitPattern, radix: 16) }
    static func optional<T>(_ value: T?, _ text: (T) -> String) -> String { value.map(text) ?? "nil" }

    static func allTypes(_ o: AllTypes) -> String {
        var fields: [String] = ["A \(o.id)", "\(o.bool)", "\(o.int)", "\(o.int8)", "\(o.int16)", "\(o.int32)", "\(o.int64)"]
        fields += [bits(o.float), bits(o.double), o.string, o.data.base64EncodedString(), bits(o.date)]
        fields += [o.uuid.uuidString, "\(o.decimal)", o.objectId.stringValue, o.kind.rawValue, "\(o.level.rawValue)"]
        fields += [
            optional(o.optBool) { "\($0)" }, optional(o.optInt) { "\($0)" }, optional(o.optInt8) { "\($0)" },
            optional(o.optInt16) { "\($0)" }, optional(o.optInt32) { "\($0)" }, optional(o.optInt64) { "\($0)" },
            optional(o.optFloat, bits), optional(o.optDouble, bits), optional(o.optString) { $0 },
            optional(o.optData) { $0.base64EncodedString() }, optional(o.optDate, bits), optional(o.optUUID) { $0.uuidString },
            optional(o.optDecimal) { "\($0)" }, optional(o.optObjectId) { $0.stringValue }, optional(o.optKind) { $0.rawValue },
            optional(o.optLevel) { "\($0.rawValue)" },
        ]
        return fields.joined(separator: "|")
    }

    static func address(_ a: Address?) -> String {
        guard let a else { return "nil" }
        let location = a.location.map { "\(bits($0.latitude)),\(bits($0.longitude))" } ?? "nil"
        return "\(a.city)@\(location)"
    }

    static func owner(_ o: Owner) -> String {
        var fields = ["O \(o.id)", o.name]
        fields.append("pets \(o.pets.map(\.id))")
        fields.append("favorite \(o.favorite?.id ?? -1)")
        fields.append("tags \(Array(o.tags))")
        fields.append("numbers \(o.numbers.map { $0.map(String.init) ?? "nil" })")
        fields.append("nicknames \(Array(o.nicknames))")
        fields.append("scores \(o.scores.map { "\($0.key)=\(bits($0.value))" })")
        fields.append("petsByName \(o.petsByName.map { "\($0.key)=\($0.value.map { String($0.id) } ?? "nil")" })")
        fields.append("address \(address(o.address))")
        fields.append("past \(o.pastAddresses.map { address($0) })")
        fields.append("owned \(o.ownedPets.map(\.id))")
        fields.append("friends \(o.friends.map(\.id))")
        fields.append("best \(o.best?.id ?? -1)")
        return fields.joined(separator: "|")
    }
}
