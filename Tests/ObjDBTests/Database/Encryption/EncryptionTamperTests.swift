import Foundation
import Testing
@testable import ObjDB

/// A changed byte of an encrypted value is damage, reported, never read as another value.
struct EncryptionTamperTests {
    let directory = TemporaryDirectory()

    /// Collects what the read-failure channel reports.
    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var errors: [ObjDBError] = []
        func add(_ error: ObjDBError) { lock.withLock { errors.append(error) } }
        var all: [ObjDBError] { lock.withLock { errors } }
    }

    /// The sealed bytes that hold the value under `key` of `table`: the value's own, or its row
    /// bucket's when the entry holds the bucket marker.
    static func storedValue(_ txn: Txn, _ db: Database, _ table: Table, key: UInt64) throws -> [UInt8] {
        var objectKey = key
        let stored = try #require(try withUnsafeBytes(of: &objectKey) { try txn.rawGet(table, key: $0) }.map(Array.init))
        guard stored.isEmpty else { return stored }
        let buckets = try #require(db.environment.rowBuckets)
        return try #require(
            try RowBucket.withStoredKey(tag: table.tag, bucket: RowBucket.bucket(of: key)) { try txn.rawGet(buckets, key: $0) }.map(Array.init))
    }

    /// The stored (sealed) bytes of object `key` of `type`'s table (its bucket's, when it lies in
    /// one), and where they lie in the file.
    private func storedRow(_ db: Database, _ type: Object.Type, key: UInt64, file: [UInt8]) throws -> Range<Int> {
        let info = try #require(try db.classInfo(for: type))
        let txn = try db.requireReadableTxn()
        let sealed = try EncryptionTamperTests.storedValue(txn, db, info.tables.objects, key: key)
        var found: [Int] = []
        var i = 0
        while i + sealed.count <= file.count {
            if file[i] == sealed[0] && file[i..<(i + sealed.count)].elementsEqual(sealed) { found.append(i) }
            i += 1
        }
        try #require(found.count == 1, "the sealed row is found once in the file")
        return found[0]..<(found[0] + sealed.count)
    }

    @Test func everyChangedByteOfAnEncryptedRowIsDamageNeverAnotherValue() throws {
        let url = directory.file("tamper.objdb")
        let visitKey: UInt64
        let range: Range<Int>
        let original: [UInt8]
        do {
            let db = try Database(configuration: EncryptionFixture.configuration(url))
            try EncryptionFixture.fill(db)
            visitKey = try #require(db.objects(ZebraVisit.self).first?._objdbKey)
            _ = db.refresh()
            original = try EncryptionFixture.bytes(url)
            range = try storedRow(db, ZebraVisit.self, key: visitKey, file: original)
        }
        let damaged = directory.file("damaged.objdb")
        for offset in range {
            var bytes = original
            bytes[offset] ^= 0x01
            try? FileManager.default.removeItem(at: damaged)
            try? FileManager.default.removeItem(atPath: damaged.path + "-lock")
            try Data(bytes).write(to: damaged)
            let failures = Failures()
            var config = EncryptionFixture.configuration(damaged)
            config.readFailureHandler = { failures.add($0) }
            let db = try Database(configuration: config)
            // Every read of the visit either reports damage or has no value: never another note.
            let notes = db.objects(ZebraVisit.self).map(\.gharialNote)
            #expect(notes.allSatisfy { $0 == "" || $0 == EncryptionFixture.note })
            #expect(!notes.contains(EncryptionFixture.note), "byte \(offset - range.lowerBound) changed and the row still read")
            #expect(failures.all.contains { $0.code == .corruptFile }, "byte \(offset - range.lowerBound): no damage reported")
            let report = try db.verify()
            #expect(report.problems.contains { $0.kind == .checksum && $0.objectKey == visitKey }, "byte \(offset - range.lowerBound): verify() found nothing")
        }
    }

    /// A changed byte of the sealed schema (its names) refuses the open as damage.
    @Test func aChangedByteOfTheSealedSchemaIsDamage() throws {
        let url = directory.file("schema.objdb")
        let starts: [Int]
        let length: Int
        let original: [UInt8]
        do {
            let db = try Database(configuration: EncryptionFixture.configuration(url))
            try EncryptionFixture.fill(db)
            _ = db.refresh()
            original = try EncryptionFixture.bytes(url)
            let txn = try db.requireReadableTxn()
            let meta = try #require(try db.environment.existingTable(named: "meta", flags: .plain))
            let sealed = try #require(try Array("schema".utf8).withUnsafeBytes { try txn.rawGet(meta, key: $0) }.map(Array.init))
            // The current page and older copies of it that LMDB freed: all are changed.
            starts = (0...(original.count - sealed.count)).filter { original[$0..<($0 + sealed.count)].elementsEqual(sealed) }
            length = sealed.count
        }
        try #require(!starts.isEmpty)
        let damaged = directory.file("schema-damaged.objdb")
        // The nonce, a byte of the ciphertext and the tag.
        for offset in [0, 20, length - 1] {
            var bytes = original
            for start in starts { bytes[start + offset] ^= 0x80 }
            try? FileManager.default.removeItem(at: damaged)
            try? FileManager.default.removeItem(atPath: damaged.path + "-lock")
            try Data(bytes).write(to: damaged)
            #expect {
                _ = try Database(configuration: EncryptionFixture.configuration(damaged))
            } throws: { error in
                guard let error = error as? ObjDBError else { return false }
                return error.code == .corruptFile && error.message.contains("does not authenticate")
            }
        }
    }

    /// A sealed row moved under another object key does not open there. The rows are longer than
    /// a row bucket keeps (``RowBucket/largestValue``), so each is sealed on its own.
    @Test func aRowCopiedUnderAnotherKeyDoesNotAuthenticate() throws {
        let url = directory.file("moved.objdb")
        let db = try Database(configuration: EncryptionFixture.configuration(url))
        try EncryptionFixture.fill(db, count: 2)
        try db.write {
            for patient in db.objects(ZebraPatient.self) { patient.pangolinScan = Data(repeating: 0x5C, count: RowBucket.largestValue + 1) }
        }
        let info = try #require(try db.classInfo(for: ZebraPatient.self))
        let keys = db.objects(ZebraPatient.self).map(\._objdbKey)
        try db.write {
            let txn = try db.requireReadableTxn()
            var first = keys[0]
            var second = keys[1]
            let sealed = try #require(try withUnsafeBytes(of: &first) { try txn.rawGet(info.tables.objects, key: $0) }.map(Array.init))
            try #require(sealed.count > RowBucket.largestValue, "the row is sealed on its own")
            _ = try withUnsafeBytes(of: &second) { k in try sealed.withUnsafeBytes { try txn.rawPut(info.tables.objects, key: k, value: $0) } }
        }
        let report = try db.verify()
        #expect(report.problems.contains { $0.kind == .checksum && $0.objectKey == keys[1] })
        #expect(!report.problems.contains { $0.objectKey == keys[0] })
    }
}
