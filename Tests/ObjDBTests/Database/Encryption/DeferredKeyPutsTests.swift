import Foundation
import Testing
@_spi(Inspection) @testable import ObjDB

/// An item of an encrypted file with a primary key, a unique value and an index: the three kinds
/// of entries whose puts wait in ``DeferredKeyPuts``.
final class SealedKeyItem: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(unique: true) var code: String = ""
    @Persisted(indexed: true) var group: Int = 0
    @Persisted var name: String = ""
}

/// An item with a string primary key, written in an order of its own.
final class SealedKeyTag: Object {
    @Persisted(primaryKey: true) var label: String = ""
    @Persisted var weight: Int = 0
}

/// The primary-key and index entries of an encrypted file wait in the write transaction and are
/// written at commit or before their table is read (``DeferredKeyPuts``): everything a
/// transaction does must see them as if they had been written at once.
@Suite struct DeferredKeyPutsTests {
    /// Item `id`; a `name` makes its unique code one of its own too.
    private static func item(_ id: Int, _ name: String = "") -> SealedKeyItem {
        let item = SealedKeyItem()
        item.id = id
        item.code = name.isEmpty ? "code-\(id)" : "code-\(id)-\(name)"
        item.group = id % 7
        item.name = name.isEmpty ? "item \(id)" : name
        return item
    }

    private static func open(_ directory: TemporaryDirectory) throws -> Database {
        var config = directory.configuration([SealedKeyItem.self, SealedKeyTag.self])
        config.encryptionKey = EncryptionFixture.key
        return try Database(configuration: config)
    }

    @Test func aTakenPrimaryKeyIsRefusedWhileItsEntryWaitsAndAfterItWasWritten() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write {
            for id in 1...500 { try db.add(Self.item(id)) }
            #expect(throws: ObjDBError.self) { try db.add(Self.item(250, "second")) }
            do {
                try db.add(Self.item(250, "again"))
                Issue.record("a waiting primary key was not refused")
            } catch let error as ObjDBError {
                #expect(error.code == .primaryKeyExists)
            }
        }
        #expect(db.objects(SealedKeyItem.self).count == 500)
        #expect(db.object(ofType: SealedKeyItem.self, forPrimaryKey: 250)?.name == "item 250")
        // The table is no longer empty: the answer now comes from LMDB.
        try db.write {
            do {
                try db.add(Self.item(10, "late"))
                Issue.record("a stored primary key was not refused")
            } catch let error as ObjDBError {
                #expect(error.code == .primaryKeyExists)
            }
            try db.add(Self.item(501))
        }
        #expect(db.objects(SealedKeyItem.self).count == 501)
    }

    @Test func readsInTheTransactionFindTheWaitingEntries() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write {
            for id in 1...1_000 { try db.add(Self.item(id)) }
            #expect(db.object(ofType: SealedKeyItem.self, forPrimaryKey: 777)?.name == "item 777")
            #expect(db.object(ofType: SealedKeyItem.self, forPrimaryKey: 1_001) == nil)
            for id in 1_001...1_010 { try db.add(Self.item(id)) }
            // Index and primary-key equality read the tables, which are written first.
            #expect(db.objects(SealedKeyItem.self).where { $0.group == 3 }.count == (1...1_010).filter { $0 % 7 == 3 }.count)
            #expect(try db.objects(SealedKeyItem.self).filter("id IN {5, 1005, 2000}").count == 2)
            #expect(try db.objects(SealedKeyItem.self).filter("code == 'code-1009'").first?.id == 1_009)
        }
    }

    @Test func anObjectDeletedAfterItsAddFreesItsKeyInTheSameTransaction() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write {
            for id in 1...100 { try db.add(Self.item(id)) }
            if let fifty = db.object(ofType: SealedKeyItem.self, forPrimaryKey: 50) { db.delete(fifty) }
            for id in 101...120 { try db.add(Self.item(id)) }
            try db.add(Self.item(50, "replacement"))
        }
        #expect(db.objects(SealedKeyItem.self).count == 120)
        #expect(db.object(ofType: SealedKeyItem.self, forPrimaryKey: 50)?.name == "replacement")
        #expect(try db.objects(SealedKeyItem.self).filter("code == 'code-50'").count == 0)
        #expect(try db.objects(SealedKeyItem.self).filter("code == 'code-50-replacement'").count == 1)
        let report = try db.verify()
        #expect(report.problems.isEmpty, "\(report)")
    }

    @Test func aRefusedSequenceTakesBackTheEntriesItsObjectsLeftWaiting() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write {
            try db.add(Self.item(1))
            // The third object's key is taken: the whole sequence is undone.
            #expect(throws: ObjDBError.self) { try db.add([Self.item(2), Self.item(3), Self.item(1, "duplicate")]) }
            #expect(db.object(ofType: SealedKeyItem.self, forPrimaryKey: 2) == nil)
            #expect(db.object(ofType: SealedKeyItem.self, forPrimaryKey: 3) == nil)
            try db.add(Self.item(2, "second try"))
        }
        #expect(db.objects(SealedKeyItem.self).count == 2)
        #expect(db.object(ofType: SealedKeyItem.self, forPrimaryKey: 2)?.name == "second try")
        #expect(db.object(ofType: SealedKeyItem.self, forPrimaryKey: 3) == nil)
        let report = try db.verify()
        #expect(report.problems.isEmpty, "\(report)")
    }

    @Test func aUniqueValueAddedTwiceInOneTransactionIsRefused() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write {
            try db.add(Self.item(1))
            let other = Self.item(2)
            other.code = "code-1"
            do {
                try db.add(other)
                Issue.record("a waiting unique value was not refused")
            } catch let error as ObjDBError {
                #expect(error.code == .uniqueConstraintViolation)
            }
        }
        #expect(db.objects(SealedKeyItem.self).count == 1)
    }

    @Test func upsertsInOneTransactionFindWhatTheyAdded() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write {
            for id in 1...300 { try db.add(Self.item(id), update: .modified) }
            for id in 1...300 { try db.add(Self.item(id, "renamed \(id)"), update: .modified) }
        }
        #expect(db.objects(SealedKeyItem.self).count == 300)
        #expect(db.object(ofType: SealedKeyItem.self, forPrimaryKey: 123)?.name == "renamed 123")
    }

    @Test func deleteAllForgetsTheWaitingEntries() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write {
            for id in 1...50 { try db.add(Self.item(id)) }
            db.deleteAll()
            for id in 40...60 { try db.add(Self.item(id, "after")) }
        }
        #expect(db.objects(SealedKeyItem.self).count == 21)
        #expect(db.object(ofType: SealedKeyItem.self, forPrimaryKey: 10) == nil)
        #expect(db.object(ofType: SealedKeyItem.self, forPrimaryKey: 45)?.name == "after")
        let report = try db.verify()
        #expect(report.problems.isEmpty, "\(report)")
    }

    @Test func everyEntryIsWrittenAtCommitAndFoundByAnotherInstance() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        // Labels in an order of their own: their hashes come in no order either.
        let labels = (0..<5_000).map { "label-\(($0 &* 7_919) % 5_000)" }
        try db.write {
            for (weight, label) in labels.enumerated() {
                let tag = SealedKeyTag()
                tag.label = label
                tag.weight = weight
                try db.add(tag)
            }
            for id in 1...5_000 { try db.add(Self.item(id)) }
        }
        let other = try Self.open(directory)
        #expect(other.objects(SealedKeyTag.self).count == 5_000)
        for (weight, label) in labels.enumerated() where weight % 97 == 0 {
            #expect(other.object(ofType: SealedKeyTag.self, forPrimaryKey: label)?.weight == weight)
        }
        #expect(other.object(ofType: SealedKeyItem.self, forPrimaryKey: 4_999)?.code == "code-4999")
        #expect(other.objects(SealedKeyItem.self).where { $0.group == 0 }.count == 5_000 / 7)
        let report = try other.verify()
        #expect(report.problems.isEmpty, "\(report)")
    }

    /// Many object keys under one hashed key, put out of order: the mixed links of holders that
    /// all link to one target, set in a shuffled order (the entries share a bucket of the sort).
    @Test func manyEntriesUnderOneKeyAreWrittenInOrder() throws {
        let directory = TemporaryDirectory()
        var config = directory.configuration([MixedHolder.self, MixedTarget.self])
        config.encryptionKey = EncryptionFixture.key
        let db = try Database(configuration: config)
        try db.write {
            let target = MixedTarget()
            target.name = "hub"
            try db.add(target)
            for id in 1...300 {
                let holder = MixedHolder()
                holder.id = id
                try db.add(holder)
            }
        }
        let hub = try #require(db.object(ofType: MixedTarget.self, forPrimaryKey: "hub"))
        var order = Array(1...300)
        var generator = SeededRandom(seed: 42)
        order.shuffle(using: &generator)
        try db.write {
            for id in order { db.object(ofType: MixedHolder.self, forPrimaryKey: id)?.value = .object(hub) }
        }
        let tables = try db.storageStatistics().tables
        #expect(tables.first { $0.name == "MixedHolder mixed links value" }?.entries == 300)
        #expect(db.objects(MixedHolder.self).filter { $0.value.object(MixedTarget.self)?.name == "hub" }.count == 300)
        let report = try db.verify()
        #expect(report.problems.isEmpty, "\(report)")
    }

    /// A transaction that adds more entries than a table may keep waiting writes them as it
    /// goes, and keeps refusing taken keys, written or waiting (the limit lowered to 100).
    @Test func entriesPastTheLimitAreWrittenAsTheTransactionGoes() async {
        await #expect(processExitsWith: .success) {
            setenv("OBJDB_DEFERRED_KEY_LIMIT", "100", 1)
            guard DeferredKeyPuts.limit == 100 else { exit(10) }
            let directory = TemporaryDirectory()
            let db = try DeferredKeyPutsTests.open(directory)
            try db.write {
                for id in 1...1_050 { try db.add(DeferredKeyPutsTests.item(id)) }
                // 50 was written at a limit; 1,020 waits.
                for id in [50, 1_020] {
                    do {
                        try db.add(DeferredKeyPutsTests.item(id, "again"))
                        exit(11)
                    } catch let error as ObjDBError where error.code == .primaryKeyExists {}
                }
            }
            guard db.objects(SealedKeyItem.self).count == 1_050 else { exit(12) }
            for id in stride(from: 1, through: 1_050, by: 49) {
                guard db.object(ofType: SealedKeyItem.self, forPrimaryKey: id)?.code == "code-\(id)" else { exit(13) }
            }
            guard try db.objects(SealedKeyItem.self).filter("code == 'code-777'").first?.id == 777 else { exit(14) }
            guard try db.verify().problems.isEmpty else { exit(15) }
        }
    }

    @Test func aRolledBackTransactionLeavesNoEntry() throws {
        let directory = TemporaryDirectory()
        let db = try Self.open(directory)
        try db.write { try db.add(Self.item(1)) }
        db.beginWrite()
        for id in 2...100 { try db.add(Self.item(id)) }
        db.cancelWrite()
        #expect(db.objects(SealedKeyItem.self).count == 1)
        #expect(db.object(ofType: SealedKeyItem.self, forPrimaryKey: 50) == nil)
        try db.write { try db.add(Self.item(50)) }
        #expect(db.object(ofType: SealedKeyItem.self, forPrimaryKey: 50)?.code == "code-50")
    }
}
