import Foundation
import Testing
@_spi(Inspection) @testable import ObjDB

/// An item of an encrypted file whose rows lie in row buckets.
final class BucketItem: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var note: String = ""
}

/// An encrypted file seals the short values of sixteen consecutive keys together
/// (``RowBucket``, ``BucketWrites``): every read and write must see the values as if each were
/// sealed on its own, and damage to a bucket must be reported, never read as another value.
@Suite struct RowBucketTests {
    private static func open(_ directory: TemporaryDirectory, handler: (@Sendable (ObjDBError) -> Void)? = nil) throws -> Database {
        var config = directory.configuration([BucketItem.self])
        config.encryptionKey = EncryptionFixture.key
        if let handler { config.readFailureHandler = handler }
        return try Database(configuration: config)
    }

    private static func item(_ id: Int, _ note: String? = nil) -> BucketItem {
        let item = BucketItem()
        item.id = id
        item.note = note ?? "note \(id)"
        return item
    }

    /// The notes by id, read through another instance of the file (a new snapshot; instances
    /// of one file in a process share its environment).
    private static func notes(_ directory: TemporaryDirectory) throws -> [Int: String] {
        let db = try open(directory)
        return Dictionary(uniqueKeysWithValues: db.objects(BucketItem.self).map { ($0.id, $0.note) })
    }

    /// The table of the items' rows and the number of their buckets stored.
    private static func bucketCount(_ db: Database) throws -> Int {
        let info = try #require(try db.classInfo(for: BucketItem.self))
        let buckets = try #require(db.environment.rowBuckets)
        let txn = try db.requireReadableTxn()
        let cursor = try Cursor(txn, buckets)
        var count = 0
        var entry = try cursor.first()
        while let current = entry {
            if RowBucket.parseStoredKey(current.key)?.tag == info.tables.objects.tag { count += 1 }
            entry = try cursor.next()
        }
        return count
    }

    /// The stored bytes of the entry of object `key` (empty: the row lies in its bucket).
    private static func entry(_ db: Database, key: UInt64) throws -> [UInt8]? {
        let info = try #require(try db.classInfo(for: BucketItem.self))
        var objectKey = key
        return try withUnsafeBytes(of: &objectKey) { try db.requireReadableTxn().rawGet(info.tables.objects, key: $0) }.map(Array.init)
    }

    @Test func rowsLieInBucketsOfSixteenConsecutiveKeys() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write { for id in 1...40 { try db.add(Self.item(id)) } }
        let keys = db.objects(BucketItem.self).map(\._objdbKey)
        #expect(keys.count == 40)
        for key in keys { #expect(try Self.entry(db, key: key) == [], "object key \(key) is not in its bucket") }
        // 40 consecutive keys span 3 buckets of 16, or 4 when they start past a bucket's 9th key.
        let first = try #require(keys.min())
        #expect(try Self.bucketCount(db) == (first % 16 <= 8 ? 3 : 4))
        let notes = try Self.notes(directory)
        #expect(notes.count == 40)
        #expect((1...40).allSatisfy { notes[$0] == "note \($0)" })
        #expect(try db.verify().problems.isEmpty)
    }

    @Test func updatesAndDeletesRewriteTheirBuckets() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write { for id in 1...40 { try db.add(Self.item(id)) } }
        let before = try Self.bucketCount(db)
        try db.write {
            for item in db.objects(BucketItem.self) where item.id <= 5 { item.note = "changed \(item.id)" }
            for item in Array(db.objects(BucketItem.self)) where item.id % 3 == 0 { db.delete(item) }
        }
        var expected: [Int: String] = [:]
        for id in 1...40 where id % 3 != 0 { expected[id] = id <= 5 ? "changed \(id)" : "note \(id)" }
        #expect(try Self.notes(directory) == expected)
        #expect(try Self.bucketCount(db) == before)
        // Deleting every object of the first bucket deletes the bucket.
        let firstBucket = try #require(db.objects(BucketItem.self).map(\._objdbKey).min()).quotientAndRemainder(dividingBy: 16).quotient
        try db.write {
            for item in Array(db.objects(BucketItem.self)) where item._objdbKey / 16 == firstBucket { db.delete(item) }
        }
        #expect(try Self.bucketCount(db) == before - 1)
        #expect(try db.verify().problems.isEmpty)
    }

    @Test func aWriteTransactionReadsWhatItWrote() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write { for id in 1...20 { try db.add(Self.item(id)) } }
        try db.write {
            for id in 21...30 { try db.add(Self.item(id)) }
            #expect(db.objects(BucketItem.self).count == 30)
            #expect(try db.objects(BucketItem.self).filter("note == 'note 25'").first?.id == 25)
            let item = try #require(db.object(ofType: BucketItem.self, forPrimaryKey: 7))
            item.note = "seven"
            #expect(try db.objects(BucketItem.self).filter("note == 'seven'").count == 1)
            #expect(db.object(ofType: BucketItem.self, forPrimaryKey: 8)?.note == "note 8")
            db.delete(item)
            #expect(db.object(ofType: BucketItem.self, forPrimaryKey: 7) == nil)
            #expect(db.objects(BucketItem.self).count == 29)
        }
        let notes = try Self.notes(directory)
        #expect(notes.count == 29 && notes[7] == nil && notes[8] == "note 8" && notes[30] == "note 30")
    }

    @Test func longValuesAreSealedOnTheirOwnAndShortAgainInTheirBucket() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write { for id in 1...20 { try db.add(Self.item(id)) } }
        let long = String(repeating: "L", count: RowBucket.largestValue + 100)
        try db.write { db.object(ofType: BucketItem.self, forPrimaryKey: 5)?.note = long }
        let key = try #require(db.object(ofType: BucketItem.self, forPrimaryKey: 5)?._objdbKey)
        #expect((try Self.entry(db, key: key)?.count ?? 0) > RowBucket.largestValue + 100, "the long row is sealed on its own")
        #expect(try Self.entry(db, key: key + 1) == [], "its neighbour stays in the bucket")
        #expect(try Self.notes(directory)[5] == long)
        #expect(try db.verify().problems.isEmpty, "the bucket no longer holds the long row's old value")
        try db.write { db.object(ofType: BucketItem.self, forPrimaryKey: 5)?.note = "short" }
        #expect(try Self.entry(db, key: key) == [])
        #expect(try Self.notes(directory)[5] == "short")
        #expect(try db.verify().problems.isEmpty)
    }

    @Test func repeatedUpdatesAndDeleteAllKeepNoStaleBucket() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write { for id in 1...100 { try db.add(Self.item(id)) } }
        let buckets = try Self.bucketCount(db)
        for round in 1...5 {
            try db.write { for item in db.objects(BucketItem.self) { item.note = "round \(round) \(item.id)" } }
        }
        #expect(try Self.bucketCount(db) == buckets)
        #expect(try Self.notes(directory)[64] == "round 5 64")
        #expect(try db.verify().problems.isEmpty)
        try db.write { db.deleteAll() }
        #expect(try Self.bucketCount(db) == 0)
        try db.write { try db.add(Self.item(1, "after")) }
        #expect(try Self.notes(directory) == [1: "after"])
        #expect(try db.verify().problems.isEmpty)
    }

    /// A bucket moved under another bucket number does not open there: the rows it would stand
    /// for are damage, reported by reads and by `verify()`.
    @Test func aBucketMovedToAnotherNumberIsDamage() throws {
        let directory = TemporaryDirectory()
        let failures = EncryptionTamperTests.Failures()
        let db = try Self.open(directory, handler: { failures.add($0) })
        try db.write { for id in 1...40 { try db.add(Self.item(id)) } }
        let info = try #require(try db.classInfo(for: BucketItem.self))
        let buckets = try #require(db.environment.rowBuckets)
        let keys = db.objects(BucketItem.self).map(\._objdbKey).sorted()
        let (from, to) = (RowBucket.bucket(of: keys[0]), RowBucket.bucket(of: keys[0]) + 1)
        try db.write {
            let txn = try db.requireReadableTxn()
            let sealed = try #require(
                try RowBucket.withStoredKey(tag: info.tables.objects.tag, bucket: from) { try txn.rawGet(buckets, key: $0) }.map(Array.init))
            try RowBucket.withStoredKey(tag: info.tables.objects.tag, bucket: to) { k in
                _ = try sealed.withUnsafeBytes { try txn.rawPut(buckets, key: k, value: $0) }
            }
        }
        let moved = keys.filter { RowBucket.bucket(of: $0) == to }
        #expect(moved.count == 16)
        let other = try Self.open(directory, handler: { failures.add($0) })
        let read = other.objects(BucketItem.self).map { ($0.id, $0.note) }
        // The moved bucket's notes never show under the second's rows: those read as damaged,
        // with no values.
        #expect(read.allSatisfy { $0.1.isEmpty || $0.1 == "note \($0.0)" })
        #expect(read.filter { $0.1.isEmpty }.count == 16)
        #expect(failures.all.contains { $0.code == .corruptFile })
        let report = try db.verify()
        for key in moved { #expect(report.problems.contains { $0.kind == .checksum && $0.objectKey == key }, "object key \(key)") }
        #expect(!report.problems.contains { $0.objectKey == keys[0] })
    }

    /// An entry deleted behind ObjDB's back leaves its value in the bucket: `verify()` says so.
    @Test func aValueNoEntryRefersToIsReported() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write { for id in 1...20 { try db.add(Self.item(id)) } }
        let info = try #require(try db.classInfo(for: BucketItem.self))
        let key = try #require(db.object(ofType: BucketItem.self, forPrimaryKey: 3)?._objdbKey)
        try db.write {
            let txn = try db.requireReadableTxn()
            // A transaction view without the bucket writes: the delete does not reach the bucket.
            let raw = Txn(txn.handle, environment: txn.environment, isReadOnly: false, decrypted: txn.decrypted)
            #expect(try raw.delete(info.tables.objects, key: key))
        }
        let report = try db.verify()
        #expect(report.problems.contains { $0.table == TableName.buckets && $0.message.contains("holds 1 value(s) no entry of the table refers to") })
    }

    /// A marker on a key whose bucket does not hold it is damage, never an empty or another row.
    @Test func aMarkerWithoutItsValueIsDamage() throws {
        let directory = TemporaryDirectory()
        let failures = EncryptionTamperTests.Failures()
        let db = try Self.open(directory, handler: { failures.add($0) })
        try db.write { for id in 1...20 { try db.add(Self.item(id)) } }
        let info = try #require(try db.classInfo(for: BucketItem.self))
        let last = try #require(db.objects(BucketItem.self).map(\._objdbKey).max())
        // The slot after the last object, in the same or the next bucket, holds nothing.
        var orphan = last + 1
        try db.write {
            let txn = try db.requireReadableTxn()
            let raw = Txn(txn.handle, environment: txn.environment, isReadOnly: false, decrypted: txn.decrypted)
            _ = try withUnsafeBytes(of: &orphan) { try raw.rawPut(info.tables.objects, key: $0, value: RowBucket.marker) }
        }
        let report = try db.verify()
        #expect(report.problems.contains { $0.kind == .checksum && $0.objectKey == orphan })
        let other = try Self.open(directory, handler: { failures.add($0) })
        let notes = other.objects(BucketItem.self).map(\.note)
        #expect(notes.count == 21 && notes.filter { $0.hasPrefix("note ") }.count == 20 && notes.filter(\.isEmpty).count == 1)
        #expect(failures.all.contains { $0.code == .corruptFile && $0.message.contains("missing from its bucket") })
    }

    /// A re-keyed copy keeps its rows in buckets (format 6); an unencrypted copy has no buckets
    /// and the format its schema needs.
    @Test func copiesAreWrittenInTheFormatOfTheirEncryption() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write { for id in 1...40 { try db.add(Self.item(id)) } }
        #expect(db.fileFormatVersion == 6)
        let rekeyed = directory.file("rekeyed.objdb")
        let plain = directory.file("plain.objdb")
        try db.writeCopy(toFile: rekeyed, encryptionKey: EncryptionFixture.otherKey)
        try db.writeCopy(toFile: plain, encryptionKey: nil)

        var config = Configuration(fileURL: rekeyed, objectTypes: [BucketItem.self])
        config.encryptionKey = EncryptionFixture.otherKey
        let copy = try Database(configuration: config)
        #expect(copy.fileFormatVersion == 6)
        #expect(try Self.bucketCount(copy) >= 3)
        for key in copy.objects(BucketItem.self).map(\._objdbKey) { #expect(try Self.entry(copy, key: key) == []) }
        #expect(Dictionary(uniqueKeysWithValues: copy.objects(BucketItem.self).map { ($0.id, $0.note) }) == Dictionary(uniqueKeysWithValues: (1...40).map { ($0, "note \($0)") }))
        #expect(try copy.verify().problems.isEmpty)

        let unencrypted = try Database(configuration: Configuration(fileURL: plain, objectTypes: [BucketItem.self]))
        #expect(unencrypted.fileFormatVersion == Int(FileMeta.checksummedFormat))
        #expect(try !unencrypted.requireReadableTxn().tableNames().contains(TableName.buckets))
        #expect(try db.requireReadableTxn().tableNames().contains(TableName.buckets))
        #expect(unencrypted.objects(BucketItem.self).filter { $0.note == "note \($0.id)" }.count == 40)
        #expect(try unencrypted.verify().problems.isEmpty)
    }

    /// A damaged bucket is damage for its short rows only: a long row beside it still reads, and
    /// a damaged row can still be deleted or rewritten (the bucket then holds what was written).
    @Test func aDamagedBucketBlocksOnlyItsOwnValues() throws {
        let directory = TemporaryDirectory()
        let failures = EncryptionTamperTests.Failures()
        let db = try Self.open(directory, handler: { failures.add($0) })
        try db.write { for id in 1...10 { try db.add(Self.item(id)) } }
        let long = String(repeating: "L", count: RowBucket.largestValue + 10)
        try db.write { db.object(ofType: BucketItem.self, forPrimaryKey: 4)?.note = long }
        let info = try #require(try db.classInfo(for: BucketItem.self))
        let buckets = try #require(db.environment.rowBuckets)
        let keys = db.objects(BucketItem.self).map(\._objdbKey)
        let bucket = RowBucket.bucket(of: try #require(keys.min()))
        try #require(keys.allSatisfy { RowBucket.bucket(of: $0) == bucket }, "the ten rows share one bucket")
        let five = try #require(db.object(ofType: BucketItem.self, forPrimaryKey: 5)?._objdbKey)
        let six = try #require(db.object(ofType: BucketItem.self, forPrimaryKey: 6)?._objdbKey)
        let rowOfFive = try #require(try db.requireReadableTxn().get(info.tables.objects, key: five).map(Array.init))
        try db.write {
            let txn = try db.requireReadableTxn()
            try RowBucket.withStoredKey(tag: info.tables.objects.tag, bucket: bucket) { k in
                var sealed = try #require(try txn.rawGet(buckets, key: k).map(Array.init))
                sealed[sealed.count / 2] ^= 0x40
                _ = try sealed.withUnsafeBytes { try txn.rawPut(buckets, key: k, value: $0) }
            }
        }
        let other = try Self.open(directory, handler: { failures.add($0) })
        #expect(other.object(ofType: BucketItem.self, forPrimaryKey: 4)?.note == long)
        #expect(other.objects(BucketItem.self).filter { $0.note.isEmpty }.count == 9)
        #expect(failures.all.contains { $0.code == .corruptFile })
        // A row of the damaged bucket written again and another deleted: the writes go through,
        // and the bucket then holds what was written.
        try db.write {
            let txn = try db.requireReadableTxn()
            _ = try rowOfFive.withUnsafeBytes { try txn.put(info.tables.objects, key: five, value: $0) }
            #expect(try txn.delete(info.tables.objects, key: six))
        }
        let after = try Self.open(directory)
        #expect(after.object(ofType: BucketItem.self, forPrimaryKey: 5)?.note == "note 5")
        #expect(after.object(ofType: BucketItem.self, forPrimaryKey: 4)?.note == long)
        let notes = after.objects(BucketItem.self).map(\.note)
        #expect(notes.count == 9 && notes.filter(\.isEmpty).count == 7)
    }

    /// Another process's deletes and updates reach this process's lookups by key, which go to
    /// the bucket first: no deleted or old row comes back.
    @Test func anotherProcesssWritesReachLookupsByKey() async throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write { for id in 1...40 { try db.add(Self.item(id)) } }
        #expect(db.object(ofType: BucketItem.self, forPrimaryKey: 6)?.note == "note 6")
        setenv("OBJDB_BUCKET_TEST_FILE", directory.file().path, 1)
        await #expect(processExitsWith: .success) {
            guard let path = ProcessInfo.processInfo.environment["OBJDB_BUCKET_TEST_FILE"] else { exit(10) }
            var config = Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [BucketItem.self])
            config.encryptionKey = EncryptionFixture.key
            let db = try Database(configuration: config)
            try db.write {
                for item in Array(db.objects(BucketItem.self)) where item.id % 5 == 1 { db.delete(item) }
                for item in db.objects(BucketItem.self) where item.id % 5 == 2 { item.note = "other \(item.id)" }
            }
        }
        _ = db.refresh()
        for id in 1...40 {
            let note = db.object(ofType: BucketItem.self, forPrimaryKey: id)?.note
            #expect(note == (id % 5 == 1 ? nil : id % 5 == 2 ? "other \(id)" : "note \(id)"), "id \(id)")
        }
        #expect(try db.verify().problems.isEmpty)
    }

    /// Emptying a table and adding to it in one transaction reads what was added, and leaves no
    /// bucket of the rows before.
    @Test func deleteAllThenAddInOneTransaction() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write { for id in 1...40 { try db.add(Self.item(id)) } }
        try db.write {
            db.deleteAll()
            for id in 100...105 { try db.add(Self.item(id)) }
            #expect(db.objects(BucketItem.self).map(\.id).sorted() == Array(100...105))
            #expect(db.object(ofType: BucketItem.self, forPrimaryKey: 103)?.note == "note 103")
        }
        #expect(try Self.notes(directory) == Dictionary(uniqueKeysWithValues: (100...105).map { ($0, "note \($0)") }))
        let keys = db.objects(BucketItem.self).map(\._objdbKey)
        #expect(try Self.bucketCount(db) == Set(keys.map(RowBucket.bucket(of:))).count)
        #expect(try db.verify().problems.isEmpty)
    }

    /// A write that throws leaves every bucket as it was: nothing it put, changed or deleted
    /// reaches the file.
    @Test func aCancelledWriteLeavesTheBucketsAsTheyWere() throws {
        struct Cancel: Error {}
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write { for id in 1...20 { try db.add(Self.item(id)) } }
        let buckets = try Self.bucketCount(db)
        #expect(throws: Cancel.self) {
            try db.write {
                for item in db.objects(BucketItem.self) where item.id % 2 == 0 { item.note = "changed" }
                for item in Array(db.objects(BucketItem.self)) where item.id % 3 == 0 { db.delete(item) }
                for id in 21...60 { try db.add(Self.item(id)) }
                throw Cancel()
            }
        }
        #expect(try Self.notes(directory) == Dictionary(uniqueKeysWithValues: (1...20).map { ($0, "note \($0)") }))
        #expect(try Self.bucketCount(db) == buckets)
        #expect(try db.verify().problems.isEmpty)
    }

    /// A put refused because its key is taken changes neither the entry nor the bucket.
    @Test func aRefusedPutChangesNothing() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write { for id in 1...20 { try db.add(Self.item(id)) } }
        let info = try #require(try db.classInfo(for: BucketItem.self))
        let three = try #require(db.object(ofType: BucketItem.self, forPrimaryKey: 3)?._objdbKey)
        let four = try #require(db.object(ofType: BucketItem.self, forPrimaryKey: 4)?._objdbKey)
        let rowOfFour = try #require(try db.requireReadableTxn().get(info.tables.objects, key: four).map(Array.init))
        try db.write {
            let txn = try db.requireReadableTxn()
            let stored = try rowOfFour.withUnsafeBytes { try txn.put(info.tables.objects, key: three, value: $0, flags: .noOverwrite) }
            #expect(!stored)
            let long = [UInt8](repeating: 7, count: RowBucket.largestValue + 1)
            #expect(try !long.withUnsafeBytes { try txn.put(info.tables.objects, key: three, value: $0, flags: .noOverwrite) })
        }
        #expect(try Self.entry(db, key: three) == [])
        #expect(try Self.notes(directory)[3] == "note 3")
        #expect(try db.verify().problems.isEmpty)
    }

    /// Values sealed on their own (the fast path switched off, or an encrypted file of format 5)
    /// and values in buckets are read alike in one file, and a write with the switch off takes
    /// its values out of their buckets.
    @Test func valuesSealedOnTheirOwnAndInBucketsMix() async throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write { for id in 1...40 { try db.add(Self.item(id)) } }
        let path = directory.file().path
        setenv("OBJDB_BUCKET_TEST_FILE", path, 1)
        await #expect(processExitsWith: .success) {
            setenv("OBJDB_DISABLE_FAST_PATHS", "rowBuckets", 1)
            guard let path = ProcessInfo.processInfo.environment["OBJDB_BUCKET_TEST_FILE"] else { exit(10) }
            var config = Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [BucketItem.self])
            config.encryptionKey = EncryptionFixture.key
            let db = try Database(configuration: config)
            guard db.objects(BucketItem.self).count == 40 else { exit(11) }
            try db.write {
                for item in db.objects(BucketItem.self) where item.id % 2 == 0 { item.note = "own \(item.id)" }
                for id in 41...50 { try db.add(RowBucketTests.item(id)) }
            }
            guard try db.verify().problems.isEmpty else { exit(12) }
        }
        let notes = try Self.notes(directory)
        #expect(notes.count == 50)
        #expect((1...50).allSatisfy { notes[$0] == ($0 % 2 == 0 && $0 <= 40 ? "own \($0)" : "note \($0)") })
        let evenKey = try #require(db.object(ofType: BucketItem.self, forPrimaryKey: 2)?._objdbKey)
        let oddKey = try #require(db.object(ofType: BucketItem.self, forPrimaryKey: 1)?._objdbKey)
        _ = db.refresh()
        #expect((try Self.entry(db, key: evenKey)?.count ?? 0) > 0)
        #expect(try Self.entry(db, key: oddKey) == [])
        #expect(try db.verify().problems.isEmpty)
    }
}
