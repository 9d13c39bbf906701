import Foundation
import ObjDBTestModels
import ObjDBTestProcesses
import Testing
@_spi(Implementation) @testable import ObjDB

/// Queries, migrations, compaction, frozen snapshots and notifications on encrypted files.
@Suite(.serialized)
struct EncryptionFeatureTests {
    let directory = TemporaryDirectory()

    private func open(_ name: String = "enc.objdb", types: [ObjectBase.Type] = EncryptionFixture.types) throws -> Database {
        var config = EncryptionFixture.configuration(directory.file(name))
        config.objectTypes = types
        return try Database(configuration: config)
    }

    @Test func equalityAndPrimaryKeysUseTheIndexRangesAndSortsReadTheRows() throws {
        let db = try open()
        try EncryptionFixture.fill(db, count: 200)
        let all = db.objects(ZebraPatient.self)

        let equal = all.where { $0.wombatSurname == "name7" }
        #expect(equal.explain().hasPrefix("index lookup on wombatSurname (1 value)"), "\(equal.explain())")
        #expect(equal.count == 20)
        #expect(Set(equal.map(\.axolotlAge)) == Set((0..<200).filter { $0 % 10 == 7 }))
        let anyOf = all.where { $0.axolotlAge.in([3, 150, 999]) }
        #expect(anyOf.explain().hasPrefix("index lookup on axolotlAge (3 values)"), "\(anyOf.explain())")
        #expect(Set(anyOf.map(\.quokkaIdentifier)) == ["p3", "p150"])
        let byKey = all.where { $0.quokkaIdentifier == "p42" }
        #expect(byKey.explain().hasPrefix("primary key lookup on quokkaIdentifier"), "\(byKey.explain())")
        #expect(byKey.first?.axolotlAge == 42)
        #expect(equal.first != nil)

        let range = all.where { $0.axolotlAge >= 190 && $0.axolotlAge < 195 }
        #expect(range.explain().contains("table scan of ZebraPatient"), "\(range.explain())")
        #expect(range.explain().contains("encrypted file answer equality and IN only"), "\(range.explain())")
        #expect(range.map(\.axolotlAge).sorted() == [190, 191, 192, 193, 194])
        let prefix = all.where { $0.wombatSurname.starts(with: "Feather") }
        #expect(prefix.explain().contains("table scan"))
        #expect(prefix.map(\.quokkaIdentifier) == [EncryptionFixture.identifier])
        let sorted = all.where { $0.axolotlAge < 5 }.sorted(by: \.axolotlAge, ascending: false)
        #expect(sorted.map(\.axolotlAge) == [4, 3, 2, 1, 0])
        #expect(all.sorted(by: \.wombatSurname).first?.wombatSurname == EncryptionFixture.surname)
    }

    /// The primary-key table's object keys are not authenticated: one repointed by someone who
    /// can write the file (here, "p1" at p2's object) gives no object, not another's, and
    /// `verify()` reports it.
    // Mixed-links tables key hashed targets in an encrypted file: a delete finds the links, and
    // a copy with another key (or none) rebuilds the tables from the rows.
    @Test func mixedLinksAreTrackedAndCopiedAcrossKeys() throws {
        let db = try open("mixed.objdb", types: [MixedHolder.self, MixedTarget.self])
        let holder = MixedHolder()
        holder.id = 1
        let (a, b) = (MixedTarget(), MixedTarget())
        (a.name, b.name) = ("a", "b")
        holder.value = .list([.object(a), .object(b)])
        try db.write { try db.add(holder) }
        try db.write { db.delete(try #require(db.object(ofType: MixedTarget.self, forPrimaryKey: "a"))) }
        #expect(holder.value.listValue?.compactMap { $0.object(MixedTarget.self)?.name } == ["b"])
        #expect(try db.verify().isHealthy)
        for (name, key) in [("plain.objdb", nil), ("rekeyed.objdb", EncryptionFixture.otherKey)] as [(String, Data?)] {
            try db.writeCopy(toFile: directory.file(name), encryptionKey: key)
            var config = EncryptionFixture.configuration(directory.file(name), key: key)
            config.objectTypes = [MixedHolder.self, MixedTarget.self]
            let copy = try Database(configuration: config)
            #expect(try copy.verify().isHealthy)
            try copy.write { copy.delete(try #require(copy.object(ofType: MixedTarget.self, forPrimaryKey: "b"))) }
            #expect(copy.object(ofType: MixedHolder.self, forPrimaryKey: 1)?.value == .list([]))
        }
    }

    @Test func aRepointedPrimaryKeyEntryFindsNoOtherObject() throws {
        let db = try open()
        try EncryptionFixture.fill(db, count: 5)
        let info = try #require(try db.classInfo(for: ZebraPatient.self))
        let table = try #require(info.primaryKeyTable)
        let column = try #require(info.primaryKeyColumn)
        var p2 = try #require(db.object(ofType: ZebraPatient.self, forPrimaryKey: "p2"))._objdbKey
        // The key the table stores "p1" under (hashed by the transaction, as a lookup does).
        var value = _ObjDBBytes()
        _ = "p1"._objdbEncode(into: &value)
        var key = _ObjDBBytes()
        _ = KeyEncoding.append(.value(value.buffer.bytes), kind: info.scalarKinds[column], to: &key)
        let write = try WriteTransaction(db.environment)
        _ = try write.txn.delete(table, key: key.buffer.bytes, value: nil)
        _ = try withUnsafeBytes(of: &p2) { try write.txn.put(table, key: key.buffer.bytes, value: $0) }
        try write.commit()
        db.refresh()
        #expect(db.object(ofType: ZebraPatient.self, forPrimaryKey: "p1") == nil, "found \(db.object(ofType: ZebraPatient.self, forPrimaryKey: "p1")?.quokkaIdentifier ?? "-")")
        #expect(db.object(ofType: ZebraPatient.self, forPrimaryKey: "p2")?.quokkaIdentifier == "p2")
        #expect(try !db.verify().isHealthy)
    }

    @Test func aMigrationRewritesAnEncryptedFile() throws {
        let url = directory.file("migrate.objdb")
        do {
            var config = Configuration(fileURL: url, objectTypes: [MigratingItemV0.self])
            config.encryptionKey = EncryptionFixture.key
            let db = try Database(configuration: config)
            try db.write {
                for id in 0..<300 {
                    let item = MigratingItemV0()
                    item.id = id
                    item.title = "secret-title-\(id)"
                    item.count = id
                    try db.add(item)
                }
            }
        }
        var config = Configuration(fileURL: url, objectTypes: [MigratingItemV1.self])
        config.encryptionKey = EncryptionFixture.key
        config.schemaVersion = 1
        config.migrationBlock = { migration, _ in
            migration.renameProperty(onType: "MigratingItem", from: "title", to: "name")
            try migration.enumerateObjects(ofType: "MigratingItem") { old, new in
                new?["total"] = "total-\((old?["count"] as? Int) ?? 0)"
                new?["tag"] = ((old?["count"] as? Int) ?? 0) % 2 == 0 ? "even" : "odd"
            }
        }
        let db = try Database(configuration: config)
        #expect(db.object(ofType: MigratingItemV1.self, forPrimaryKey: 7)?.name == "secret-title-7")
        #expect(db.object(ofType: MigratingItemV1.self, forPrimaryKey: 7)?.total == "total-7")
        #expect(db.objects(MigratingItemV1.self).where { $0.tag == "odd" }.count == 150)
        #expect(try db.verify().isHealthy)
        let bytes = try EncryptionFixture.bytes(url)
        for needle in ["secret-title-7", "total-7", "MigratingItem", "title", "odd"] {
            #expect(!EncryptionFixture.contains(bytes, Array(needle.utf8)), "\(needle) found in the migrated file")
        }
    }

    @Test func compactionOnLaunchKeepsTheFileEncrypted() throws {
        let url = directory.file("compact.objdb")
        do {
            let db = try Database(configuration: EncryptionFixture.configuration(url))
            try EncryptionFixture.fill(db, count: 2_000)
            try db.write { db.delete(db.objects(ZebraPatient.self).where { $0.axolotlAge < 1_900 }) }
        }
        let before = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
        var config = EncryptionFixture.configuration(url)
        config.shouldCompactOnLaunch = { _, _ in true }
        let db = try Database(configuration: config)
        guard case .compacted(_, let after)? = db.compactionOnLaunch else {
            Issue.record("not compacted: \(String(describing: db.compactionOnLaunch))")
            return
        }
        #expect(after < before)
        #expect(db.objects(ZebraPatient.self).count == 101)
        #expect(db.object(ofType: ZebraPatient.self, forPrimaryKey: EncryptionFixture.identifier)?.pangolinScan == EncryptionFixture.scan)
        #expect(try db.verify().isHealthy)
        #expect(EncryptionFixture.found(in: try EncryptionFixture.bytes(url)) == [])
    }

    @Test func frozenSnapshotsAndAnotherInstancesCommitsReadTheirVersions() async throws {
        let db = try open()
        try EncryptionFixture.fill(db, count: 3)
        let frozen = db.freeze()
        let frozenAll = db.objects(ZebraPatient.self).freeze()
        let other = try open()
        try other.write { other.delete(other.objects(ZebraPatient.self).where { $0.quokkaIdentifier == "p1" }) }
        #expect(frozen.objects(ZebraPatient.self).count == 4)
        #expect(frozenAll.count == 4)
        #expect(frozen.object(ofType: ZebraPatient.self, forPrimaryKey: "p1")?.axolotlAge == 1)
        _ = db.refresh()
        #expect(db.objects(ZebraPatient.self).count == 3)
        #expect(db.object(ofType: ZebraPatient.self, forPrimaryKey: "p1") == nil, "found \(db.object(ofType: ZebraPatient.self, forPrimaryKey: "p1")?.quokkaIdentifier ?? "-")")
    }

    /// Observes the persons of a file on its own executor.
    actor Observing {
        var db: Database?
        var token: NotificationToken?
        var calls: [String] = []

        func start(_ configuration: Configuration) throws {
            let db = try Database(configuration: configuration)
            try db.write { try db.add(person(1, "Ann")) }
            self.db = db
            token = db.objects(Person.self).observe { change in
                switch change {
                case .initial(let people): self.calls.append("initial \(people.map(\.name))")
                case .update(let people, _, let insertions, _): self.calls.append("\(insertions) \(people.map(\.name).sorted())")
                case .error(let error): self.calls.append("error \(error)")
                }
            }
        }

        func stop() { token?.invalidate() }
    }

    @Test func anotherProcessesCommitsReachObserversOfAnEncryptedFile() async throws {
        var config = Configuration(fileURL: directory.file("shared.objdb"), objectTypes: [Person.self])
        config.encryptionKey = EncryptionFixture.key
        let observing = Observing()
        try await observing.start(config)
        // The initial delivery first, so that the helper's commit arrives as an update.
        for _ in 0..<500 where await observing.calls.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await observing.calls == ["initial [\"Ann\"]"])
        let hex = EncryptionFixture.key.map { String(format: "%02x", $0) }.joined()
        let helper = try TestProcess("ObjDBTestHelper", ["put", directory.file("shared.objdb").path, "2", "Bob"], timeout: 30,
                                     environment: ["OBJDB_TEST_ENCRYPTION_KEY": hex])
        helper.process.waitUntilExit()
        #expect(helper.process.terminationStatus == 0)
        var arrived = false
        for _ in 0..<500 where !arrived {
            try await Task.sleep(for: .milliseconds(10))
            arrived = await observing.calls.contains("[1] [\"Ann\", \"Bob\"]")
        }
        let calls = await observing.calls
        #expect(arrived, "\(calls)")
        // Without the key the helper is refused.
        let refused = try TestProcess("ObjDBTestHelper", ["count", directory.file("shared.objdb").path], timeout: 30)
        refused.process.waitUntilExit()
        #expect(refused.process.terminationStatus == 2)
        await observing.stop()
    }
}
