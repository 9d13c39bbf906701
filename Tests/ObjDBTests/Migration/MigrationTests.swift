import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

// Two versions of one stored class, "Contact", declared side by side.

/// Version 0 of Contact.
final class ContactV0: Object {
    override class var className: String { "Contact" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var fullName: String = ""
    @Persisted var yearsOld: Int = 0
    @Persisted(indexed: true) var city: String = ""
}

/// Version 1: `fullName` renamed `name`, `yearsOld` replaced by `age` (a String now), a new
/// `nickname` with a declared default, an index on `name`.
final class ContactV1: Object {
    override class var className: String { "Contact" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(indexed: true) var name: String = ""
    @Persisted var age: String = "unknown"
    @Persisted var nickname: String = "none"
    @Persisted(indexed: true) var city: String = ""
}

/// Version 2: the primary key moves to `email`.
final class ContactV2: Object {
    override class var className: String { "Contact" }
    @Persisted var id: Int = 0
    @Persisted(primaryKey: true) var email: String = ""
    @Persisted var name: String = ""
}

/// An unrelated class, for deleteData and create.
final class Tag: Object {
    @Persisted var label: String = ""
}

/// Migrations at open. Cases follow realm-swift's `RealmSwift/Tests/MigrationTests.swift`
/// (`testMigrationProperties`, `testEnumerate`, `testRenameProperty`, `testDeleteData`,
/// `testCreate`, `testDelete`, `testChangePrimaryKey…`, `testFailingMigrationBlock…`,
/// `testSchemaVersionAtURL`) with this library's models.
@Suite(.serialized)
struct MigrationTests {
    let directory = TemporaryDirectory()

    func configuration(_ types: [ObjectBase.Type], version: UInt64, block: MigrationBlock? = nil) -> Configuration {
        var configuration = directory.configuration(types)
        configuration.schemaVersion = version
        configuration.migrationBlock = block
        return configuration
    }

    /// A version-0 file with three contacts and two tags.
    func makeV0() throws {
        let db = try Database(configuration: configuration([ContactV0.self, Tag.self], version: 0))
        try db.write {
            for (id, name, age, city) in [(1, "Ann Lee", 31, "Oslo"), (2, "Bob Roe", 42, "Rome"), (3, "Cy Doe", 53, "Oslo")] {
                let contact = ContactV0()
                contact.id = id; contact.fullName = name; contact.yearsOld = age; contact.city = city
                try db.add(contact)
            }
            let tag = Tag(); tag.label = "a"
            let other = Tag(); other.label = "b"
            try db.add([tag, other])
        }
    }

    @Test func withoutABumpTheErrorListsEveryDifference() throws {
        try makeV0()
        let error = try #require(throws: ObjDBError.self) { try Database(configuration: configuration([ContactV1.self, Tag.self], version: 0)) }
        #expect(error.code == .migrationRequired)
        #expect(error.message.contains("'Contact.name' was added"))
        #expect(error.message.contains("'Contact.age' was added"))
        #expect(error.message.contains("'Contact.nickname' was added"))
        #expect(error.message.contains("'Contact.fullName' was removed"))
        #expect(error.message.contains("'Contact.yearsOld' was removed"))
        #expect(error.message.contains("Raise Configuration.schemaVersion above 0"))
        #expect(error.className == "Contact")
        #expect(try Database.schemaVersion(at: directory.file()) == 0)
    }

    @Test func aLowerVersionNamesBothVersions() throws {
        try makeV0()
        _ = try Database(configuration: configuration([ContactV0.self, Tag.self], version: 3))
        let error = try #require(throws: ObjDBError.self) { try Database(configuration: configuration([ContactV0.self, Tag.self], version: 2)) }
        #expect(error.code == .migrationRequired)
        #expect(error.message.contains("schemaVersion 2 is lower than the file's schema version 3"))
    }

    @Test func changesThatNeedNoBumpOpenAtTheSameVersion() throws {
        try makeV0()
        // An added class and an index dropped or added need no migration.
        final class Extra: Object { @Persisted var x: Int = 0 }
        let db = try Database(configuration: configuration([ContactV0.self, Tag.self, Extra.self], version: 0))
        #expect(db.objects(ContactV0.self).count == 3)
        #expect(try Database.schemaVersion(at: directory.file()) == 0)
    }

    // testMigrationProperties: added properties read as the declared default; removed ones go.
    @Test func automaticChangesWithoutABlock() throws {
        try makeV0()
        let db = try Database(configuration: configuration([ContactV1.self, Tag.self], version: 1))
        let contacts = db.objects(ContactV1.self).sorted(byKeyPath: "id")
        #expect(contacts.map(\.name) == ["", "", ""])
        #expect(contacts.map(\.age) == ["unknown", "unknown", "unknown"])
        #expect(contacts.map(\.nickname) == ["none", "none", "none"])
        #expect(contacts.map(\.city) == ["Oslo", "Rome", "Oslo"])
        #expect(db.schema["Contact"]?["fullName"] == nil)
        #expect(db.objects(ContactV1.self).where { $0.city == "Oslo" }.count == 2)  // kept index
        #expect(db.object(ofType: ContactV1.self, forPrimaryKey: 2)?.city == "Rome")  // kept primary key
        #expect(try Database.schemaVersion(at: directory.file()) == 1)
        #expect(try db.verify().isHealthy)
    }

    // API.md's example, testRenameProperty and testEnumerate: a rename keeps the data, a type
    // change is written in the block, and the new index is filled.
    @Test func renameAndConvertInTheBlock() throws {
        try makeV0()
        let seen = LockedCalls()
        let db = try Database(configuration: configuration([ContactV1.self, Tag.self], version: 1) { migration, oldSchemaVersion in
            seen.append("from \(oldSchemaVersion)")
            #expect(migration.oldSchema["Contact"]?["fullName"] != nil)
            #expect(migration.newSchema["Contact"]?["name"] != nil)
            migration.renameProperty(onType: "Contact", from: "fullName", to: "name")
            try migration.enumerateObjects(ofType: "Contact") { old, new in
                new?["age"] = "\((old?["yearsOld"] as? Int) ?? 0)"
            }
        })
        #expect(seen.all == ["from 0"])
        let contacts = db.objects(ContactV1.self).sorted(byKeyPath: "id")
        #expect(contacts.map(\.name) == ["Ann Lee", "Bob Roe", "Cy Doe"])
        #expect(contacts.map(\.age) == ["31", "42", "53"])
        #expect(db.objects(ContactV1.self).where { $0.name == "Bob Roe" }.first?.id == 2)  // through the new index
        #expect(try db.verify().isHealthy)
    }

    // testDeleteData, testCreate, testDelete.
    @Test func deleteDataCreateAndDelete() throws {
        try makeV0()
        let db = try Database(configuration: configuration([ContactV0.self, Tag.self], version: 1) { migration, _ in
            #expect(migration.deleteData(forType: "Tag"))
            #expect(!migration.deleteData(forType: "NoSuchClass"))
            try migration.create("Tag", value: ["label": "created"])
            try migration.create("Contact", value: ["id": 4, "fullName": "Di Poe"])
            try migration.enumerateObjects(ofType: "Contact") { old, new in
                if let new, (old?["id"] as? Int) == 1 { migration.delete(new) }
            }
            #expect(throws: ObjDBError.self) { try migration.create("Contact", value: ["nosuch": 1]) }
        })
        #expect(db.objects(Tag.self).map(\.label) == ["created"])
        #expect(db.objects(ContactV0.self).sorted(byKeyPath: "id").map(\.id) == [2, 3, 4])
        #expect(db.object(ofType: ContactV0.self, forPrimaryKey: 4)?.fullName == "Di Poe")
    }

    // testFailingMigrationBlock: a throwing block leaves the file exactly as it was.
    @Test func aThrowingBlockLeavesTheFileAsItWas() throws {
        try makeV0()
        struct Refused: Error {}
        let error = try #require(throws: ObjDBError.self) {
            try Database(configuration: configuration([ContactV1.self, Tag.self], version: 1) { migration, _ in
                migration.renameProperty(onType: "Contact", from: "fullName", to: "name")
                throw Refused()
            })
        }
        #expect(error.message.contains("The migration from schema version 0 to 1 failed, and the file was left exactly as it was (schema version 0)"))
        #expect(error.message.contains("Refused"))
        #expect(try Database.schemaVersion(at: directory.file()) == 0)
        let db = try Database(configuration: configuration([ContactV0.self, Tag.self], version: 0))
        #expect(db.objects(ContactV0.self).sorted(byKeyPath: "id").map(\.fullName) == ["Ann Lee", "Bob Roe", "Cy Doe"])
        #expect(try db.verify().isHealthy)
    }

    @Test func aBadRenameFailsTheMigration() throws {
        try makeV0()
        let error = try #require(throws: ObjDBError.self) {
            try Database(configuration: configuration([ContactV1.self, Tag.self], version: 1) { migration, _ in
                migration.renameProperty(onType: "Contact", from: "yearsOld", to: "name")  // Int into String
            })
        }
        #expect(error.code == .typeMismatch)
        #expect(error.message.contains("'Contact.yearsOld' is Int but 'Contact.name' is String"))
        #expect(try Database.schemaVersion(at: directory.file()) == 0)
    }

    // testChangePrimaryKey…: duplicates after the block fail the migration, naming class and key.
    @Test func duplicatePrimaryKeysFailTheMigration() throws {
        try makeV0()
        let error = try #require(throws: ObjDBError.self) {
            try Database(configuration: configuration([ContactV2.self, Tag.self], version: 2) { migration, _ in
                try migration.enumerateObjects(ofType: "Contact") { old, new in
                    new?["email"] = "\(old?["city"] as? String ?? "")@example.com"  // two in Oslo
                }
            })
        }
        #expect(error.code == .primaryKeyExists)
        #expect(error.message.contains("two 'Contact' objects have the primary key Oslo@example.com"))
        #expect(error.className == "Contact")
        #expect(try Database.schemaVersion(at: directory.file()) == 0)

        let db = try Database(configuration: configuration([ContactV2.self, Tag.self], version: 2) { migration, _ in
            try migration.enumerateObjects(ofType: "Contact") { old, new in
                new?["email"] = "\(old?["id"] as? Int ?? 0)@example.com"
                new?["name"] = old?["fullName"] as? String
            }
        })
        #expect(db.object(ofType: ContactV2.self, forPrimaryKey: "3@example.com")?.name == "Cy Doe")
        let report = try db.verify()
        #expect(report.isHealthy, "\(report.problems)")
    }

    // A chain: the block sees the stored version and handles every step in one open.
    @Test func aChainFromZeroToThreeRunsInOneOpen() throws {
        try makeV0()
        let steps = LockedCalls()
        let db = try Database(configuration: configuration([ContactV1.self, Tag.self], version: 3) { migration, oldSchemaVersion in
            if oldSchemaVersion < 1 {
                steps.append("1")
                migration.renameProperty(onType: "Contact", from: "fullName", to: "name")
            }
            if oldSchemaVersion < 2 { steps.append("2") }
            if oldSchemaVersion < 3 {
                steps.append("3")
                try migration.enumerateObjects(ofType: "Contact") { _, new in new?["nickname"] = "v3" }
            }
        })
        #expect(steps.all == ["1", "2", "3"])
        #expect(db.objects(ContactV1.self).map(\.nickname) == ["v3", "v3", "v3"])
        #expect(db.objects(ContactV1.self).sorted(byKeyPath: "id").first?.name == "Ann Lee")
        #expect(try Database.schemaVersion(at: directory.file()) == 3)
    }

    @Test func progressCoversEveryObject() throws {
        try makeV0()
        let reports = LockedCalls()
        var configuration = configuration([ContactV1.self, Tag.self], version: 1) { migration, _ in
            try migration.enumerateObjects(ofType: "Contact") { _, _ in }
        }
        configuration.migrationProgress = { reports.append("\($0.className) \($0.phase.rawValue) \($0.processed)/\($0.total)") }
        _ = try Database(configuration: configuration)
        #expect(reports.all == ["Contact rewriting 3/3", "Contact enumerating 3/3"])
    }
}
