import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// The bytes on disk are the ones `Docs/FileFormat.md` documents.
struct FileFormatTests {
    let directory = TemporaryDirectory()

    @Test func documentedExampleRow() throws {
        let db = try directory.open([Person.self])
        let ann = person(1, "Ann")
        ann.kind = .vip
        try db.write { try db.add(ann) }
        let info = try #require(try db.classInfo(for: Person.self))
        let txn = try #require(db.readableTxn())
        let row = try #require(try txn.get(info.tables.objects, key: ann._objdbKey))
        #expect(Array(row) == [0x00, 0x04, 0x00, 0x04, 0x01, 0x04, 0x04, 0x07, 0x01, 0x41, 0x6E, 0x6E, 0x76, 0x69, 0x70])
        #expect(ann._objdbKey == 1)
        // Primary key 1: tag 0x01, then 1 as big-endian Int64 with the sign bit flipped.
        let pkTable = try #require(info.tables.primaryKeys)
        let key: [UInt8] = [0x01, 0x80, 0, 0, 0, 0, 0, 0, 0x01]
        let found = try key.withUnsafeBytes { try txn.get(pkTable, key: $0) }
        #expect(found.map { $0.loadUnaligned(as: UInt64.self) } == 1)
    }

    @Test func metaRecords() throws {
        let db = try directory.open([Person.self])
        try db.write { try db.add(person(1, "Ann")) }
        let txn = try #require(db.readableTxn())
        let magic = try #require(try FileMeta.get(txn, db.metaTable, "magic"))
        #expect(Array(magic) == Array("ObjDB".utf8))
        let format = try #require(try FileMeta.get(txn, db.metaTable, "format"))
        #expect(Array(format) == [1, 0, 0, 0])
        #expect(try FileMeta.readUInt64(txn, db.metaTable, "nextKey.1") == 2)
        let schema = try #require(try FileMeta.get(txn, db.metaTable, "schema"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(schema)) as? [String: Any])
        let classes = try #require(json["classes"] as? [[String: Any]])
        #expect(classes.first?["name"] as? String == "Person")
        let properties = try #require(classes.first?["properties"] as? [[String: Any]])
        #expect(properties.map { $0["name"] as? String } == ["id", "name", "age", "kind"])
        #expect(properties.map { $0["type"] as? String } == ["int", "string", "int", "string"])
        #expect(properties[0]["bits"] as? Int == 64 && properties[1]["bits"] == nil)
        #expect(json["nextClassID"] as? Int == 2)
    }
}
