import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// A raw value that is no case of a `PersistableEnum` property is refused with a message that
/// names the enum and lists its cases' raw values.
struct EnumValueErrorTests {
    let directory = TemporaryDirectory()

    @Test func createWithAStringThatIsNoCaseListsTheCases() throws {
        let db = try directory.open()
        let error = try #require(throws: ObjDBError.self) {
            try db.write { try db.create(Person.self, value: ["id": 1, "kind": "platinum"]) }
        }
        #expect(error.code == .typeMismatch)
        #expect(error.propertyName == "kind")
        #expect(error.message == #"Property 'Person.kind' is Kind, and "platinum" is not the raw value of any of its cases; use one of: "regular", "vip""#)
        #expect(db.objects(Person.self).isEmpty)
    }

    @Test func integerRawValuesAndOptionalEnumsListTheCasesToo() throws {
        let db = try directory.open()
        let level = try #require(throws: ObjDBError.self) {
            try db.write { try db.create(AllTypes.self, value: ["id": 1, "level": 5]) }
        }
        #expect(level.message == "Property 'AllTypes.level' is Level, and 5 is not the raw value of any of its cases; use one of: 1, 9")
        let optional = try #require(throws: ObjDBError.self) {
            try db.write { try db.create(AllTypes.self, value: ["id": 1, "optKind": "gold"]) }
        }
        #expect(optional.message == #"Property 'AllTypes.optKind' is Kind, and "gold" is not the raw value of any of its cases; use one of: "regular", "vip""#)
        // nil is a valid value of the optional enum, and a case's raw value is accepted.
        let stored = try db.write { try db.create(AllTypes.self, value: ["id": 2, "optKind": NSNull(), "level": 9]) }
        #expect(stored.optKind == nil && stored.level == .high)
    }

    @Test func aValueOfAnotherTypeNamesTheEnumAndItsRawType() throws {
        let db = try directory.open()
        let error = try #require(throws: ObjDBError.self) {
            try db.write { try db.create(Person.self, value: ["id": 1, "kind": 3]) }
        }
        #expect(error.message == #"Property 'Person.kind' is Kind (stored as its String raw value) and cannot hold a value of type Int; use one of: "regular", "vip""#)
    }

    @Test func keyValueCodingOnUnmanagedAndManagedObjectsSaysTheSame() throws {
        let db = try directory.open()
        let unmanaged = Person()
        let offline = try #require(throws: ObjDBError.self) { try unmanaged.setValue("gold", forKey: "kind") }
        #expect(offline.message.contains(#""gold" is not the raw value of any of its cases; use one of: "regular", "vip""#))
        let ann = person(1, "Ann")
        try db.write { try db.add(ann) }
        let managed = try #require(throws: ObjDBError.self) { try db.write { try ann.setValue("gold", forKey: "kind") } }
        #expect(managed.message.contains(#""gold" is not the raw value of any of its cases; use one of: "regular", "vip""#))
        #expect(ann.kind == .regular)
    }
}
