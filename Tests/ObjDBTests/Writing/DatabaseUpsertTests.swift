import Foundation
import Testing
@testable @_spi(Inspection) import ObjDB
import ObjDBTestModels

struct DatabaseUpsertTests {
    let directory = TemporaryDirectory()

    @Test func duplicatePrimaryKeyThrowsAndLeavesTheDatabaseUnchanged() throws {
        let db = try directory.open()
        try db.write { try db.add(person(1, "Ann", age: 30)) }
        let duplicate = person(1, "Impostor", age: 99)
        try db.write {
            let error = try #require(throws: ObjDBError.self) { try db.add(duplicate) }
            #expect(error.code == .primaryKeyExists)
            #expect(error.className == "Person" && error.key == "1" && error.propertyName == "id")
            #expect(error.description.contains("primary key 1 already exists"))
        }
        #expect(!duplicate.isManaged)
        #expect(duplicate.name == "Impostor")
        let stored = try #require(db.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(stored.name == "Ann" && stored.age == 30)
        #expect(db.objects(Person.self).count == 1)
        #expect(db.objects(Person.self).index(matching: "Impostor") == nil)
    }

    @Test func addingASequenceIsAllOrNothing() throws {
        let db = try directory.open()
        try db.write { try db.add(person(5, "Existing")) }
        let batch = [person(1, "A"), person(2, "B"), person(5, "Clash"), person(6, "F")]
        try db.write {
            #expect(throws: ObjDBError.self) { try db.add(batch) }
        }
        #expect(batch.allSatisfy { !$0.isManaged })
        #expect(batch.map(\.name) == ["A", "B", "Clash", "F"])   // unmanaged again, values intact
        #expect(db.objects(Person.self).map(\.id) == [5])
        try db.write { try db.add(batch.filter { $0.id != 5 }) }
        #expect(db.objects(Person.self).map(\.id).sorted() == [1, 2, 5, 6])
    }

    @Test func modifiedWritesOnlyChangedProperties() throws {
        let db = try directory.open()
        try db.write { try db.add(person(1, "Ann", age: 30)) }
        let before = db.lastCommittedTransactionID

        // Identical values: nothing is written, so no new version of the file appears.
        try db.write { try db.add(person(1, "Ann", age: 30), update: .modified) }
        #expect(db.lastCommittedTransactionID == before)

        db.beginWrite()
        let update = person(1, "Ann", age: 31)
        try db.add(update, update: .modified)
        let changes = try #require(db.writeContext?.changes.classes.compactMap { $0 }.first)
        #expect(changes.modifications.count == 1)
        let columns = try #require(changes.modifications.values.first)
        let ageColumn = try #require(db.schema["Person"]?.properties.firstIndex { $0.name == "age" })
        #expect(columns.columns == [ageColumn])
        try db.commitWrite()
        #expect(db.lastCommittedTransactionID == before + 1)
        #expect(update.isManaged && update.age == 31)
        #expect(db.objects(Person.self).count == 1)
    }

    @Test func allWritesEveryProperty() throws {
        let db = try directory.open()
        try db.write { try db.add(person(1, "Ann", age: 30)) }
        let before = db.lastCommittedTransactionID
        db.beginWrite()
        try db.add(person(1, "Ann", age: 30), update: .all)
        let columns = try #require(db.writeContext?.changes.classes.compactMap { $0 }.first?.modifications.values.first)
        #expect(columns.count == db.schema["Person"]?.properties.count)
        try db.commitWrite()
        #expect(db.lastCommittedTransactionID == before + 1)
    }

    @Test func upsertInsertsWhenMissingAndMaintainsTheIndex() throws {
        let db = try directory.open()
        try db.write {
            try db.add(person(1, "Ann"), update: .modified)
            try db.add(person(1, "Anne"), update: .all)
            try db.add(person(2, "Bob"), update: .all)
        }
        #expect(db.objects(Person.self).map(\.name) == ["Anne", "Bob"])
        // The name index follows the change: one entry per object, under the new name.
        let info = try #require(try db.classInfo(for: Person.self))
        let nameColumn = try info.column(named: "name")
        let index = try #require(info.tables.indexes[nameColumn])
        let txn = try #require(db.readableTxn())
        #expect(try txn.entryCount(index) == 2)
        let annKey = try #require(db.object(ofType: Person.self, forPrimaryKey: 1))._objdbKey
        let anne = try [UInt8]([KeyEncoding.valueTag] + Array("Anne".utf8)).withUnsafeBytes { try txn.get(index, key: $0) }
        #expect(anne.map { $0.loadUnaligned(as: UInt64.self) } == annKey)
        let ann = try [UInt8]([KeyEncoding.valueTag] + Array("Ann".utf8)).withUnsafeBytes { try txn.get(index, key: $0) }
        #expect(ann == nil)
    }

    @Test func updatePoliciesNeedAPrimaryKey() throws {
        let db = try directory.open()
        let note = Note()
        try db.write {
            let error = try #require(throws: ObjDBError.self) { try db.add(note, update: .modified) }
            #expect(error.code == .missingPrimaryKey)
            try db.add(note)
            try db.add(Note())
        }
        #expect(db.objects(Note.self).count == 2)
    }

    @Test func addingAManagedObjectAgainDoesNothing() throws {
        let db = try directory.open()
        let ann = person(1, "Ann")
        try db.write {
            try db.add(ann)
            try db.add(ann)
            try db.add([ann, ann])
        }
        #expect(db.objects(Person.self).count == 1)
    }

    @Test func objectsOfAnotherInstanceAreRefused() throws {
        let a = try directory.open()
        let b = try directory.open(name: "other.objdb")
        let ann = person(1, "Ann")
        try a.write { try a.add(ann) }
        let error = try #require(throws: ObjDBError.self) { try b.write { try b.add(ann) } }
        #expect(error.code == .wrongDatabase)
    }

    @Test func createFromADictionary() throws {
        let db = try directory.open()
        let created = try db.write {
            try db.create(Person.self, value: ["id": 7, "name": "Gus", "age": Int8(40), "kind": "vip"])
        }
        #expect(created.isManaged)
        #expect(created.id == 7 && created.name == "Gus" && created.age == 40 && created.kind == .vip)
        let defaults = try db.write { try db.create(Person.self, value: ["id": 8]) }
        #expect(defaults.name == "" && defaults.age == nil && defaults.kind == .regular)
        let copy = try db.write { try db.create(AllTypes.self, value: ["id": 1, "optString": nil as String? as Any, "int8": 127]) }
        #expect(copy.optString == nil && copy.int8 == 127)
    }

    @Test func createUpdatesOnlyTheGivenProperties() throws {
        let db = try directory.open()
        try db.write { try db.add(person(1, "Ann", age: 30)) }
        let updated = try db.write { try db.create(Person.self, value: ["id": 1, "age": 31], update: .modified) }
        #expect(updated.name == "Ann" && updated.age == 31)
        #expect(db.objects(Person.self).count == 1)
        let missingKey = try #require(throws: ObjDBError.self) {
            try db.write { try db.create(Person.self, value: ["age": 1], update: .modified) }
        }
        #expect(missingKey.code == .missingPrimaryKey)
    }

    @Test func createRejectsBadValues() throws {
        let db = try directory.open()
        let cases: [(Any, ObjDBError.Code, String)] = [
            (["id": 1, "nope": 3], .unknownProperty, "nope"),
            (["id": "one"], .typeMismatch, "Person.id"),
            (["id": 1, "name": 5], .typeMismatch, "Person.name"),
            (["id": 1, "name": NSNull()], .typeMismatch, "Person.name"),
            (["id": 1, "age": 1.5], .typeMismatch, "Person.age"),
            (["id": 1, "kind": "platinum"], .typeMismatch, "Person.kind"),
            ([1, 2, 3], .typeMismatch, "dictionary"),
        ]
        for (value, code, text) in cases {
            let error = try #require(throws: ObjDBError.self) { try db.write { try db.create(Person.self, value: value) } }
            #expect(error.code == code)
            #expect(error.message.contains(text), "\(error.message)")
        }
        let overflow = try #require(throws: ObjDBError.self) {
            try db.write { try db.create(AllTypes.self, value: ["id": 1, "int8": 300]) }
        }
        #expect(overflow.code == .typeMismatch)
        // Foundation's Decimal(Double) traps on infinities: they must be refused, not crash.
        for infinite in [Double.infinity, -Double.infinity] {
            let error = try #require(throws: ObjDBError.self) {
                try db.write { try db.create(AllTypes.self, value: ["id": 1, "decimal": infinite]) }
            }
            #expect(error.code == .typeMismatch)
        }
        let nan = try db.write { try db.create(AllTypes.self, value: ["id": 2, "decimal": Double.nan]) }
        #expect(nan.decimal.isNaN)
        try db.write { db.delete(nan) }
        #expect(db.objects(Person.self).isEmpty && db.objects(AllTypes.self).isEmpty)
    }

    @Test(arguments: [0, 1, 2, 3])
    func everyPrimaryKeyTypeFindsItsObject(_ variant: Int) throws {
        let db = try directory.open([StringKeyed.self, UUIDKeyed.self, ObjectIdKeyed.self, OptionalKeyed.self, Int8Keyed.self])
        switch variant {
        case 0:
            let long = String(repeating: "k", count: 2_000)
            let long2 = long + "2"
            try db.write {
                for (i, key) in ["", "a", "é", long, long2].enumerated() {
                    let o = StringKeyed(); o.key = key; o.value = i
                    try db.add(o)
                }
                let clash = StringKeyed(); clash.key = long2
                #expect(throws: ObjDBError.self) { try db.add(clash) }
            }
            #expect(db.object(ofType: StringKeyed.self, forPrimaryKey: "")?.value == 0)
            #expect(db.object(ofType: StringKeyed.self, forPrimaryKey: "é")?.value == 2)
            #expect(db.object(ofType: StringKeyed.self, forPrimaryKey: long)?.value == 3)
            #expect(db.object(ofType: StringKeyed.self, forPrimaryKey: long2)?.value == 4)
            #expect(db.object(ofType: StringKeyed.self, forPrimaryKey: long + "3") == nil)
            #expect(db.object(ofType: StringKeyed.self, forPrimaryKey: 3) == nil)   // wrong key type finds nothing
        case 1:
            let o = UUIDKeyed(); o.value = 5
            try db.write { try db.add(o) }
            #expect(db.object(ofType: UUIDKeyed.self, forPrimaryKey: o.key)?.value == 5)
            #expect(db.object(ofType: UUIDKeyed.self, forPrimaryKey: o.key.uuidString)?.value == 5)
            #expect(db.object(ofType: UUIDKeyed.self, forPrimaryKey: UUID()) == nil)
        case 2:
            let o = ObjectIdKeyed(); o.value = 6
            try db.write { try db.add(o) }
            #expect(db.object(ofType: ObjectIdKeyed.self, forPrimaryKey: o.key)?.value == 6)
            #expect(db.object(ofType: ObjectIdKeyed.self, forPrimaryKey: ObjectId.generate()) == nil)
        default:
            try db.write {
                let none = OptionalKeyed(); none.value = 1
                let some = OptionalKeyed(); some.key = 0; some.value = 2
                try db.add([none, some])
                let again = OptionalKeyed()
                #expect(throws: ObjDBError.self) { try db.add(again) }   // a second nil key
                let small = Int8Keyed(); small.key = -128
                try db.add(small)
            }
            #expect(db.object(ofType: OptionalKeyed.self, forPrimaryKey: nil as Int?)?.value == 1)
            #expect(db.object(ofType: OptionalKeyed.self, forPrimaryKey: 0)?.value == 2)
            #expect(db.object(ofType: Int8Keyed.self, forPrimaryKey: -128) != nil)
            #expect(db.object(ofType: Int8Keyed.self, forPrimaryKey: 1000) == nil)
        }
    }
}

/// Integer primary-key lookups build their key directly; every integer type, the extremes and
/// the boxed (`Any`) path must find the same objects.
struct PrimaryKeyLookupTests {
    let directory = TemporaryDirectory()

    @Test func integerKeysOfEveryWidthFindTheSameObjects() throws {
        let db = try directory.open()
        let ids = [Int.min, -1, 0, 1, 255, 256, 70_000, Int(Int32.max) + 1, Int.max]
        try db.write { try db.add(ids.map { person($0, "P\($0)") }) }
        for id in ids {
            #expect(db.object(ofType: Person.self, forPrimaryKey: id)?.name == "P\(id)")
            #expect(db.object(ofType: Person.self, forPrimaryKey: Int64(id))?.name == "P\(id)")
            #expect(db.object(ofType: Person.self, forPrimaryKey: id as Any)?.name == "P\(id)")
            if let narrow = Int32(exactly: id) {
                #expect(db.object(ofType: Person.self, forPrimaryKey: narrow)?.name == "P\(id)")
            }
            if let narrow = Int8(exactly: id) {
                #expect(db.object(ofType: Person.self, forPrimaryKey: narrow)?.name == "P\(id)")
            }
        }
        #expect(db.object(ofType: Person.self, forPrimaryKey: 2) == nil)
        #expect(db.object(ofType: Person.self, forPrimaryKey: Int64.min + 1) == nil)
        #expect(db.object(ofType: Person.self, forPrimaryKey: "1") == nil)       // wrong type: no match
        try db.write { db.delete(try #require(db.object(ofType: Person.self, forPrimaryKey: 256))) }
        #expect(db.object(ofType: Person.self, forPrimaryKey: 256) == nil)
    }

    /// A narrow integer key column: keys outside its range find nothing, the extremes are found
    /// with keys of any width, and lookups inside a write see its uncommitted objects.
    @Test func narrowAndOptionalIntegerKeys() throws {
        let db = try directory.open([Int8Keyed.self, OptionalKeyed.self])
        try db.write {
            for key in [Int8.min, -1, 0, Int8.max] {
                let object = Int8Keyed()
                object.key = key
                try db.add(object)
            }
            let none = OptionalKeyed(); none.value = 1
            let seven = OptionalKeyed(); seven.key = 7; seven.value = 2
            try db.add([none, seven])
            #expect(db.object(ofType: OptionalKeyed.self, forPrimaryKey: 7)?.value == 2)     // uncommitted
        }
        #expect(db.object(ofType: Int8Keyed.self, forPrimaryKey: 127)?.key == 127)
        #expect(db.object(ofType: Int8Keyed.self, forPrimaryKey: Int64(-128))?.key == -128)
        #expect(db.object(ofType: Int8Keyed.self, forPrimaryKey: Int8(-1))?.key == -1)
        #expect(db.object(ofType: Int8Keyed.self, forPrimaryKey: 128) == nil)
        #expect(db.object(ofType: Int8Keyed.self, forPrimaryKey: -129) == nil)
        #expect(db.object(ofType: Int8Keyed.self, forPrimaryKey: 300) == nil)
        #expect(db.object(ofType: OptionalKeyed.self, forPrimaryKey: Int32(7))?.value == 2)
        #expect(db.object(ofType: OptionalKeyed.self, forPrimaryKey: Optional(7))?.value == 2)
        #expect(db.object(ofType: OptionalKeyed.self, forPrimaryKey: nil as Int?)?.value == 1)
        #expect(db.object(ofType: OptionalKeyed.self, forPrimaryKey: 8) == nil)
    }
}

extension Results where Element == Person {
    /// Position of the person with that name (test helper).
    func index(matching name: String) -> Int? { firstIndex { $0.name == name } }
}
