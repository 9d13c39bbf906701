import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// A class version 0 of the app had and version 1 no longer declares: primary key, index, and
/// a link to Contact (so it has a backlink table of its own).
final class LegacyV0: Object {
    override class var className: String { "Legacy" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(indexed: true) var text: String = ""
    @Persisted var contact: ContactV0?
}

/// A second removed class that links to `Legacy`: while it stays, `Legacy` must stay too.
final class LegacyHolderV0: Object {
    override class var className: String { "LegacyHolder" }
    @Persisted var legacy: LegacyV0?
}

/// A later version of the app declares a class named `Legacy` again, with other properties.
final class LegacyAgain: Object {
    override class var className: String { "Legacy" }
    @Persisted var label: String = ""
}

/// Enumerating and deleting classes that the new schema lacks. Cases follow realm-swift's
/// `RealmSwift/Tests/MigrationTests.swift` (`testEnumerate`, `testDeleteData`) and
/// `Realm/Tests/MigrationTests.mm` (`testRemovingSubclass`), with this library's models.
@Suite(.serialized)
struct MigrationRemovedClassTests {
    let directory = TemporaryDirectory()

    func configuration(_ types: [ObjectBase.Type]?, version: UInt64, block: MigrationBlock? = nil) -> Configuration {
        var configuration = directory.configuration(types)
        configuration.schemaVersion = version
        configuration.migrationBlock = block
        return configuration
    }

    /// A version-0 file: three contacts, an empty Tag class, three Legacy objects linking to the
    /// contacts, and (with `holder`) a LegacyHolder linking to the first. Returns Legacy's class id.
    @discardableResult
    func makeV0(holder: Bool = false) throws -> UInt32 {
        let types: [ObjectBase.Type] = [ContactV0.self, Tag.self, LegacyV0.self] + (holder ? [LegacyHolderV0.self] : [])
        let db = try Database(configuration: configuration(types, version: 0))
        try db.write {
            for id in 1...3 {
                let contact = ContactV0()
                contact.id = id
                contact.fullName = "contact \(id)"
                try db.add(contact)
                let legacy = LegacyV0()
                legacy.id = id
                legacy.text = "old \(id)"
                legacy.contact = contact
                try db.add(legacy)
            }
            if holder {
                let holder = LegacyHolderV0()
                holder.legacy = db.object(ofType: LegacyV0.self, forPrimaryKey: 1)
                try db.add(holder)
            }
        }
        return try #require(db.classInfo(named: "Legacy")?.classID)
    }

    /// The entries of each table of class `id` in the file of `db`, and its key counters, read
    /// in a raw transaction.
    func leftovers(of id: UInt32, in db: Database) throws -> (entries: Int, counters: Int) {
        let write = try WriteTransaction(db.environment)
        var entries = 0
        for (name, flags) in [
            (TableName.objects(id), TableFlags.objects), (TableName.primaryKeys(id), .multimap),
            (TableName.index(id, property: 2), .multimap), (TableName.backlinks(id, property: 3), .backlinks),
        ] {
            entries += try write.txn.entryCount(try write.txn.openTable(named: name, flags: flags))
        }
        let counters = try [FileMeta.Key.nextKey(id), FileMeta.Key.autoIncrement(id)].filter {
            try FileMeta.get(write.txn, db.metaTable, $0) != nil
        }.count
        try write.commit()  // changes nothing: the tables opened stay valid
        return (entries, counters)
    }

    // testEnumerate: a class in neither schema calls nothing and does not throw; neither does a
    // class that has no objects.
    @Test func enumeratingAClassInNeitherSchemaCallsNothing() throws {
        try makeV0()
        let calls = LockedCalls()
        let db = try Database(configuration: configuration([ContactV0.self, Tag.self, LegacyV0.self], version: 1) { migration, _ in
            try migration.enumerateObjects(ofType: "NoSuchClass") { _, _ in calls.append("NoSuchClass") }
            try migration.enumerateObjects(ofType: "Tag") { _, _ in calls.append("Tag") }
            try migration.enumerateObjects(ofType: "Contact") { old, new in
                calls.append("Contact \(old?["id"] as? Int ?? 0) \(new?["id"] as? Int ?? 0)")
            }
        })
        #expect(calls.all == ["Contact 1 1", "Contact 2 2", "Contact 3 3"])
        #expect(db.schema["NoSuchClass"] == nil)
        #expect(try Database.schemaVersion(at: directory.file()) == 1)
    }

    // A chain written for every older file: the step for a class this file never had runs
    // without effect, and the steps around it still run.
    @Test func aChainStepForAClassTheFileNeverHadIsSkipped() throws {
        let db0 = try Database(configuration: configuration([ContactV0.self], version: 0))
        try db0.write {
            let contact = ContactV0()
            contact.id = 7
            contact.fullName = "Ann Lee"
            try db0.add(contact)
        }
        let steps = LockedCalls()
        let db = try Database(configuration: configuration([ContactV1.self], version: 3) { migration, oldSchemaVersion in
            if oldSchemaVersion < 1 { migration.renameProperty(onType: "Contact", from: "fullName", to: "name") }
            if oldSchemaVersion < 2 {
                try migration.enumerateObjects(ofType: "Legacy") { _, _ in steps.append("Legacy") }
                #expect(!migration.deleteData(forType: "Legacy"))
            }
            if oldSchemaVersion < 3 {
                try migration.enumerateObjects(ofType: "Contact") { _, new in new?["nickname"] = "v3" }
                steps.append("3")
            }
        })
        #expect(steps.all == ["3"])
        let contact = try #require(db.object(ofType: ContactV1.self, forPrimaryKey: 7))
        #expect(contact.name == "Ann Lee")
        #expect(contact.nickname == "v3")
        #expect(db.schema.objectSchema.map(\.className) == ["Contact"])
        #expect(try db.verify().isHealthy)
    }

    // testDeleteData, testRemovingSubclass: deleteData of a class no model declares removes it
    // from the schema (its tables are emptied, its counters gone); of a class a model declares,
    // it deletes the objects and keeps the class; of a class the file lacks, it returns false.
    @Test func deleteDataRemovesAClassNoModelDeclares() throws {
        let legacyID = try makeV0()
        let db = try Database(configuration: configuration([ContactV0.self, Tag.self], version: 1) { migration, oldSchemaVersion in
            #expect(oldSchemaVersion == 0)
            #expect(migration.deleteData(forType: "Legacy"))
            #expect(!migration.deleteData(forType: "NoSuchClass"))
            try migration.create("Tag", value: ["label": "made in the migration"])
            #expect(migration.deleteData(forType: "Tag"))
            // The old objects are still there to read.
            let old = LockedCalls()
            try migration.enumerateObjects(ofType: "Legacy") { oldObject, newObject in
                old.append("\(oldObject?["text"] as? String ?? "?") \(newObject == nil)")
            }
            #expect(old.all == ["old 1 true", "old 2 true", "old 3 true"])
        })
        #expect(db.schema["Legacy"] == nil)
        #expect(db.schema["Tag"] != nil)
        #expect(db.objects(Tag.self).isEmpty)
        #expect(db.objects(ContactV0.self).count == 3)
        let report = try db.verify()
        #expect(report.isHealthy, "\(report)")
        #expect(report.objectsChecked["Legacy"] == nil)
        let left = try leftovers(of: legacyID, in: db)
        #expect(left.entries == 0)
        #expect(left.counters == 0)

        // As Realm's test reopens dynamically: a tool without the models sees no Legacy either.
        var readOnly = Configuration(fileURL: directory.file(), readOnly: true)
        readOnly.schemaVersion = 1
        let dynamic = try Database(configuration: readOnly)
        #expect(dynamic.schema.objectSchema.map(\.className).sorted() == ["Contact", "Tag"])
        #expect(try Database.verify(fileAt: directory.file()).isHealthy)
    }

    // All or nothing: a block that throws after deleteData, and a check that fails after the
    // block (two contacts with one primary key), both leave the class and its objects.
    @Test(arguments: [false, true])
    func aFailedMigrationKeepsTheDeletedClass(_ failsAfterTheBlock: Bool) throws {
        try makeV0()
        struct Refused: Error {}
        #expect(throws: ObjDBError.self) {
            try Database(configuration: configuration([ContactV2.self, Tag.self], version: 2) { migration, _ in
                migration.deleteData(forType: "Legacy")
                if !failsAfterTheBlock { throw Refused() }
                try migration.enumerateObjects(ofType: "Contact") { _, new in new?["email"] = "same@example.com" }
            })
        }
        #expect(try Database.schemaVersion(at: directory.file()) == 0)
        let db = try Database(configuration: configuration([ContactV0.self, Tag.self, LegacyV0.self], version: 0))
        #expect(db.objects(LegacyV0.self).map(\.text) == ["old 1", "old 2", "old 3"])
        #expect(db.objects(LegacyV0.self).first?.contact?.id == 1)
        let report = try db.verify()
        #expect(report.isHealthy, "\(report)")
    }

    // A class that the block fills again after deleteData, or that a class staying in the file
    // links to, stays (as before: emptied, or with what the block made).
    @Test func aDeletedClassStaysWhileSomethingNeedsIt() throws {
        try makeV0(holder: true)
        let db = try Database(configuration: configuration([ContactV0.self, Tag.self], version: 1) { migration, _ in
            migration.deleteData(forType: "Legacy")  // LegacyHolder links to it
            migration.deleteData(forType: "Tag")
            try migration.create("Tag", value: ["label": "again"])
        })
        #expect(db.schema["Legacy"] != nil)
        #expect(db.dynamicObjects("Legacy").isEmpty)
        #expect(db.dynamicObjects("LegacyHolder").count == 1)
        #expect(db.dynamicObjects("LegacyHolder").first?["legacy"] == nil)
        #expect(db.objects(Tag.self).map(\.label) == ["again"])
        #expect(try db.verify().isHealthy)
    }

    // Deleting both a class and the class that links to it removes both.
    @Test func deletingAClassAndItsOnlyOriginRemovesBoth() throws {
        let legacyID = try makeV0(holder: true)
        let db = try Database(configuration: configuration([ContactV0.self, Tag.self], version: 1) { migration, _ in
            migration.deleteData(forType: "Legacy")
            migration.deleteData(forType: "LegacyHolder")
        })
        #expect(db.schema.objectSchema.map(\.className).sorted() == ["Contact", "Tag"])
        #expect(try leftovers(of: legacyID, in: db).entries == 0)
        let report = try db.verify()
        #expect(report.isHealthy, "\(report)")
    }

    // Without objectTypes no class counts as declared: an emptied class nothing links to leaves,
    // and the app's first write of it creates it again; one that is linked to stays.
    @Test func withoutObjectTypesAnEmptiedClassNothingLinksToLeaves() throws {
        do {
            let db = try Database(configuration: configuration([ContactV0.self, Tag.self, LegacyV0.self], version: 0))
            try db.write {
                let tag = Tag()
                tag.label = "old"
                try db.add(tag)
                let contact = ContactV0()
                contact.id = 1
                try db.add(contact)
                let legacy = LegacyV0()
                legacy.id = 1
                legacy.contact = contact
                try db.add(legacy)
            }
        }
        let db = try Database(configuration: configuration(nil, version: 1) { migration, _ in
            #expect(migration.deleteData(forType: "Tag"))
            #expect(migration.deleteData(forType: "Contact"))  // Legacy links to it
        })
        #expect(db.schema.objectSchema.map(\.className).sorted() == ["Contact", "Legacy"])
        #expect(db.dynamicObjects("Contact").isEmpty)
        #expect(db.dynamicObjects("Legacy").first?["contact"] == nil)
        #expect(db.objects(Tag.self).isEmpty)
        try db.write {
            let again = Tag()
            again.label = "new"
            try db.add(again)
        }
        #expect(db.objects(Tag.self).map(\.label) == ["new"])
        let report = try db.verify()
        #expect(report.isHealthy, "\(report)")
    }

    // A later version that declares the name again gets a class of its own: new id, new tables.
    @Test func aRemovedNameCanComeBackAsANewClass() throws {
        let legacyID = try makeV0()
        do {
            _ = try Database(configuration: configuration([ContactV0.self, Tag.self], version: 1) { migration, _ in
                migration.deleteData(forType: "Legacy")
            })
        }
        let db = try Database(configuration: configuration([ContactV0.self, Tag.self, LegacyAgain.self], version: 1))
        let info = try #require(db.classInfo(named: "Legacy"))
        #expect(info.classID > legacyID)
        #expect(db.objects(LegacyAgain.self).isEmpty)
        try db.write {
            let again = LegacyAgain()
            again.label = "new"
            try db.add(again)
        }
        #expect(db.objects(LegacyAgain.self).map(\.label) == ["new"])
        #expect(db.objects(LegacyAgain.self).first?._objdbKey == 1)
        let report = try db.verify()
        #expect(report.isHealthy, "\(report)")
    }

    // Bad input for the check: a removed class's table that holds entries again is reported.
    @Test func verifyReportsEntriesInARemovedClassTable() throws {
        let legacyID = try makeV0()
        let db = try Database(configuration: configuration([ContactV0.self, Tag.self], version: 1) { migration, _ in
            migration.deleteData(forType: "Legacy")
        })
        let write = try WriteTransaction(db.environment)
        let table = try write.txn.openTable(named: TableName.objects(legacyID), flags: .objects)
        _ = try [UInt8](repeating: 1, count: 8).withUnsafeBytes { try write.txn.put(table, key: 1, value: $0) }
        try write.commit()
        let report = try Database.verify(fileAt: directory.file())
        #expect(report.problems.map(\.message) == ["The table of a removed class still holds entries"])
        #expect(report.problems.first?.table == TableName.objects(legacyID))
    }
}
