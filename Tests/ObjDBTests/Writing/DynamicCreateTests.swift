import Foundation
import Testing
@testable @_spi(Inspection) import ObjDB
import ObjDBTestModels

/// `Database.createDynamicObject(_:value:update:)`: objects created and updated by class name,
/// checked against reads through the model classes and against `create(_:value:update:)`.
struct DynamicCreateTests {
    let directory = TemporaryDirectory()

    static var types: [ObjectBase.Type] { [AllTypes.self, Owner.self, Pet.self, Note.self, UUIDKeyed.self, StringKeyed.self] }

    func open() throws -> Database { try directory.open(Self.types) }

    /// A value of every property of `AllTypes`, of other Swift types where a conversion applies.
    static var allValues: [String: Any?] {
        [
            "bool": true, "int": Int8(-5), "int8": 7, "int16": Int64(16), "int32": Int16(-32), "int64": Int32.max,
            "float": 1.5, "double": Float(2.25), "string": "Zürich", "data": Data([1, 2, 3]),
            "date": Date(timeIntervalSince1970: 1_000_000), "uuid": UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8"),
            "decimal": Decimal(string: "12.34"), "objectId": ObjectId(string: "0123456789abcdef01234567"),
            "kind": "vip", "level": 9,
            "optBool": false, "optInt": 42, "optInt8": Int(-8), "optInt16": 16, "optInt32": 32, "optInt64": UInt8(64),
            "optFloat": Float(0.5), "optDouble": 3, "optString": "", "optData": [UInt8]([9]),
            "optDate": Date(timeIntervalSince1970: -1), "optUUID": "00000000-0000-0000-0000-000000000001",
            "optDecimal": 7, "optObjectId": ObjectId(string: "ffffffffffffffffffffffff"), "optKind": Kind.regular, "optLevel": 1,
        ]
    }

    /// Every property of an object, as text, but `id`.
    static func described(_ object: ObjectBase) throws -> [String: String] {
        var values: [String: String] = [:]
        for property in object.objectSchema.properties where property.name != "id" {
            values[property.name] = "\(try object.value(forKey: property.name) ?? "nil")"
        }
        return values
    }

    /// The number of stored objects of each class the tests write.
    static func counts(_ db: Database) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: ["Owner", "Pet", "Address", "Location", "Note"].map { ($0, db.storedCount($0)) })
    }

    // MARK: Values

    @Test func everyValueTypeRoundTripsAsCreateConvertsIt() throws {
        let db = try open()
        var typedValue: [String: Any] = ["id": 2]
        for (name, value) in Self.allValues { typedValue[name] = value as Any }
        let created = try db.write {
            let dynamic = try db.createDynamicObject("AllTypes", value: Self.allValues.merging(["id": 1]) { $1 })
            try db.create(AllTypes.self, value: typedValue)
            return dynamic
        }
        #expect(created.className == "AllTypes" && created["id"] as? Int == 1)
        let dynamic = try #require(db.object(ofType: AllTypes.self, forPrimaryKey: 1))
        let typed = try #require(db.object(ofType: AllTypes.self, forPrimaryKey: 2))
        #expect(try Self.described(dynamic) == Self.described(typed))
        #expect(dynamic.int == -5 && dynamic.int16 == 16 && dynamic.int32 == -32 && dynamic.int64 == Int64(Int32.max))
        #expect(dynamic.float == 1.5 && dynamic.double == 2.25 && dynamic.string == "Zürich" && dynamic.data == Data([1, 2, 3]))
        #expect(dynamic.decimal == Decimal(string: "12.34") && dynamic.kind == .vip && dynamic.level == .high)
        #expect(dynamic.optInt64 == 64 && dynamic.optData == Data([9]) && dynamic.optDouble == 3 && dynamic.optDecimal == 7)
        #expect(dynamic.optUUID == UUID(uuidString: "00000000-0000-0000-0000-000000000001") && dynamic.optKind == .regular)
        // And read back by name, as the object it returned.
        #expect(try Self.described(created) == Self.described(dynamic))
    }

    @Test func missingPropertiesGetDefaultsAndOptionalsTakeNil() throws {
        let db = try open()
        try db.write {
            try db.createDynamicObject("AllTypes", value: ["id": 1, "optInt": nil, "optString": NSNull(), "optKind": Optional<Kind>.none])
        }
        let stored = try #require(db.object(ofType: AllTypes.self, forPrimaryKey: 1))
        #expect(try Self.described(stored) == Self.described(AllTypes()))
        #expect(stored.optInt == nil && stored.optString == nil && stored.optKind == nil)
    }

    @Test func generatedDefaultsAreNewForEachObject() throws {
        let db = try open()
        try db.write {
            try db.createDynamicObject("UUIDKeyed", value: ["value": 1])
            try db.createDynamicObject("UUIDKeyed", value: ["value": 2])
        }
        let keys = db.objects(UUIDKeyed.self).map(\.key)
        #expect(keys.count == 2 && Set(keys).count == 2)
    }

    @Test func aFileWithoutItsModelClassesTakesTheStoredTypes() throws {
        do {
            let db = try open()
            try db.write { try db.add(pet(1, "Rex")) }
        }
        do {
            let db = try Database(configuration: directory.configuration(nil))
            #expect(db.classInfo(named: "Owner")?.layout == nil)
            try db.write {
                try db.createDynamicObject("Owner", value: [
                    "id": 1, "name": "Ann", "favorite": 1, "pets": [1, ["id": 2, "name": "Fido"]], "numbers": [1, nil],
                    "scores": ["a": 1], "address": ["city": "Oslo", "location": ["latitude": 2]],
                ])
                try db.createDynamicObject("AllTypes", value: Self.allValues.merging(["id": 1, "optKind": "regular"]) { $1 })
            }
        }
        let db = try open()
        let owner = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        #expect(owner.name == "Ann" && owner.favorite?.name == "Rex" && owner.pets.map(\.name) == ["Rex", "Fido"])
        #expect(Array(owner.numbers) == [1, nil] && owner.scores["a"] == 1)
        #expect(owner.address?.city == "Oslo" && owner.address?.location?.latitude == 2)
        let all = try #require(db.object(ofType: AllTypes.self, forPrimaryKey: 1))
        #expect(all.kind == .vip && all.level == .high && all.int == -5 && all.optUUID != nil && all.float == 1.5)
    }

    // MARK: Links

    @Test func linksTakeObjectsPrimaryKeysAndNil() throws {
        let db = try open()
        try db.write {
            let rex = try db.createDynamicObject("Pet", value: ["id": 1, "name": "Rex"])
            try db.add(pet(2, "Fido"))
            try db.createDynamicObject("Owner", value: ["id": 1, "favorite": rex, "best": nil])
            try db.createDynamicObject("Owner", value: ["id": 2, "favorite": 2, "best": 1])
            let managed = try #require(db.object(ofType: Pet.self, forPrimaryKey: 2))
            try db.createDynamicObject("Owner", value: ["id": 3, "favorite": managed, "best": Int8(2)])
            try db.createDynamicObject("Owner", value: ["id": 4, "favorite": pet(3, "New")])   // unmanaged: added
            try db.createDynamicObject("StringKeyed", value: ["key": "k"])
        }
        let owners = (1...4).map { db.object(ofType: Owner.self, forPrimaryKey: $0) }
        #expect(owners.map { $0?.favorite?.id } == [1, 2, 2, 3])
        #expect(owners.map { $0?.best?.id } == [nil, 1, 2, nil])
        #expect(db.object(ofType: Pet.self, forPrimaryKey: 2)?.fans.count == 2)
        #expect(db.object(ofType: Pet.self, forPrimaryKey: 3)?.name == "New")
    }

    @Test func nonEmbeddedDictionariesCreateTheTargetWithTheSamePolicy() throws {
        let db = try open()
        try db.write {
            try db.createDynamicObject("Owner", value: ["id": 1, "favorite": ["id": 5, "name": "Rex"]])
            let error = try #require(throws: ObjDBError.self) {
                try db.createDynamicObject("Owner", value: ["id": 2, "favorite": ["id": 5, "name": "Clash"]])
            }
            #expect(error.code == .primaryKeyExists && error.className == "Pet")
            try db.createDynamicObject("Owner", value: ["id": 2, "favorite": ["id": 5, "name": "Max"]], update: .modified)
        }
        #expect(db.objects(Pet.self).map(\.name) == ["Max"])
        #expect(db.objects(Owner.self).map { $0.favorite?.name } == ["Max", "Max"])
    }

    // MARK: Collections

    @Test func listsSetsAndMapsOfValuesMatchCreate() throws {
        let db = try open()
        let values: [String: Any] = [
            "tags": ["b", "a", "b"], "numbers": [1, nil, Int8(3)] as [Any?], "nicknames": ["x", "y", "x"],
            "scores": ["b": 2, "a": 1.5, "é": -1] as [String: Any],
        ]
        try db.write {
            try db.createDynamicObject("Owner", value: values.merging(["id": 1]) { $1 })
            try db.create(Owner.self, value: values.merging(["id": 2]) { $1 })
        }
        let dynamic = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        let typed = try #require(db.object(ofType: Owner.self, forPrimaryKey: 2))
        #expect(Array(dynamic.tags) == ["b", "a", "b"] && Array(dynamic.numbers) == [1, nil, 3])
        #expect(Array(dynamic.nicknames) == ["x", "y"] && dynamic.nicknames.contains("y"))
        #expect(dynamic.scores.map(\.key) == ["a", "b", "é"] && dynamic.scores["a"] == 1.5 && dynamic.scores["é"] == -1)
        #expect(try Self.described(dynamic) == Self.described(typed))
        #expect(dynamic.scores.map(\.key) == typed.scores.map(\.key))
    }

    @Test func collectionsOfObjects() throws {
        let db = try open()
        try db.write {
            let rex = try db.createDynamicObject("Pet", value: ["id": 1, "name": "Rex"])
            try db.createDynamicObject("Pet", value: ["id": 2, "name": "Fido"])
            try db.createDynamicObject("Owner", value: ["id": 9])
            try db.createDynamicObject("Owner", value: [
                "id": 1, "pets": [rex, 2, ["id": 3, "name": "New"], 1], "friends": [9, 9],
                "petsByName": ["rex": rex, "fido": 2, "none": nil], "ownedPets": [pet(4, "Own")],
            ])
        }
        let owner = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        #expect(owner.pets.map(\.id) == [1, 2, 3, 1] && owner.friends.map(\.id) == [9])
        #expect(owner.petsByName["rex"]??.name == "Rex" && owner.petsByName["fido"]??.id == 2)
        let none = owner.petsByName["none"]
        #expect(owner.petsByName.count == 3 && none != nil && none??.id == nil)
        #expect(owner.ownedPets.map(\.name) == ["Own"])
        #expect(db.object(ofType: Pet.self, forPrimaryKey: 1)?.owners.map(\.id) == [1, 1])  // rex is in the list twice: two links
    }

    @Test func embeddedObjectsFromDictionariesBelongToTheirOwner() throws {
        let db = try open()
        try db.write {
            try db.createDynamicObject("Owner", value: [
                "id": 1, "address": ["city": "Oslo", "location": ["latitude": 59.9, "longitude": 10.7]],
                "pastAddresses": [["city": "Rome"], ["city": "Lima"]],
            ])
        }
        let owner = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        #expect(owner.address?.city == "Oslo" && owner.address?.location?.latitude == 59.9)
        #expect(owner.pastAddresses.map(\.city) == ["Rome", "Lima"])
        #expect(db.storedCount("Address") == 3 && db.storedCount("Location") == 1)
        // Replaced: the embedded objects let go of are deleted with their own embedded objects.
        try db.write {
            try db.createDynamicObject("Owner", value: ["id": 1, "address": ["city": "Bergen"], "pastAddresses": []], update: .modified)
        }
        #expect(owner.address?.city == "Bergen" && owner.pastAddresses.isEmpty)
        #expect(db.storedCount("Address") == 1 && db.storedCount("Location") == 0)
    }

    // MARK: Update policies

    @Test func updatePoliciesWriteOnlyTheGivenProperties() throws {
        let db = try open()
        try db.write { try db.createDynamicObject("Owner", value: ["id": 1, "name": "Ann", "tags": ["a"]]) }
        let before = db.lastCommittedTransactionID
        try db.write { try db.createDynamicObject("Owner", value: ["id": 1, "name": "Ann"], update: .modified) }
        #expect(db.lastCommittedTransactionID == before)   // nothing differed: nothing written

        db.beginWrite()
        let updated = try db.createDynamicObject("Owner", value: ["id": 1, "tags": ["b", "c"]], update: .modified)
        let columns = try #require(db.writeContext?.changes.classes.compactMap { $0 }.first?.modifications.values.first)
        let tagsColumn = try #require(db.schema["Owner"]?.properties.firstIndex { $0.name == "tags" })
        #expect(columns.columns == [tagsColumn])
        try db.commitWrite()
        #expect(updated["name"] as? String == "Ann")
        let owner = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        #expect(owner.name == "Ann" && Array(owner.tags) == ["b", "c"])

        db.beginWrite()
        try db.createDynamicObject("Owner", value: ["id": 1, "name": "Bea"], update: .all)
        let all = try #require(db.writeContext?.changes.classes.compactMap { $0 }.first?.modifications.values.first)
        #expect(all.count == db.schema["Owner"]?.properties.count)
        try db.createDynamicObject("Owner", value: ["id": 2, "name": "Cy"], update: .modified)   // absent: inserted
        try db.commitWrite()
        #expect(db.objects(Owner.self).map(\.name) == ["Bea", "Cy"] && Array(owner.tags) == ["b", "c"])
    }

    @Test func updatePoliciesNeedThePrimaryKey() throws {
        let db = try open()
        try db.write {
            try db.createDynamicObject("Owner", value: ["id": 1, "name": "Ann"])
            let duplicate = try #require(throws: ObjDBError.self) { try db.createDynamicObject("Owner", value: ["id": 1]) }
            #expect(duplicate.code == .primaryKeyExists && duplicate.className == "Owner" && duplicate.key == "1")
            #expect(duplicate.propertyName == "id")
            let noKey = try #require(throws: ObjDBError.self) {
                try db.createDynamicObject("Owner", value: ["name": "Bea"], update: .modified)
            }
            #expect(noKey.code == .missingPrimaryKey && noKey.propertyName == "id")
            let noKeyProperty = try #require(throws: ObjDBError.self) {
                try db.createDynamicObject("Note", value: ["text": "x"], update: .all)
            }
            #expect(noKeyProperty.code == .missingPrimaryKey && noKeyProperty.className == "Note")
        }
        #expect(db.objects(Owner.self).map(\.name) == ["Ann"] && db.objects(Note.self).isEmpty)
    }

    // MARK: Errors

    @Test func everyErrorLeavesNothingWritten() throws {
        let db = try open()
        try db.write {
            try db.createDynamicObject("Pet", value: ["id": 1, "name": "Rex"])
            try db.createDynamicObject("Owner", value: ["id": 1, "name": "Ann", "address": ["city": "Oslo"]])
        }
        let ann = try #require(db.dynamicObjects("Owner").first)
        let rex = try #require(db.dynamicObjects("Pet").first)
        let before = Self.counts(db)
        let failing: [(ObjDBError.Code, String?, String, [String: Any?], UpdatePolicy)] = [
            (.unknownClass, nil, "Nope", [:], .error),
            (.unknownProperty, "nope", "Owner", ["id": 2, "nope": 1], .error),
            (.typeMismatch, "name", "Owner", ["id": 2, "name": 5], .error),
            (.typeMismatch, "id", "Owner", ["id": "two"], .error),
            (.typeMismatch, "tags", "Owner", ["id": 2, "tags": [1]], .error),
            (.typeMismatch, "tags", "Owner", ["id": 2, "tags": "a"], .error),
            (.typeMismatch, "scores", "Owner", ["id": 2, "scores": ["a", "b"]], .error),
            (.typeMismatch, "pets", "Owner", ["id": 2, "pets": [nil]], .error),
            (.typeMismatch, "favorite", "Owner", ["id": 2, "favorite": ann], .error),
            (.typeMismatch, "favorite", "Owner", ["id": 2, "favorite": "Rex"], .error),
            (.typeMismatch, "address", "Owner", ["id": 2, "address": 1], .error),
            (.invalidValue, "favorite", "Owner", ["id": 2, "favorite": 99], .error),
            (.invalidValue, "owners", "Pet", ["id": 2, "owners": []], .error),
            (.invalidValue, nil, "Address", ["city": "Oslo"], .error),
            (.unknownProperty, "nope", "Owner", ["id": 2, "pets": [["id": 7, "nope": 1]]], .error),
            // Fails after embedded objects and a pet were written.
            (.typeMismatch, "city", "Owner", ["id": 2, "address": ["city": "A"], "pets": [["id": 7]], "pastAddresses": [["city": 5]]], .error),
            (.primaryKeyExists, "id", "Owner", ["id": 1, "address": ["city": "B"], "pets": [["id": 8]], "favorite": ["id": 9]], .error),
            (.primaryKeyExists, "id", "Owner", ["id": 2, "address": ["city": "C"], "pets": [["id": 10], ["id": 1]]], .error),
            (.invalidValue, "favorite", "Owner", ["id": 1, "address": ["city": "D"], "pastAddresses": [["city": "E"]], "favorite": 99], .modified),
            (.embeddedObjectOwned, nil, "Owner", ["id": 2, "address": ann["address"]], .error),
        ]
        try db.write {
            for (code, property, className, value, update) in failing {
                let error = try #require(throws: ObjDBError.self) { try db.createDynamicObject(className, value: value, update: update) }
                #expect(error.code == code, "\(className) \(value): \(error)")
                if let property { #expect(error.propertyName == property, "\(error)") }
                #expect(Self.counts(db) == before, "\(className) \(value) left objects behind")
            }
            let named = try #require(throws: ObjDBError.self) { try db.createDynamicObject("Owner", value: ["id": 2, "name": 5]) }
            #expect(named.className == "Owner" && named.message.contains("Owner.name"))
        }
        #expect(Self.counts(db) == before)
        #expect(ann["name"] as? String == "Ann" && (ann["address"] as? DynamicObject)?["city"] as? String == "Oslo")
        #expect(rex["name"] as? String == "Rex" && db.objects(Owner.self).map(\.id) == [1])
        let outside = try #require(throws: ObjDBError.self) { try db.createDynamicObject("Owner", value: ["id": 3]) }
        #expect(outside.code == .notInWriteTransaction)
    }

    // MARK: setValue(_:forKey:) by name

    @Test func setValueByNameSetsLinksAndCollections() throws {
        let db = try open()
        try db.write {
            try db.createDynamicObject("Pet", value: ["id": 1, "name": "Rex"])
            try db.createDynamicObject("Pet", value: ["id": 2, "name": "Fido"])
            try db.createDynamicObject("Owner", value: ["id": 1, "address": ["city": "Oslo"]])
        }
        let owner = try #require(db.dynamicObjects("Owner").first)
        let typed = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        try db.write {
            owner["favorite"] = 2
            owner.best = owner
            typed.tags.append("pending")   // a pending edit of the column, replaced below
            try owner.setValue(["a", "b"], forKey: "tags")
            owner["pets"] = [1, db.dynamicObjects("Pet").last] as [Any?]
            owner["scores"] = ["x": 1]
            owner["address"] = ["city": "Rome"]
            owner["pastAddresses"] = [["city": "Lima"]]
        }
        #expect(typed.favorite?.name == "Fido" && typed.best?.id == 1 && Array(typed.tags) == ["a", "b"])
        #expect(typed.pets.map(\.id) == [1, 2] && typed.scores["x"] == 1)
        #expect(typed.address?.city == "Rome" && typed.pastAddresses.map(\.city) == ["Lima"] && db.storedCount("Address") == 2)
        #expect((owner["favorite"] as? DynamicObject)?["name"] as? String == "Fido")
        #expect((owner["tags"] as? [Any?])?.compactMap { $0 as? String } == ["a", "b"])

        let before = Self.counts(db)
        try db.write {
            let missing = try #require(throws: ObjDBError.self) { try owner.setValue(99, forKey: "favorite") }
            #expect(missing.code == .invalidValue && missing.propertyName == "favorite")
            let late = try #require(throws: ObjDBError.self) {
                try owner.setValue([["city": "A"], ["city": 5]], forKey: "pastAddresses")
            }
            #expect(late.code == .typeMismatch && late.className == "Address")
            #expect(Self.counts(db) == before)
            owner["favorite"] = nil
        }
        #expect(typed.favorite == nil && typed.pastAddresses.map(\.city) == ["Lima"] && Self.counts(db) == before)
    }

    @Test func migrationsLinkByObjectButNotByPrimaryKey() throws {
        var configuration = directory.configuration(Self.types)
        do {
            let db = try Database(configuration: configuration)
            try db.write { try db.createDynamicObject("Owner", value: ["id": 1]) }
        }
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, _ in
            let pet = try migration.create("Pet", value: ["id": 5, "name": "Rex"])
            try migration.create("Owner", value: ["id": 2, "favorite": pet, "pets": [pet], "address": ["city": "Oslo"]])
            // Owner 1, from before the migration, links to itself.
            try migration.enumerateObjects(ofType: "Owner") { _, new in new?["best"] = new }
        }
        do {
            let db = try Database(configuration: configuration)
            let owner = try #require(db.object(ofType: Owner.self, forPrimaryKey: 2))
            #expect(owner.favorite?.name == "Rex" && owner.pets.count == 1 && owner.address?.city == "Oslo")
            #expect(db.object(ofType: Owner.self, forPrimaryKey: 1)?.best?.id == 1)
        }
        configuration.schemaVersion = 2
        configuration.migrationBlock = { migration, _ in
            try migration.enumerateObjects(ofType: "Owner") { _, new in new?["favorite"] = 5 }
        }
        let error = try #require(throws: ObjDBError.self) { try Database(configuration: configuration) }
        #expect(error.code == .invalidValue && error.propertyName == "favorite")
    }
}
