import Foundation
import Testing
@testable import ObjDB

/// An encrypted file: what it stores, and what it refuses.
struct EncryptionBasicsTests {
    let directory = TemporaryDirectory()

    @Test func valuesAndNamesReadBackButNeverAppearInTheFile() throws {
        let url = directory.file("secret.objdb")
        do {
            let db = try Database(configuration: EncryptionFixture.configuration(url))
            try EncryptionFixture.fill(db, count: 50)
        }
        let bytes = try EncryptionFixture.bytes(url)
        #expect(EncryptionFixture.found(in: bytes) == [])

        let db = try Database(configuration: EncryptionFixture.configuration(url))
        let p = try #require(db.object(ofType: ZebraPatient.self, forPrimaryKey: EncryptionFixture.identifier))
        #expect(p.wombatSurname == EncryptionFixture.surname)
        #expect(p.axolotlAge == EncryptionFixture.age)
        #expect(p.narwhalBirthday == EncryptionFixture.birthday)
        #expect(p.pangolinScan == EncryptionFixture.scan)
        #expect(p.okapiBalance == EncryptionFixture.balance)
        #expect(Array(p.tapirTags) == [EncryptionFixture.tag])
        #expect(p.lemurScores[EncryptionFixture.scoreKey] == EncryptionFixture.score)
        #expect(p.capybaraAddress?.ibexStreet == EncryptionFixture.street)
        #expect(p.dugongVisits.first?.gharialNote == EncryptionFixture.note)
        #expect(db.objects(ZebraPatient.self).count == 51)
        #expect(db.objects(ZebraPatient.self).where { $0.wombatSurname == "name3" }.count == 5)
    }

    /// A snapshot keeps a value it decrypted once, however often it is read again.
    @Test func aSnapshotDecryptsEachValueOnce() throws {
        let db = try Database(configuration: EncryptionFixture.configuration(directory.file("once.objdb")))
        try EncryptionFixture.fill(db, count: 20)
        _ = db.refresh()
        func held() throws -> Int { try #require(try db.requireReadableTxn().decrypted).byteCount }
        _ = db.object(ofType: ZebraPatient.self, forPrimaryKey: "p3")?.axolotlAge
        let afterOne = try held()
        #expect(afterOne > 0)
        for _ in 0..<1_000 {
            #expect(db.object(ofType: ZebraPatient.self, forPrimaryKey: "p3")?.axolotlAge == 3)
        }
        #expect(try held() == afterOne)
        let all = db.objects(ZebraPatient.self)
        let sum = all.reduce(0) { $0 + $1.axolotlAge }
        let afterAll = try held()
        #expect(all.reduce(0) { $0 + $1.axolotlAge } == sum)
        #expect(try held() == afterAll)
    }

    /// The same values in a file without a key are found: the search above can fail.
    @Test func theSearchFindsTheValuesInAnUnencryptedFile() throws {
        let url = directory.file("plain.objdb")
        do {
            let db = try Database(configuration: EncryptionFixture.configuration(url, key: nil))
            try EncryptionFixture.fill(db)
        }
        let found = Set(EncryptionFixture.found(in: try EncryptionFixture.bytes(url)))
        #expect(found == Set(EncryptionFixture.needles.map(\.0)))
    }
}
