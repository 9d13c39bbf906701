import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Every writer of a map column writes the layout of `Docs/FileFormat.md` ("Sequences and
/// maps"), and the reader reads it back; the expected bytes are written out by hand from the
/// document, not produced by ObjDB's encoder.
struct MapFormatTests {
    let directory = TemporaryDirectory()

    /// `["a": 1.0, "bc": 2.5]` as a `Map<String, Double>`.
    static let scores: [UInt8] = [
        0x0B, 0, 0, 0,                                      // keysLength: 11
        0x00, 0x02, 0, 0, 0, 0x00, 0x01, 0x03,              // keys: 1-byte ends, 2 elements, no nulls, ends 1 and 3
        0x61, 0x62, 0x63,                                   // "a", "bc"
        0x00, 0x02, 0, 0, 0, 0x00, 0x08, 0x10,              // values: 2 elements, ends 8 and 16
        0, 0, 0, 0, 0, 0, 0xF0, 0x3F,                       // 1.0
        0, 0, 0, 0, 0, 0, 0x04, 0x40,                       // 2.5
    ]

    /// An empty map: keysLength 5, then two empty sequences.
    static let emptyMap: [UInt8] = [0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]

    /// An unmanaged owner whose `scores` are those of ``scores``, entered out of key order.
    static func ownerWithScores(id: Int) -> Owner {
        let owner = Owner()
        owner.id = id
        owner.scores["bc"] = 2.5
        owner.scores["a"] = 1.0
        return owner
    }

    /// The bytes of column `name` of `object`'s stored row.
    func stored(_ db: Database, _ object: ObjectBase, _ name: String) throws -> [UInt8] {
        let info = try #require(object._objdbInfo)
        let txn = try db.requireReadableTxn()
        let bytes = try #require(try txn.get(info.objectsTable, key: object._objdbKey))
        let row = try #require(RowView(bytes))
        guard case .value(let column) = row.column(try info.column(named: name)) else {
            Issue.record("column \(name) is not a value")
            return []
        }
        return Array(column)
    }

    @Test func anAddedMapIsStoredAsDocumented() throws {
        let db = try directory.open([Owner.self])
        let owner = Self.ownerWithScores(id: 1)
        let empty = Owner()
        empty.id = 2
        try db.write {
            try db.add(owner)
            try db.add(empty)
        }
        #expect(try stored(db, owner, "scores") == Self.scores)
        #expect(try stored(db, empty, "scores") == Self.emptyMap)
    }

    @Test func anEditedMapIsWrittenBackAsDocumented() throws {
        let db = try directory.open([Owner.self])
        let owner = Owner()
        owner.id = 1
        owner.scores["zz"] = 9
        try db.write { try db.add(owner) }
        try db.write {
            owner.scores["bc"] = 2.5
            owner.scores["a"] = 1.0
            owner.scores["zz"] = nil
        }
        #expect(try stored(db, owner, "scores") == Self.scores)
        try db.write { owner.scores.removeAll() }
        #expect(try stored(db, owner, "scores") == Self.emptyMap)
    }

    @Test func aDynamicObjectsMapIsStoredAsDocumented() throws {
        let db = try directory.open([Owner.self])
        let owner = try db.write {
            try db.createDynamicObject("Owner", value: ["id": 1, "scores": ["bc": 2.5, "a": 1.0]])
        }
        #expect(try stored(db, owner, "scores") == Self.scores)
        let read = owner.scores as? [String: Any?]
        #expect(read?["a"] as? Double == 1.0 && read?["bc"] as? Double == 2.5 && read?.count == 2)
    }

    /// Deleting a linked object rewrites the maps that hold it without its entries.
    @Test func deletingALinkedObjectRewritesTheMapWithoutIt() throws {
        let db = try directory.open([Owner.self])
        let owner = Owner()
        owner.id = 1
        let first = Pet()
        first.id = 1
        let second = Pet()
        second.id = 2
        owner.petsByName["first"] = first
        owner.petsByName["second"] = second
        try db.write { try db.add(owner) }
        try db.write { db.delete(first) }
        var expected: [UInt8] = [
            0x0D, 0, 0, 0,                                          // keysLength: 13
            0x00, 0x01, 0, 0, 0, 0x00, 0x06,                        // keys: 1 element, ends at 6
            0x73, 0x65, 0x63, 0x6F, 0x6E, 0x64,                     // "second"
            0x00, 0x01, 0, 0, 0, 0x00, 0x08,                        // values: 1 element, ends at 8
        ]
        withUnsafeBytes(of: second._objdbKey.littleEndian) { expected += $0 }
        #expect(try stored(db, owner, "petsByName") == expected)
        #expect(owner.petsByName.count == 1)
        #expect(owner.petsByName["second"]??.id == 2)
    }

    @Test func theReaderReadsTheDocumentedBytes() {
        Self.scores.withUnsafeBytes { bytes in
            let map = MapView(.value(bytes))
            #expect(map.count == 2)
            guard case .value(let key) = map.keys.element(1), case .value(let value) = map.values.element(1) else {
                Issue.record("entry 1 missing")
                return
            }
            #expect(Array(key) == Array("bc".utf8))
            #expect(value.loadUnaligned(as: Double.self) == 2.5)
            #expect(Array("bc".utf8).withUnsafeBytes { map.index(of: $0) } == 1)
            #expect(Array("b".utf8).withUnsafeBytes { map.index(of: $0) } == nil)
        }
    }

    /// Bytes that are not a map.
    static let damaged: [[UInt8]] = [
        [0x0B, 0, 0],                                            // too short for keysLength
        [0xFF, 0, 0, 0] + scores.dropFirst(4),                   // keysLength past the end
        [0x0B, 0, 0, 0, 0x03] + scores.dropFirst(5),             // keys: no offset width 3
        Array(scores.prefix(15)) + [0x00, 0x01, 0, 0, 0, 0x00, 0x08, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F],  // 2 keys, 1 value
    ]

    /// Bytes that are not a map read as an empty one, never out of bounds.
    @Test(arguments: damaged)
    func damagedMapsReadAsEmpty(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { #expect(MapView(.value($0)).count == 0) }
    }
}
