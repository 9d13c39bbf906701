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
        let body: [UInt8] = [0x04, 0x04, 0x00, 0x04, 0x01, 0x04, 0x04, 0x07, 0x01, 0x41, 0x6E, 0x6E, 0x76, 0x69, 0x70]
        #expect(Array(row.prefix(body.count)) == body)
        // The checksum: CRC-32C of the object key's 8 little-endian bytes, then the row before it.
        let crc = referenceCRC32C([1, 0, 0, 0, 0, 0, 0, 0] + body)
        #expect(Array(row.suffix(4)) == [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)])
        #expect(row.count == body.count + 4)
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
        #expect(Array(format) == [3, 0, 0, 0])
        // The checksum of every other record, each as length, bytes, length, bytes, in key order.
        var covered: [UInt8] = []
        for name in ["format", "magic", "nextKey.1", "schema", "schemaStamp", "schemaVersion"] {
            let value = try #require(try FileMeta.get(txn, db.metaTable, name))
            for part in [Array(name.utf8), Array(value)] {
                withUnsafeBytes(of: UInt32(part.count).littleEndian) { covered += $0 }
                covered += part
            }
        }
        let checksum = try #require(try FileMeta.get(txn, db.metaTable, "checksum"))
        #expect(checksum.loadUnaligned(as: UInt32.self) == referenceCRC32C(covered))
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

/// The relationship encodings of `Docs/FileFormat.md` (format version 2).
struct RelationshipFileFormatTests {
    let directory = TemporaryDirectory()

    @Test func documentedCollectionAndLinkColumns() throws {
        let db = try directory.open([FormatOwner.self])
        let owner = FormatOwner()
        owner.tags.append(contentsOf: ["a", "bc"])
        owner.scores["x"] = 1.5
        let pet = FormatPet()
        owner.pet = pet
        try db.write { try db.add(owner) }
        let info = try #require(try db.classInfo(for: FormatOwner.self))
        let txn = try db.requireReadableTxn()
        let bytes = try #require(try txn.get(info.tables.objects, key: owner._objdbKey))
        let row = try #require(RowView(bytes))
        guard case .value(let tags) = row.column(0), case .value(let scores) = row.column(1),
            case .value(let link) = row.column(2)
        else {
            Issue.record("columns missing")
            return
        }
        #expect(Array(tags) == [0x00, 0x02, 0, 0, 0, 0x00, 0x01, 0x03, 0x61, 0x62, 0x63])
        #expect(Array(scores) == [
            0x08, 0, 0, 0,                                   // keysLength
            0x00, 0x01, 0, 0, 0, 0x00, 0x01, 0x78,            // keys: ["x"]
            0x00, 0x01, 0, 0, 0, 0x00, 0x08,                  // values: one 8-byte element
            0, 0, 0, 0, 0, 0, 0xF8, 0x3F,                     // 1.5
        ])
        #expect(Array(link) == [0x01, 0, 0, 0, 0, 0, 0, 0])   // the pet's object key, 1
        // The backlink table of `pet`: target key 1 → origin key 1.
        #expect(try db.backlinkEntries("FormatOwner", "pet").map { [$0.0, $0.1] } == [[1, 1]])
        let schema = try #require(try FileMeta.get(txn, db.metaTable, "schema"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(schema)) as? [String: Any])
        let classes = try #require(json["classes"] as? [[String: Any]])
        let ownerClass = try #require(classes.first { $0["name"] as? String == "FormatOwner" })
        let properties = try #require(ownerClass["properties"] as? [[String: Any]])
        #expect(properties[0]["collection"] as? String == "list" && properties[0]["type"] as? String == "string")
        #expect(properties[1]["collection"] as? String == "map" && properties[1]["type"] as? String == "double")
        #expect(properties[2]["type"] as? String == "object" && properties[2]["objectClass"] as? String == "FormatPet")
        #expect(properties[2]["deleteRule"] as? String == "cascade")
        let petClass = try #require(classes.first { $0["name"] as? String == "FormatPet" })
        let computed = try #require(petClass["computed"] as? [[String: Any]])
        #expect(computed.first?["type"] as? String == "linkingObjects")
        #expect(computed.first?["origin"] as? String == "pet" && computed.first?["objectClass"] as? String == "FormatOwner")
        #expect(info.tables.backlinks[2] != nil)
        #expect(TableName.backlinks(info.classID, property: 3) == "c\(info.classID).b3")
    }

    @Test func versionOneFilesAreUpgradedWhenTheyGainRelationships() throws {
        do {
            let db = try directory.open([Person.self])
            try db.write { try db.add(person(1, "Ann")) }
            // Pretend an older ObjDB wrote it.
            try db.write {
                let txn = try #require(db.writeContext?.transaction.txn)
                try FileMeta.put(txn, db.metaTable, "format", [1, 0, 0, 0])
                try FileMeta.seal(txn, db.metaTable)
            }
        }
        do {
            let db = try directory.open([Person.self])
            #expect(db.formatVersion == 1)              // read as it is
        }
        let db = try directory.open([Person.self, FormatOwner.self])
        #expect(db.formatVersion == 3)
        let txn = try db.requireReadableTxn()
        #expect(Array(try #require(try FileMeta.get(txn, db.metaTable, "format"))) == [3, 0, 0, 0])
        #expect(db.objects(Person.self).first?.name == "Ann")
    }
}

/// CRC-32C computed bit by bit (the reflected polynomial 0x82F63B78), independent of the
/// table and CPU-instruction versions ObjDB uses.
func referenceCRC32C(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
    }
    return ~crc
}

/// The owner of the format example.
final class FormatOwner: Object {
    @Persisted var tags: List<String>
    @Persisted var scores: Map<String, Double>
    @Persisted(deleteRule: .cascade) var pet: FormatPet?
}

/// The pet of the format example.
final class FormatPet: Object {
    @Persisted var name: String = ""
    @Persisted(originProperty: "pet") var owners: LinkingObjects<FormatOwner>
}
