import Foundation
import Testing
@_spi(Inspection) @testable import ObjDB

/// An item whose row is too long for a row bucket: sealed on its own.
final class LongNoteItem: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var text: String = ""
}

/// What threads of a test saw: wrong readings, and the decrypted values their snapshots read.
private final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var wrong: [String] = []
    private var values: [ObjectIdentifier] = []
    func add(wrong message: String) { lock.withLock { wrong.append(message) } }
    func add(values identity: ObjectIdentifier) { lock.withLock { values.append(identity) } }
    var all: (wrong: [String], values: Set<ObjectIdentifier>) { lock.withLock { (wrong, Set(values)) } }
}

/// Snapshots of one version of an encrypted file share the values they decrypted
/// (``SharedSnapshotValues``), and a write transaction starts from the row buckets they opened:
/// each must still read exactly what its own version holds.
@Suite struct SharedSnapshotValuesTests {
    private static func open(_ directory: TemporaryDirectory) throws -> Database {
        var config = directory.configuration([BucketItem.self])
        config.encryptionKey = EncryptionFixture.key
        return try Database(configuration: config)
    }

    /// Adds items `ids`, each noted "note <id>", in the write transaction of `db`.
    private static func add(_ db: Database, ids: ClosedRange<Int>) throws {
        for id in ids {
            let item = BucketItem()
            item.id = id
            item.note = "note \(id)"
            try db.add(item)
        }
    }

    /// Adds items `ids` to `db` in a write transaction of their own.
    private static func fill(_ db: Database, ids: ClosedRange<Int>) throws {
        try db.write { try add(db, ids: ids) }
    }

    /// A file of items 1…`count`, the instance that wrote them, and another whose snapshot has
    /// read every one (so opened every bucket) and stays.
    private static func filledAndRead(_ count: Int) throws -> (directory: TemporaryDirectory, db: Database, reader: Database) {
        let directory = TemporaryDirectory()
        let db = try open(directory)
        try fill(db, ids: 1...count)
        let reader = try open(directory)
        #expect(notes(reader).count == count)
        return (directory, db, reader)
    }

    /// The notes by id, as `db` reads them.
    private static func notes(_ db: Database) -> [Int: String] {
        Dictionary(uniqueKeysWithValues: db.objects(BucketItem.self).map { ($0.id, $0.note) })
    }

    /// The decrypted values of the transaction `db` reads.
    private static func values(_ db: Database) throws -> DecryptedValues {
        try #require(try db.requireReadableTxn().decrypted as DecryptedValues?)
    }

    /// The bytes the transaction `db` reads in decrypted so far.
    private static func held(_ db: Database) throws -> Int {
        try values(db).byteCount
    }

    /// The values of a version are shared while a snapshot holds them, and only then; an older
    /// version never takes a live newer one's place.
    @Test func theValuesLiveWithTheirSnapshotsAndTheNewestVersionKeepsItsPlace() {
        let share = SharedSnapshotValues()
        do {
            let first = share.forSnapshot(of: 3)
            #expect(share.forSnapshot(of: 3) === first)
            #expect(share.ofLiveSnapshots(of: 3) === first)
            #expect(share.ofLiveSnapshots(of: 2) == nil)
        }
        // No snapshot holds them any more.
        #expect(share.ofLiveSnapshots(of: 3) == nil)

        do {
            let newer = share.forSnapshot(of: 7)
            let older = share.forSnapshot(of: 6)
            #expect(older !== newer)
            #expect(share.forSnapshot(of: 7) === newer)
            #expect(share.ofLiveSnapshots(of: 6) == nil)
            withExtendedLifetime((newer, older)) {}
        }
        // Once the newer version's values are gone, an older version's snapshot shares its own.
        let again = share.forSnapshot(of: 6)
        #expect(share.ofLiveSnapshots(of: 6) === again)
        #expect(share.forSnapshot(of: 6) === again)
    }

    /// A second instance of a version reads what the first decrypted; a new version reads afresh.
    @Test func snapshotsOfOneVersionShareWhatTheyDecrypted() throws {
        let directory = TemporaryDirectory()
        let first = try Self.open(directory)
        try Self.fill(first, ids: 1...40)
        let reader = try Self.open(directory)
        #expect(Self.notes(reader).count == 40)
        let afterReader = try Self.held(reader)
        #expect(afterReader > 0)

        // Another instance of the same version reads all rows without decrypting anything.
        let second = try Self.open(directory)
        let shared = try Self.values(reader)
        #expect(try Self.values(second) === shared)
        let notes = Self.notes(second)
        #expect(notes.count == 40)
        #expect((1...40).allSatisfy { notes[$0] == "note \($0)" })
        #expect(try Self.held(second) == afterReader)

        // A new version is read afresh: its snapshots do not see the old one's values.
        try first.write { first.objects(BucketItem.self).where { $0.id == 7 }.first?.note = "seven" }
        let third = try Self.open(directory)
        #expect(try Self.values(third) !== shared)
        #expect(Self.notes(third)[7] == "seven")
        #expect(Self.notes(reader)[7] == "note 7")
    }

    /// Instances on several threads read one version at once, from one set of values.
    @Test func instancesOnSeveralThreadsReadOneVersionTogether() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try Self.fill(db, ids: 1...300)
        // One instance keeps the version's values alive while the threads begin their snapshots.
        let holder = try Self.open(directory)
        let shared = ObjectIdentifier(try Self.values(holder))
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            do {
                let local = try Self.open(directory)
                for round in 0..<3 {
                    let notes = Self.notes(local)
                    let bad = (1...300).filter { notes[$0] != "note \($0)" }
                    if notes.count != 300 || !bad.isEmpty { outcomes.add(wrong: "thread \(thread) round \(round): \(notes.count) notes, wrong ids \(bad.prefix(5))") }
                }
                guard let values = try local.requireReadableTxn().decrypted else {
                    outcomes.add(wrong: "thread \(thread): a snapshot of an encrypted file without decrypted values")
                    return
                }
                outcomes.add(values: ObjectIdentifier(values))
            } catch {
                outcomes.add(wrong: "thread \(thread): \(error)")
            }
        }
        let (wrong, values) = outcomes.all
        #expect(wrong.isEmpty)
        #expect(values == [shared])
        withExtendedLifetime(holder) {}
    }

    /// Values sealed on their own (too long for a bucket) are decrypted outside the shared values'
    /// lock: threads reading them at once each read every one right, and once they are done the
    /// version's values hold each, so another instance reads them all without decrypting.
    @Test func valuesSealedOnTheirOwnReadFromSeveralThreadsAtOnce() throws {
        let directory = TemporaryDirectory()
        @Sendable func open() throws -> Database {
            var config = directory.configuration([LongNoteItem.self])
            config.encryptionKey = EncryptionFixture.key
            return try Database(configuration: config)
        }
        @Sendable func text(_ id: Int) -> String { String(repeating: "\(id % 10)", count: 600) + " \(id)" }
        @Sendable func wrongTexts(_ db: Database) -> [Int] {
            let items = db.objects(LongNoteItem.self).map { ($0.id, $0.text) }
            return items.count == 40 ? items.filter { $0.1 != text($0.0) }.map(\.0) : [-items.count]
        }
        let db = try open()
        try db.write {
            for id in 1...40 {
                let item = LongNoteItem()
                item.id = id
                item.text = text(id)
                try db.add(item)
            }
        }
        let holder = try open()
        let shared = try Self.values(holder)
        let before = shared.byteCount
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            do {
                let local = try open()
                for round in 0..<3 {
                    let wrong = wrongTexts(local)
                    if !wrong.isEmpty { outcomes.add(wrong: "thread \(thread) round \(round): wrong ids \(wrong.prefix(5))") }
                }
            } catch {
                outcomes.add(wrong: "thread \(thread): \(error)")
            }
        }
        #expect(outcomes.all.wrong.isEmpty)
        let after = shared.byteCount
        #expect(after - before >= 40 * 600)
        #expect(wrongTexts(try open()).isEmpty)
        #expect(shared.byteCount == after)
        withExtendedLifetime(holder) {}
    }

    /// A write transaction takes the buckets a snapshot of its starting version opened, and its
    /// updates and deletes of their rows read back.
    @Test func aWriteReadsTheBucketsASnapshotOfItsVersionOpened() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try Self.fill(db, ids: 1...64)

        // No snapshot of the version read the rows: the write opens their buckets itself.
        let alone = try Self.open(directory)
        var decryptedAlone = 0
        try alone.write {
            let before = try Self.held(alone)
            let ids = alone.objects(BucketItem.self).map(\.id)
            #expect(ids.reduce(0, +) == 2_080)
            decryptedAlone = try Self.held(alone) - before
        }
        // Four buckets of 16 rows, each holding at least its note.
        #expect(decryptedAlone >= 64 * "note 64".utf8.count)

        // Once a snapshot of the version has read them, the write decrypts none of them.
        let reader = try Self.open(directory)
        #expect(Self.notes(reader).count == 64)
        let writer = try Self.open(directory)
        try writer.write {
            let before = try Self.held(writer)
            let ids = writer.objects(BucketItem.self).map(\.id)
            #expect(ids.reduce(0, +) == 2_080)
            #expect(try Self.held(writer) == before)
            for item in writer.objects(BucketItem.self) where item.id % 3 == 0 { item.note += " changed" }
            writer.delete(try #require(writer.object(ofType: BucketItem.self, forPrimaryKey: 5)))
        }
        let after = Self.notes(try Self.open(directory))
        #expect(after.count == 63)
        #expect(after[5] == nil)
        for id in 1...64 where id != 5 {
            let expected = id % 3 == 0 ? "note \(id) changed" : "note \(id)"
            #expect(after[id] == expected)
        }
        #expect(Self.notes(reader)[3] == "note 3")
        #expect(try writer.verify().problems.isEmpty)
    }

    /// A write that starts after another commit reads that commit's rows, not the buckets an older
    /// snapshot opened.
    @Test func aWriteAfterAnotherCommitDoesNotReadAnOlderVersionsBuckets() throws {
        // A snapshot of this version has opened every bucket, and stays.
        let (directory, db, reader) = try Self.filledAndRead(20)
        // A newer version changes a row; no snapshot reads it.
        try db.write { db.objects(BucketItem.self).where { $0.id == 2 }.first?.note = "two" }
        // A write from the newer version reads the row as that version holds it.
        let writer = try Self.open(directory)
        try writer.write {
            let item = try #require(writer.object(ofType: BucketItem.self, forPrimaryKey: 2))
            #expect(item.note == "two")
            item.note += " more"
        }
        #expect(Self.notes(try Self.open(directory))[2] == "two more")
        #expect(Self.notes(reader)[2] == "note 2")
    }

    /// `deleteAll()` then adds in one transaction leave no value of the snapshot's buckets behind.
    @Test func aTableEmptiedInTheWriteKeepsNoneOfTheBucketsSnapshotsOpened() throws {
        let (directory, db, reader) = try Self.filledAndRead(40)
        // Emptied, then refilled in one transaction: new keys share a bucket with deleted ones,
        // whose values the snapshot's copy of that bucket still holds.
        try db.write {
            db.deleteAll()
            try Self.add(db, ids: 41...45)
        }
        let after = Self.notes(try Self.open(directory))
        #expect(after == Dictionary(uniqueKeysWithValues: (41...45).map { ($0, "note \($0)") }))
        #expect(try db.verify().problems.isEmpty)
        #expect(Self.notes(reader).count == 40)
    }

    /// The same at the level of the table: a value put into a bucket the snapshot opened, after
    /// the table was emptied, is the bucket's only value, whether the transaction had read the
    /// bucket (from the snapshot's values) before emptying the table or first touches it after.
    @Test(arguments: [false, true])
    func aBucketWrittenAfterTheTableWasEmptiedHoldsOnlyWhatWasPut(readFirst: Bool) throws {
        let (directory, db, reader) = try Self.filledAndRead(40)
        let info = try #require(try db.classInfo(for: BucketItem.self))
        // An object in the middle of a bucket the snapshot opened, and its row.
        let key = try #require(reader.object(ofType: BucketItem.self, forPrimaryKey: 20)?._objdbKey)
        let row = try #require(try reader.requireReadableTxn().get(info.tables.objects, key: key).map(Array.init))
        try db.write {
            let txn = try db.requireReadableTxn()
            if readFirst { #expect(try txn.get(info.tables.objects, key: key).map(Array.init) == row) }
            try txn.empty(info.tables.objects)
            #expect(try row.withUnsafeBytes { try txn.put(info.tables.objects, key: key, value: $0) })
        }
        let fresh = try Self.open(directory)
        let txn = try fresh.requireReadableTxn()
        let plain = try BucketReads.bucket(
            txn, table: info.tables.objects, bucket: RowBucket.bucket(of: key), buckets: fresh.environment.rowBuckets,
            cipher: try #require(fresh.environment.cipher), arena: try #require(txn.decrypted as DecryptedValues?))
        let bucket = try #require(plain)
        let held = (0..<Int(RowBucket.keysPerBucket)).filter { RowBucket.value(in: bucket, slot: $0) != nil }
        #expect(held == [RowBucket.slot(of: key)])
        #expect(RowBucket.value(in: bucket, slot: RowBucket.slot(of: key)).map(Array.init) == row)
    }
}
