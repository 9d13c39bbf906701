import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// A damaged map is reported precisely: by the checked reader (``MapView/checked(_:)``), and by
/// `verify()` for a map stored in a row whose checksum still matches.
struct MapVerificationTests {
    let directory = TemporaryDirectory()

    /// Keys `["a", "bc"]`, as their own sequence.
    static let keys: [UInt8] = [0x00, 0x02, 0, 0, 0, 0x00, 0x01, 0x03, 0x61, 0x62, 0x63]
    /// Values `[1.0, 2.5]`, as their own sequence.
    static let values: [UInt8] = [0x00, 0x02, 0, 0, 0, 0x00, 0x08, 0x10, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0, 0, 0, 0, 0, 0, 0x04, 0x40]

    /// A map of `keys` and `values`, with `keysLength` the length of `keys` unless given.
    static func map(_ keys: [UInt8], _ values: [UInt8], keysLength: Int? = nil) -> [UInt8] {
        let length = UInt32(keysLength ?? keys.count)
        return withUnsafeBytes(of: length.littleEndian) { Array($0) } + keys + values
    }

    /// Damaged maps and what the checked reader says about each.
    static let damaged: [(bytes: [UInt8], damage: MapView.Damage)] = [
        ([0x0B, 0, 0], .tooShort(byteCount: 3)),
        (map(keys, values, keysLength: 255), .keysPastEnd(keysLength: 255, byteCount: 39)),
        (map([0x03] + keys.dropFirst(), values), .keys),                        // no offset width 3
        (map(keys, values + [0]), .values),                                     // a byte after the data
        (map(keys, [0x00, 0x01, 0, 0, 0, 0x00, 0x08] + values.suffix(8)), .countsDiffer(keys: 2, values: 1)),
        (map([0x00, 0x02, 0, 0, 0, 0x00, 0x01, 0x03, 0xFF, 0x62, 0x63], values), .keyNotAString(index: 0)),
        (map([0x00, 0x02, 0, 0, 0, 0x00, 0x02, 0x03, 0x62, 0x63, 0x61], values), .keysOutOfOrder(index: 1)),  // "bc", "a"
        (map([0x00, 0x02, 0, 0, 0, 0x00, 0x01, 0x02, 0x61, 0x61], values), .keysOutOfOrder(index: 1)),        // "a" twice
    ]

    @Test func theCheckedReaderSaysWhatIsWrong() {
        for (bytes, damage) in Self.damaged {
            let outcome = bytes.withUnsafeBytes { MapView.checked($0) }
            guard case .failure(let found) = outcome else {
                Issue.record("\(bytes) read as a map")
                continue
            }
            #expect(found == damage)
        }
        let whole = Self.map(Self.keys, Self.values)
        #expect(whole == MapFormatTests.scores)
        let map = whole.withUnsafeBytes { try? MapView.checked($0).get() }
        #expect(map?.count == 2)
    }

    @Test func verifyReportsEachDamagedMapOfAStoredObject() throws {
        let db = try directory.open([Owner.self])
        let owner = MapFormatTests.ownerWithScores(id: 1)
        try db.write { try db.add(owner) }
        let info = try #require(owner._objdbInfo)
        let column = try info.column(named: "scores")
        #expect(try db.verify().isHealthy)
        let badValue = Self.map(Self.keys, [0x00, 0x02, 0, 0, 0, 0x00, 0x08, 0x0B] + Self.values.dropFirst(8).prefix(11))
        let cases = Self.damaged.map { ($0.bytes, $0.damage.description) } + [(badValue, "element 1: 3 bytes that are not a valid Double")]
        for (bytes, message) in cases {
            try rewrite(db, info, key: owner._objdbKey, column: column, to: bytes)
            let problems = try db.verify().problems
            #expect(problems.count == 1, "\(problems)")
            let problem = try #require(problems.first)
            #expect(problem.kind == .row && problem.className == "Owner" && problem.objectKey == owner._objdbKey)
            #expect(problem.message == "'scores': \(message)")
        }
    }

    /// Replaces column `column` of the row of object `key` through the raw storage layer; the
    /// row's checksum is sealed again, so only the column is wrong.
    func rewrite(_ db: Database, _ info: ClassInfo, key: UInt64, column: Int, to bytes: [UInt8]) throws {
        let write = try WriteTransaction(db.environment)
        let txn = write.txn
        let stored = try #require(try txn.get(info.objectsTable, key: key))
        let row = try #require(RowView(stored))
        let builder = RowBuilder()
        for c in 0..<info.columnCount {
            if c == column { bytes.withUnsafeBytes { builder.append(raw: $0) } } else { builder.append(row.column(c)) }
        }
        try builder.encoded(key: key).withUnsafeBytes { _ = try txn.put(info.objectsTable, key: key, value: $0) }
        try write.commit()
        db.refresh()
    }
}
