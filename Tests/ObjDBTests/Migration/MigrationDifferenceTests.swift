import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// Every kind of schema difference, with and without a version bump (realm-swift
/// `MigrationTests` `testChangePropertyType`, `testChangeOptionality`, `testAddIndex`,
/// `testRemoveIndex`, `testChangeLinkTarget`, `testChangePrimaryKey`).
@Suite(.serialized)
struct MigrationDifferenceTests {
    let directory = TemporaryDirectory()

    final class Shape0: Object {
        override class var className: String { "Shape" }
        @Persisted var id: Int = 0
        @Persisted var size: Int = 0
        @Persisted var label: String? = nil
        @Persisted(indexed: true) var color: String = ""
        @Persisted var tag: Tag? = nil
        @Persisted var points: List<Int>
    }

    /// Every stored property changes in a way that needs a migration; the index goes.
    final class Shape1: Object {
        override class var className: String { "Shape" }
        @Persisted(primaryKey: true) var id: Int = 0
        @Persisted var size: String = ""
        @Persisted var label: String = "none"
        @Persisted var color: String = ""
        @Persisted var tag: Note? = nil
        @Persisted var points: List<Double>
    }

    /// Only the index changes, and the properties are reordered.
    final class ShapeReindexed: Object {
        override class var className: String { "Shape" }
        @Persisted var points: List<Int>
        @Persisted(indexed: true) var size: Int = 0
        @Persisted var id: Int = 0
        @Persisted var label: String? = nil
        @Persisted var color: String = ""
        @Persisted var tag: Tag? = nil
    }

    func configuration(_ type: ObjectBase.Type, version: UInt64, block: MigrationBlock? = nil) -> Configuration {
        var configuration = directory.configuration([type, Tag.self, Note.self])
        configuration.schemaVersion = version
        configuration.migrationBlock = block
        return configuration
    }

    func makeShapes() throws {
        let db = try Database(configuration: configuration(Shape0.self, version: 0))
        try db.write {
            for id in 1...3 {
                let shape = Shape0()
                shape.id = id; shape.size = id * 10; shape.label = id == 2 ? nil : "s\(id)"; shape.color = "red"
                shape.points.append(contentsOf: [id, id + 1])
                try db.add(shape)
            }
        }
    }

    @Test func eachKindOfChangeIsNamed() throws {
        try makeShapes()
        let error = try #require(throws: ObjDBError.self) { try Database(configuration: configuration(Shape1.self, version: 0)) }
        for expected in [
            "'Shape.id' changed from Int to Int (primary key)", "'Shape.size' changed from Int to String",
            "'Shape.label' changed from String? to String", "'Shape.tag' changed from Tag? to Note?",
            "'Shape.points' changed from List<Int> to List<Double>",
        ] {
            #expect(error.message.contains(expected), "missing \(expected) in \(error.message)")
        }
        #expect(!error.message.contains("color"))  // an index is no difference
    }

    @Test func indexesAndOrderNeedNoBump() throws {
        try makeShapes()
        let db = try Database(configuration: configuration(ShapeReindexed.self, version: 0))
        #expect(db.objects(ShapeReindexed.self).where { $0.size == 20 }.first?.id == 2)
        #expect(db.schema["Shape"]?["size"]?.isIndexed == true)
        #expect(try Database.schemaVersion(at: directory.file()) == 0)
    }

    @Test func everyKindMigratesWithABump() throws {
        try makeShapes()
        let db = try Database(configuration: configuration(Shape1.self, version: 1) { migration, _ in
            try migration.enumerateObjects(ofType: "Shape") { old, new in
                new?["size"] = "\((old?["size"] as? Int) ?? 0) cm"
                new?["label"] = (old?["label"] as? String) ?? "none"
            }
        })
        let shapes = db.objects(Shape1.self).sorted(byKeyPath: "id")
        #expect(shapes.map(\.size) == ["10 cm", "20 cm", "30 cm"])
        #expect(shapes.map(\.label) == ["s1", "none", "s3"])
        #expect(shapes.allSatisfy { $0.points.isEmpty && $0.tag == nil })
        #expect(db.object(ofType: Shape1.self, forPrimaryKey: 3)?.color == "red")
        #expect(try db.verify().isHealthy)
    }

    @Test func aWrongValueInTheBlockFailsTheMigration() throws {
        try makeShapes()
        let error = try #require(throws: ObjDBError.self) {
            try Database(configuration: configuration(Shape1.self, version: 1) { migration, _ in
                try migration.enumerateObjects(ofType: "Shape") { old, new in
                    new?["label"] = old?["label"]  // nil for shape 2, and label is required now
                }
            })
        }
        #expect(error.message.contains("The migration from schema version 0 to 1 failed"))
        #expect(try Database.schemaVersion(at: directory.file()) == 0)
    }
}

extension MigrationDifferenceTests {
    final class Indexed0: Object {
        override class var className: String { "Indexed" }
        @Persisted(primaryKey: true) var id: Int = 0
        @Persisted var name: String = ""
    }

    /// The index added and the primary key removed, with a bump and nothing else.
    final class Indexed1: Object {
        override class var className: String { "Indexed" }
        @Persisted var id: Int = 0
        @Persisted(indexed: true) var name: String = ""
    }

    // An index added or a primary key removed in a bumped migration: the tables follow.
    @Test func indexesAndKeysFollowABumpedMigration() throws {
        do {
            var configuration = directory.configuration([Indexed0.self])
            configuration.schemaVersion = 0
            let db = try Database(configuration: configuration)
            try db.write {
                for id in 1...3 {
                    let item = Indexed0(); item.id = id; item.name = "n\(id)"
                    try db.add(item)
                }
            }
        }
        var configuration = directory.configuration([Indexed1.self])
        configuration.schemaVersion = 1
        let db = try Database(configuration: configuration)
        #expect(db.objects(Indexed1.self).where { $0.name == "n2" }.first?.id == 2)
        let report = try db.verify()
        #expect(report.isHealthy, "\(report.problems)")
    }

    // A failed migration is migrationFailed, never migrationRequired: with
    // deleteDatabaseIfMigrationNeeded, the file stays.
    @Test func aFailedMigrationNeverDeletesTheFile() throws {
        try makeShapes()
        struct Refused: Error {}
        var failing = configuration(Shape1.self, version: 1) { _, _ in throw Refused() }
        failing.deleteDatabaseIfMigrationNeeded = true
        let error = try #require(throws: ObjDBError.self) { try Database(configuration: failing) }
        #expect(error.code == .migrationFailed)
        let db = try Database(configuration: configuration(Shape0.self, version: 0))
        #expect(db.objects(Shape0.self).count == 3)
    }
}
