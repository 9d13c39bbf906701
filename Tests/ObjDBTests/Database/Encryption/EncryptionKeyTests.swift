import Foundation
import Testing
@testable import ObjDB

/// Opening with the wrong key, no key, or a key on a plain file: a clear error, the file's bytes
/// unchanged. Ported from realm-swift's `EncryptionTests` (`testDefaultConfigurationEncryption`,
/// `testOpenWithoutKey`, `testOpenWithWrongKey`) and `RealmTests` (`testWriteCopyWithEncryptionKey`):
/// the behaviour, not the code.
struct EncryptionKeyTests {
    let directory = TemporaryDirectory()

    /// The file's bytes, compared whole before and after.
    private func digest(_ url: URL) throws -> Data {
        try Data(contentsOf: url)
    }

    private func expectRefusal(_ config: Configuration, _ code: ObjDBError.Code, _ url: URL) throws {
        let before = try digest(url)
        #expect {
            _ = try Database(configuration: config)
        } throws: { error in
            (error as? ObjDBError)?.code == code
        }
        #expect(try digest(url) == before, "the refused open changed the file")
    }

    private func encryptedFile() throws -> URL {
        let url = directory.file("enc.objdb")
        let db = try Database(configuration: EncryptionFixture.configuration(url))
        try EncryptionFixture.fill(db, count: 5)
        return url
    }

    @Test func anEncryptedFileOpenedWithoutAKeyIsRefusedUntouched() throws {
        let url = try encryptedFile()
        try expectRefusal(EncryptionFixture.configuration(url, key: nil), .encryptionKeyRequired, url)
        var readOnly = EncryptionFixture.configuration(url, key: nil)
        readOnly.readOnly = true
        try expectRefusal(readOnly, .encryptionKeyRequired, url)
    }

    @Test func anEncryptedFileOpenedWithAnotherKeyIsRefusedUntouched() throws {
        let url = try encryptedFile()
        try expectRefusal(EncryptionFixture.configuration(url, key: EncryptionFixture.otherKey), .wrongEncryptionKey, url)
        // The right key still opens it afterwards.
        let db = try Database(configuration: EncryptionFixture.configuration(url))
        #expect(db.objects(ZebraPatient.self).count == 6)
    }

    /// A compaction at launch does not touch a file the key does not open.
    @Test func aCompactionAtLaunchLeavesAFileWithAnotherKeyAlone() throws {
        let url = try encryptedFile()
        for key in [EncryptionFixture.otherKey, nil] {
            var config = EncryptionFixture.configuration(url, key: key)
            config.shouldCompactOnLaunch = { _, _ in true }
            try expectRefusal(config, key == nil ? .encryptionKeyRequired : .wrongEncryptionKey, url)
        }
        let plain = directory.file("plain-compact.objdb")
        do { try EncryptionFixture.fill(try Database(configuration: EncryptionFixture.configuration(plain, key: nil))) }
        var config = EncryptionFixture.configuration(plain)
        config.shouldCompactOnLaunch = { _, _ in true }
        try expectRefusal(config, .fileNotEncrypted, plain)
    }

    @Test func aPlainFileOpenedWithAKeyIsRefusedUntouched() throws {
        let url = directory.file("plain.objdb")
        do { try EncryptionFixture.fill(try Database(configuration: EncryptionFixture.configuration(url, key: nil))) }
        try expectRefusal(EncryptionFixture.configuration(url), .fileNotEncrypted, url)
    }

    @Test func aKeyOfAnotherLengthIsRefusedBeforeAnythingIsCreated() throws {
        let url = directory.file("short.objdb")
        for length in [0, 32, 63, 65] {
            #expect {
                _ = try Database(configuration: EncryptionFixture.configuration(url, key: Data(count: length)))
            } throws: { error in
                guard let error = error as? ObjDBError else { return false }
                return error.code == .incompatibleConfiguration && error.message.contains("encryptionKey has \(length) bytes")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func anInstanceWithAnotherKeyIsRefusedWhileTheFileIsOpen() throws {
        let url = try encryptedFile()
        let open = try Database(configuration: EncryptionFixture.configuration(url))
        #expect(throws: ObjDBError.self) { _ = try Database(configuration: EncryptionFixture.configuration(url, key: EncryptionFixture.otherKey)) }
        #expect {
            _ = try Database(configuration: EncryptionFixture.configuration(url, key: EncryptionFixture.otherKey))
        } throws: { ($0 as? ObjDBError)?.code == .wrongEncryptionKey }
        #expect {
            _ = try Database(configuration: EncryptionFixture.configuration(url, key: nil))
        } throws: { ($0 as? ObjDBError)?.code == .encryptionKeyRequired }
        #expect(open.objects(ZebraPatient.self).count == 6)
    }

    @Test func writeCopyChangesAddsAndRemovesTheKey() throws {
        let url = try encryptedFile()
        let db = try Database(configuration: EncryptionFixture.configuration(url))
        let rekeyed = directory.file("rekeyed.objdb")
        let plain = directory.file("plain.objdb")
        try db.writeCopy(toFile: rekeyed, encryptionKey: EncryptionFixture.otherKey)
        try db.writeCopy(toFile: plain, encryptionKey: nil)

        #expect(EncryptionFixture.found(in: try EncryptionFixture.bytes(rekeyed)) == [])
        try expectRefusal(EncryptionFixture.configuration(rekeyed), .wrongEncryptionKey, rekeyed)
        let other = try Database(configuration: EncryptionFixture.configuration(rekeyed, key: EncryptionFixture.otherKey))
        try expectSameContent(other)
        #expect(try other.verify().isHealthy)

        try expectRefusal(EncryptionFixture.configuration(plain), .fileNotEncrypted, plain)
        let unencrypted = try Database(configuration: EncryptionFixture.configuration(plain, key: nil))
        try expectSameContent(unencrypted)
        #expect(try unencrypted.verify().isHealthy)
        #expect(Set(EncryptionFixture.found(in: try EncryptionFixture.bytes(plain))) == Set(EncryptionFixture.needles.map(\.0)))

        // And back: a plain file's copy with a key.
        let again = directory.file("again.objdb")
        try unencrypted.writeCopy(toFile: again, encryptionKey: EncryptionFixture.key)
        #expect(EncryptionFixture.found(in: try EncryptionFixture.bytes(again)) == [])
        let reopened = try Database(configuration: EncryptionFixture.configuration(again))
        try expectSameContent(reopened)
        #expect(try reopened.verify().isHealthy)

        // Never over an existing file, and only with 64-byte keys.
        #expect(throws: ObjDBError.self) { try db.writeCopy(toFile: plain, encryptionKey: nil) }
        #expect(throws: ObjDBError.self) { try db.writeCopy(toFile: directory.file("bad.objdb"), encryptionKey: Data(count: 16)) }
        #expect(!FileManager.default.fileExists(atPath: directory.file("bad.objdb").path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasSuffix(".partial") }
        #expect(leftovers == [])
    }

    @Test func theSchemaVersionOfAnEncryptedFileNeedsTheKey() throws {
        let url = directory.file("versioned.objdb")
        do {
            var config = EncryptionFixture.configuration(url)
            config.schemaVersion = 7
            _ = try Database(configuration: config)
        }
        #expect(try Database.schemaVersion(at: url, encryptionKey: EncryptionFixture.key) == 7)
        #expect { try Database.schemaVersion(at: url) } throws: { ($0 as? ObjDBError)?.code == .encryptionKeyRequired }
    }

    /// The plain `writeCopy(toFile:)` copies pages, so the copy keeps the key.
    @Test func aPageCopyKeepsTheKey() throws {
        let url = try encryptedFile()
        let copy = directory.file("copy.objdb")
        try Database(configuration: EncryptionFixture.configuration(url)).writeCopy(toFile: copy)
        try expectRefusal(EncryptionFixture.configuration(copy, key: nil), .encryptionKeyRequired, copy)
        try expectSameContent(try Database(configuration: EncryptionFixture.configuration(copy)))
    }

    @Test func verifyNeedsTheKeyAndChecksEverythingWithIt() throws {
        let url = try encryptedFile()
        let withKey = try Database.verify(fileAt: url, encryptionKey: EncryptionFixture.key)
        #expect(withKey.isHealthy, "\(withKey)")
        #expect(withKey.objectsChecked["ZebraPatient"] == 6)
        let without = try Database.verify(fileAt: url)
        #expect(!without.isHealthy)
        #expect(without.problems.map(\.message) == ["The file is encrypted: its rows, schema and logs can only be checked with its key"])
        let wrong = try Database.verify(fileAt: url, encryptionKey: EncryptionFixture.otherKey)
        #expect(wrong.problems.map(\.message) == ["The file is encrypted with another key than the one given"])
        #expect(try Database(configuration: EncryptionFixture.configuration(url)).verify().isHealthy)
    }

    private func expectSameContent(_ db: Database) throws {
        let p = try #require(db.object(ofType: ZebraPatient.self, forPrimaryKey: EncryptionFixture.identifier))
        #expect(p.wombatSurname == EncryptionFixture.surname)
        #expect(p.narwhalBirthday == EncryptionFixture.birthday)
        #expect(p.pangolinScan == EncryptionFixture.scan)
        #expect(p.lemurScores[EncryptionFixture.scoreKey] == EncryptionFixture.score)
        #expect(p.capybaraAddress?.ibexStreet == EncryptionFixture.street)
        #expect(p.dugongVisits.first?.gharialNote == EncryptionFixture.note)
        #expect(db.objects(ZebraPatient.self).count == 6)
        // Index and primary-key lookups after the copy rebuilt (or copied) their tables.
        #expect(db.objects(ZebraPatient.self).where { $0.wombatSurname == EncryptionFixture.surname }.count == 1)
        #expect(db.objects(ZebraPatient.self).where { $0.axolotlAge == 3 }.first?.quokkaIdentifier == "p3")
        #expect(db.object(ofType: ZebraPatient.self, forPrimaryKey: "p4")?.axolotlAge == 4)
    }
}
