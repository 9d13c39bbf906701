import Foundation
import Testing
import ObjDB

/// A class that becomes embedded in a migration: each of its objects must end the migration
/// block with exactly one parent. realm-core's `Table::set_embedded` checks the same two cases
/// ("at least one object has no incoming links", "… more than one incoming link"); since
/// realm-core 12.6 Realm then deletes the orphans and copies shared objects by itself, where
/// ObjDB fails and says which objects to resolve.
@Suite(.serialized)
struct MigrationEmbeddedTests {
    let directory = TemporaryDirectory()

    final class Part0: Object {
        override class var className: String { "Part" }
        @Persisted var name: String = ""
    }

    final class Holder0: Object {
        override class var className: String { "Holder" }
        @Persisted(primaryKey: true) var id: Int = 0
        @Persisted var part: Part0?
        @Persisted var parts: List<Part0>
    }

    final class Part1: EmbeddedObject {
        override class var className: String { "Part" }
        @Persisted var name: String = ""
    }

    final class Holder1: Object {
        override class var className: String { "Holder" }
        @Persisted(primaryKey: true) var id: Int = 0
        @Persisted var part: Part1?
        @Persisted var parts: List<Part1>
    }

    /// Holder with one more property; its parts stay top-level.
    final class Holder2: Object {
        override class var className: String { "Holder" }
        @Persisted(primaryKey: true) var id: Int = 0
        @Persisted var part: Part0?
        @Persisted var parts: List<Part0>
        @Persisted var note: String = ""
    }

    /// An embedded class the migration adds.
    final class Extra: EmbeddedObject {
        @Persisted var name: String = ""
    }

    /// Holder with a link to the added embedded class.
    final class Holder3: Object {
        override class var className: String { "Holder" }
        @Persisted(primaryKey: true) var id: Int = 0
        @Persisted var part: Part0?
        @Persisted var parts: List<Part0>
        @Persisted var extra: Extra?
    }

    func configuration(version: UInt64, block: MigrationBlock? = nil) -> Configuration {
        var configuration = directory.configuration(version == 0 ? [Holder0.self, Part0.self] : [Holder1.self, Part1.self])
        configuration.schemaVersion = version
        configuration.migrationBlock = block
        return configuration
    }

    func part(_ name: String) -> Part0 {
        let part = Part0()
        part.name = name
        return part
    }

    /// Holder 1 has part a, holder 2 the list [b, c]; `orphan` has no holder; with `shared`, one
    /// part is also held by holder 3's part and holder 4's list.
    func makeParts(orphan: Bool, shared: Bool) throws {
        let db = try Database(configuration: configuration(version: 0))
        try db.write {
            let first = Holder0(), second = Holder0()
            first.id = 1
            first.part = part("a")
            second.id = 2
            second.parts.append(objectsIn: [part("b"), part("c")])
            try db.add(first)
            try db.add(second)
            if orphan { try db.add(part("d")) }
            if shared { try addSharedPart(db) }
        }
    }

    /// Part e, held by holder 3's link and holder 4's list (inside a write).
    func addSharedPart(_ db: Database) throws {
        let both = part("e"), third = Holder0(), fourth = Holder0()
        third.id = 3
        third.part = both
        fourth.id = 4
        fourth.parts.append(both)
        try db.add(third)
        try db.add(fourth)
    }

    @Test func objectsWithoutOrWithSeveralParentsFailTheMigrationAndTheFileStaysAsItWas() throws {
        try makeParts(orphan: true, shared: true)
        let error = try #require(throws: ObjDBError.self) { try Database(configuration: configuration(version: 1)) }
        #expect(error.code == .migrationFailed)
        #expect(error.className == "Part")
        #expect(error.message.contains("'Part' is embedded in the new schema, but 1 of its objects has no parent (key "), "\(error.message)")
        #expect(error.message.contains("and 1 has several (key "), "\(error.message)")
        #expect(error.message.contains(": 2 parents)"), "\(error.message)")
        #expect(error.message.contains("left exactly as it was (schema version 0)"), "\(error.message)")
        #expect(try Database.schemaVersion(at: directory.file()) == 0)
        let db = try Database(configuration: configuration(version: 0))
        #expect(db.objects(Part0.self).count == 5)
        #expect(db.objects(Holder0.self).count == 4)
    }

    @Test func aBlockThatDeletesTheOrphansMigrates() throws {
        try makeParts(orphan: true, shared: false)
        let db = try Database(configuration: configuration(version: 1) { migration, _ in
            try migration.enumerateObjects(ofType: "Part") { old, new in
                if old?["name"] as? String == "d", let new { migration.delete(new) }
            }
        })
        let holders = db.objects(Holder1.self).sorted(by: \.id)
        #expect(holders.map { $0.part?.name } == ["a", nil])
        #expect(holders.map { Array($0.parts.map(\.name)) } == [[], ["b", "c"]])
        #expect(try db.verify().isHealthy)
    }

    /// Unlinking a shared part in the block deletes it (it is embedded in the new schema), which
    /// would leave the other parent's link dangling: the migration fails instead, and says why.
    @Test func unlinkingASharedPartInTheBlockFailsTheMigrationInsteadOfLeavingADanglingLink() throws {
        try makeParts(orphan: false, shared: true)
        let error = try #require(throws: ObjDBError.self) {
            try Database(configuration: configuration(version: 1) { migration, _ in
                try migration.enumerateObjects(ofType: "Holder") { old, new in
                    if old?["id"] as? Int == 4 { new?["parts"] = [Any?]() }
                }
            })
        }
        #expect(error.code == .migrationFailed)
        #expect(error.message.contains("1 of its objects that other objects link to was deleted in the migration block"), "\(error.message)")
        let db = try Database(configuration: configuration(version: 0))
        #expect(db.objects(Part0.self).count == 4)
        #expect(db.object(ofType: Holder0.self, forPrimaryKey: 4)?.parts.count == 1)
        #expect(try db.verify().isHealthy)
    }

    @Test func partsThatEachHaveOneParentMigrateWithoutABlock() throws {
        try makeParts(orphan: false, shared: false)
        let db = try Database(configuration: configuration(version: 1))
        #expect(db.objects(Holder1.self).count == 2)
        #expect(db.object(ofType: Holder1.self, forPrimaryKey: 2)?.parts.map(\.name) == ["b", "c"])
        #expect(try db.verify().isHealthy)
    }

    /// The block sets links and lists by name, with new objects of the migration.
    @Test func theBlockSetsLinksAndListsByName() throws {
        try makeParts(orphan: true, shared: false)
        var configuration = directory.configuration([Holder2.self, Part0.self])
        configuration.schemaVersion = 2
        configuration.migrationBlock = { migration, _ in
            var parts: [String: DynamicObject] = [:]
            try migration.enumerateObjects(ofType: "Part") { old, new in
                if let name = old?["name"] as? String, let new { parts[name] = new }
            }
            try migration.enumerateObjects(ofType: "Holder") { old, new in
                guard old?["id"] as? Int == 1 else { return }
                new?["part"] = parts["d"]
                new?["parts"] = [parts["a"], parts["c"]]
            }
        }
        let db = try Database(configuration: configuration)
        let first = try #require(db.object(ofType: Holder2.self, forPrimaryKey: 1))
        #expect(first.part?.name == "d")
        #expect(Array(first.parts.map(\.name)) == ["a", "c"])
        #expect(try db.verify().isHealthy)
    }

    /// An object of an embedded class the migration adds, created without a parent: refused.
    @Test func anObjectOfAnAddedEmbeddedClassWithoutAParentFailsTheMigration() throws {
        try makeParts(orphan: false, shared: false)
        var configuration = directory.configuration([Holder3.self, Part0.self, Extra.self])
        configuration.schemaVersion = 3
        configuration.migrationBlock = { migration, _ in _ = try migration.create("Extra", value: ["name": "alone"]) }
        let error = try #require(throws: ObjDBError.self) { try Database(configuration: configuration) }
        #expect(error.message.contains("'Extra' is embedded in the new schema, but 1 of its objects has no parent"), "\(error.message)")
        #expect(try Database.schemaVersion(at: directory.file()) == 0)
        // Without the orphan, the class is added.
        configuration.migrationBlock = nil
        let db = try Database(configuration: configuration)
        #expect(db.objects(Holder3.self).count == 2)
    }

    /// The only part, shared by two holders, deleted by unlinking it in the block: the class is
    /// left without objects, and the migration still fails rather than keep the other link.
    @Test func deletingTheOnlySharedPartStillFailsTheMigration() throws {
        do {
            let db = try Database(configuration: configuration(version: 0))
            try db.write { try addSharedPart(db) }
        }
        let error = try #require(throws: ObjDBError.self) {
            try Database(configuration: configuration(version: 1) { migration, _ in
                try migration.enumerateObjects(ofType: "Holder") { old, new in
                    if old?["id"] as? Int == 4 { new?["parts"] = [Any?]() }
                }
            })
        }
        #expect(error.code == .migrationFailed)
        #expect(error.message.contains("was deleted in the migration block"), "\(error.message)")
        #expect(try Database.schemaVersion(at: directory.file()) == 0)
    }
}
