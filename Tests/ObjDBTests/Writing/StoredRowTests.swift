import Foundation
import Testing
@testable @_spi(Inspection) import ObjDB
import ObjDBTestModels

/// `forEachStoredRow(ofClassNamed:_:)`, the typed in-place row reader tools use: each typed read
/// gives the value the object gives, a read of the wrong kind gives `nil`, and damage is
/// reported or thrown, never passed off as data.
@Suite(.serialized)
struct StoredRowTests {
    let directory = TemporaryDirectory()

    func open(_ failures: FailureBox = FailureBox()) throws -> Database {
        var config = directory.configuration([AllTypes.self])
        config.readFailureHandler = { failures.append($0) }
        let db = try Database(configuration: config)
        try db.write {
            let full = AllTypes()
            full.id = 1
            full.bool = true
            full.int = -42
            full.int8 = -8
            full.int64 = 6_400_000_000
            full.float = 1.5
            full.double = -2.25
            full.string = "héllo \"world\""
            full.data = Data([1, 2, 3])
            full.date = Date(timeIntervalSinceReferenceDate: 12.5)
            full.kind = .vip
            full.optInt = 7
            try db.add(full)
            let empty = AllTypes()
            empty.id = 2
            try db.add(empty)
        }
        return db
    }

    func column(_ name: String, _ db: Database) throws -> Int {
        let stored = try #require(db.schema["AllTypes"]).properties.filter { !$0.isComputed }
        return try #require(stored.firstIndex { $0.name == name })
    }

    @Test func typedReadsGiveWhatTheObjectsGive() throws {
        let db = try open()
        var rows: [(UInt64, Int64?, Double?, Float?, Bool?, String?, Double?, Bool, Bool)] = []
        let (id, double, float, bool, string, date, optInt) = (
            try column("id", db), try column("double", db), try column("float", db), try column("bool", db),
            try column("string", db), try column("date", db), try column("optInt", db)
        )
        try db.forEachStoredRow(ofClassNamed: "AllTypes") { row in
            rows.append((
                row.objectKey, row.integer(id), row.double(double), row.float(float), row.bool(bool),
                row.utf8(string).map { String(decoding: $0, as: UTF8.self) }, row.double(date),
                row.isNull(optInt), row.integer(optInt) == 7
            ))
        }
        #expect(rows.count == 2)
        let full = try #require(rows.first), empty = try #require(rows.last)
        #expect(full.0 < empty.0)
        #expect(full.1 == 1 && full.2 == -2.25 && full.3 == 1.5 && full.4 == true)
        #expect(full.5 == "héllo \"world\"" && full.6 == 12.5 && !full.7 && full.8)
        #expect(empty.1 == 2 && empty.2 == 0 && empty.4 == false && empty.5 == "")
        #expect(empty.7 && !empty.8)
    }

    @Test func readsOfAnotherKindOrColumnGiveNilAndTheObjectReadsAnyColumn() throws {
        let db = try open()
        let (string, int, data, kind) = (try column("string", db), try column("int", db), try column("data", db), try column("kind", db))
        var checked = 0
        try db.forEachStoredRow(ofClassNamed: "AllTypes") { row in
            guard row.integer(try column("id", db)) == 1 else { return }
            #expect(row.integer(string) == nil)
            #expect(row.double(int) == nil)
            #expect(row.bool(string) == nil)
            #expect(row.integer(-1) == nil && row.integer(10_000) == nil && !row.isNull(10_000))
            #expect(row.object()?.value(atColumn: int) as? Int == -42)
            #expect(row.object()?.value(atColumn: data) as? Data == Data([1, 2, 3]))
            #expect(row.object()?.value(atColumn: kind) as? String == Kind.vip.rawValue)
            checked += 1
        }
        #expect(checked == 1)
        var none = 0
        try db.forEachStoredRow(ofClassNamed: "NoSuchClass") { _ in none += 1 }
        #expect(none == 0)
    }

    @Test func aRowThatFailsItsChecksumIsReportedAndBytesThatAreNoRowThrow() throws {
        let failures = FailureBox()
        let db = try open(failures)
        let info = try #require(try db.classInfo(for: AllTypes.self))
        let object = try #require(db.object(ofType: AllTypes.self, forPrimaryKey: 1))
        let key = object._objdbKey
        // Change one byte of the string ("héllo" → "hállo") and keep the old checksum.
        try db.write {
            let txn = try #require(db.writeContext?.transaction.txn)
            var bytes = Array(try #require(try txn.get(info.tables.objects, key: key)))
            let at = try #require(bytes.indices.dropLast().first { bytes[$0] == 0xC3 && bytes[$0 + 1] == 0xA9 })  // "é"
            bytes[at + 1] = 0xA1
            try bytes.withUnsafeBytes { _ = try txn.put(info.tables.objects, key: key, value: $0) }
        }
        failures.removeAll()
        var strings: [String] = []
        let string = try column("string", db)
        try db.forEachStoredRow(ofClassNamed: "AllTypes") { row in
            strings.append(row.utf8(string).map { String(decoding: $0, as: UTF8.self) } ?? "-")
        }
        #expect(strings == ["hállo \"world\"", ""])
        #expect(failures.errors.contains { $0.code == .corruptFile && $0.className == "AllTypes" && $0.message.contains("checksum") }, "\(failures.errors)")

        try db.write {
            let txn = try #require(db.writeContext?.transaction.txn)
            try [UInt8](repeating: 0xFF, count: 2).withUnsafeBytes { _ = try txn.put(info.tables.objects, key: key, value: $0) }
        }
        let error = try #require(throws: ObjDBError.self) {
            try db.forEachStoredRow(ofClassNamed: "AllTypes") { _ in }
        }
        #expect(error.code == .corruptFile)
    }

    /// The walk keeps the version it began at pinned: the body may read other objects, and the
    /// rows it was handed stay readable.
    @Test func theBodyMayReadOtherObjectsWhileTheRowsStayValid() throws {
        let db = try open()
        let string = try column("string", db)
        var seen: [String] = []
        try db.forEachStoredRow(ofClassNamed: "AllTypes") { row in
            _ = db.objects(AllTypes.self).count
            _ = db.object(ofType: AllTypes.self, forPrimaryKey: 2)?.string
            seen.append(row.utf8(string).map { String(decoding: $0, as: UTF8.self) } ?? "-")
        }
        #expect(seen == ["héllo \"world\"", ""])
    }

    @Test func anErrorFromTheBodyEndsTheWalkAndIsRethrown() throws {
        struct Stop: Error {}
        let db = try open()
        var seen = 0
        #expect(throws: Stop.self) {
            try db.forEachStoredRow(ofClassNamed: "AllTypes") { _ in
                seen += 1
                throw Stop()
            }
        }
        #expect(seen == 1)
    }
}
