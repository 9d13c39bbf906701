import Foundation
@testable import ObjDB
import ObjDBTestModels

/// A database with every property type, links, lists, sets, maps and embedded objects, made
/// through the library, with values the tests know.
enum CLIFixture {
    static let date = Date(timeIntervalSince1970: 1_764_064_800.25)  // 2025-11-25T10:00:00.250Z
    static let uuid = UUID(uuidString: "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9")!
    static let objectId = ObjectId(string: "64b7f0c2a1b2c3d4e5f60718")!

    static var types: [ObjectBase.Type] { [AllTypes.self, Owner.self, Pet.self, Note.self, Person.self] }

    /// Creates the fixture at `path`.
    @discardableResult
    static func make(_ path: String) throws -> Database {
        let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: types))
        try db.write {
            let all = AllTypes()
            all.id = 1
            all.bool = true
            all.int = -42
            all.int8 = -8
            all.int16 = 1_600
            all.int32 = 32_000
            all.int64 = 6_400_000_000
            all.float = 1.5
            all.double = 2.25
            all.string = "comma, \"quote\" and a long text that goes past forty characters"
            all.data = Data([0xDE, 0xAD, 0xBE, 0xEF])
            all.date = date
            all.uuid = uuid
            all.decimal = Decimal(string: "12.345")!
            all.objectId = objectId
            all.kind = .vip
            all.level = .high
            all.optInt = 7
            try db.add(all)
            let empty = AllTypes()
            empty.id = 2
            try db.add(empty)

            let rex = Pet(), tom = Pet()
            rex.id = 1; rex.name = "Rex"
            tom.id = 2; tom.name = "Tom"
            let ann = Owner()
            ann.id = 1
            ann.name = "Ann"
            ann.pets.append(objectsIn: [rex, tom])
            ann.favorite = rex
            ann.tags.append(objectsIn: ["a", "b"])
            ann.numbers.append(objectsIn: [1, nil, 3])
            ann.nicknames.insert("annie")
            ann.scores["math"] = 9.5
            ann.petsByName["rex"] = rex
            let address = Address()
            address.city = "Lyon"
            ann.address = address
            try db.add(ann)
            for (id, name, age) in [(1, "Ann", 31), (2, "Bob", 45), (3, "Cid", 17), (4, "Dee", 62)] {
                let person = Person()
                person.id = id
                person.name = name
                person.age = age
                try db.add(person)
            }
            let note = Note()
            note.text = "no primary key"
            try db.add(note)
        }
        return db
    }
}
