import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

class BaseModel: Object {
    @Persisted var inherited: String = "base"
}

final class DerivedModel: BaseModel {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(indexed: true) var tag: String = ""
    @Persisted var count: Int32? = nil
    var notPersisted = 42
    let alsoNotPersisted = "x"
}

final class TwoKeys: Object {
    @Persisted(primaryKey: true) var a: Int = 0
    @Persisted(primaryKey: true) var b: String = ""
}

final class Renamed: Object {
    override class var className: String { "LegacyName" }
    @Persisted var value: Int = 0
}

struct SchemaDiscoveryTests {
    @Test func discoversPersistedPropertiesInDeclarationOrderWithSuperclassFirst() throws {
        let schema = DerivedModel().objectSchema
        #expect(schema.className == "DerivedModel")
        #expect(schema.properties.map(\.name) == ["inherited", "id", "tag", "count"])
        #expect(schema.primaryKeyProperty?.name == "id")
        #expect(schema["tag"]?.isIndexed == true)
        #expect(schema["count"]?.type == .int)
        #expect(schema["count"]?.bitWidth == 32)
        #expect(schema["count"]?.isOptional == true)
        #expect(schema["count"]?.typeName == "Int32?")
        #expect(schema["notPersisted"] == nil)
        #expect(schema["inherited"]?.type == .string)
    }

    @Test func describesEveryValueType() {
        let schema = AllTypes().objectSchema
        let types = Dictionary(uniqueKeysWithValues: schema.properties.map { ($0.name, $0.typeName) })
        #expect(types["bool"] == "Bool" && types["int8"] == "Int8" && types["int64"] == "Int")
        #expect(types["float"] == "Float" && types["double"] == "Double" && types["string"] == "String")
        #expect(types["data"] == "Data" && types["date"] == "Date" && types["uuid"] == "UUID")
        #expect(types["decimal"] == "Decimal" && types["objectId"] == "ObjectId")
        #expect(types["kind"] == "String" && types["level"] == "Int")
        #expect(types["optKind"] == "String?" && types["optObjectId"] == "ObjectId?")
        #expect(schema.properties.count == 33)
    }

    @Test func twoPrimaryKeysAreRejected() throws {
        let error = try #require(throws: ObjDBError.self) { try SchemaDiscovery.layout(of: TwoKeys.self) }
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("2 primary keys"))
        #expect(error.className == "TwoKeys")
    }

    @Test func openingWithAnInvalidClassFails() throws {
        let directory = TemporaryDirectory()
        let error = try #require(throws: ObjDBError.self) { try directory.open([TwoKeys.self]) }
        #expect(error.code == .invalidSchema)
        #expect(!FileManager.default.fileExists(atPath: directory.file().path))
    }

    @Test func classNameCanBeOverridden() throws {
        #expect(Renamed().objectSchema.className == "LegacyName")
        let directory = TemporaryDirectory()
        let db = try directory.open([Renamed.self])
        try db.write { try db.add(Renamed()) }
        #expect(db.schema["LegacyName"] != nil)
        #expect(db.schema["Renamed"] == nil)
    }

    @Test func validationRejectsUnsupportedKeysAndIndexes() {
        let cases: [(Property, String)] = [
            (Property(name: "x", type: .double, isPrimaryKey: true), "primary keys must be"),
            (Property(name: "x", type: .date, isPrimaryKey: true), "primary keys must be"),
            (Property(name: "x", type: .bool, isOptional: true, isPrimaryKey: true), "primary keys must be"),
            (Property(name: "x", type: .double, isIndexed: true), "only integers"),
            (Property(name: "x", type: .data, isIndexed: true), "only integers"),
            (Property(name: "x", type: .decimal, isIndexed: true), "only integers"),
            (Property(name: "x", type: .int, bitWidth: 12), "integer width"),
            (Property(name: "", type: .int), "empty name"),
        ]
        for (property, expected) in cases {
            let schema = ObjectSchema(className: "C", properties: [property])
            let error = #expect(throws: ObjDBError.self) { try SchemaValidation.validate(schema) }
            #expect(error?.code == .invalidSchema)
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error") should mention \(expected)")
        }
        let duplicate = ObjectSchema(className: "C", properties: [Property(name: "a", type: .int), Property(name: "a", type: .string)])
        #expect(throws: ObjDBError.self) { try SchemaValidation.validate(duplicate) }
        let fine = ObjectSchema(className: "C", properties: [
            Property(name: "a", type: .objectId, isOptional: true, isPrimaryKey: true),
            Property(name: "b", type: .date, isIndexed: true), Property(name: "c", type: .bool, isIndexed: true),
        ])
        #expect(throws: Never.self) { try SchemaValidation.validate(fine) }
    }
}
