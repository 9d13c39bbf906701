import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// A migration is one write transaction: a process killed at any point of it leaves the file
/// exactly as it was. A helper process migrates 100k objects and is killed with SIGKILL while
/// rewriting rows, while the block enumerates them, and after the block's last write (before
/// the commit); the old models then read every object unchanged.
@Suite(.serialized)
struct MigrationCrashTests {
    let directory = TemporaryDirectory()
    let count = 100_000

    func oldConfiguration() -> Configuration {
        var configuration = Configuration(fileURL: directory.file(), objectTypes: [MigratingItemV0.self])
        configuration.durability = .noSync
        return configuration
    }

    func fill() throws {
        let db = try Database(configuration: oldConfiguration())
        try db.write {
            for id in 0..<count {
                let item = MigratingItemV0()
                item.id = id
                item.title = "item \(id)"
                item.count = id * 3
                try db.add(item)
            }
        }
    }

    /// Starts the helper's migration and kills it once it printed `marker`.
    func killMigration(at marker: String, stop: String, variant: [String]) throws {
        let (process, output, _) = try HelperProcess.start(["migrate", directory.file().path, stop] + variant)
        var seen = ""
        let deadline = Date().addingTimeInterval(120)
        while !seen.contains(marker) && Date() < deadline {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }  // the helper ended
            seen += String(decoding: data, as: UTF8.self)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(seen.contains(marker), "the helper printed \(seen.debugDescription) before it was killed")
        #expect(process.terminationReason == .uncaughtSignal)
    }

    /// The file reads as before the migration.
    func expectUnchanged() throws {
        #expect(try Database.schemaVersion(at: directory.file()) == 0)
        let db = try Database(configuration: oldConfiguration())
        #expect(db.objects(MigratingItemV0.self).count == count)
        for id in [0, 1, count / 2, count - 1] {
            let item = db.object(ofType: MigratingItemV0.self, forPrimaryKey: id)
            #expect(item?.title == "item \(id)")
            #expect(item?.count == id * 3)
        }
        #expect(try db.verify().isHealthy)
    }

    /// With the indexed model every row is rewritten before the block; with the plain one
    /// ("plain") each row is rewritten as the block's enumeration reaches it.
    @Test(arguments: [[], ["plain"]])
    func aMigrationKilledAnywhereLeavesTheFileAsItWas(variant: [String]) throws {
        try fill()
        for (marker, stop) in [("rewriting", "none"), ("enumerating", "none"), ("enumerated", "end")] {
            try killMigration(at: marker, stop: stop, variant: variant)
            try expectUnchanged()
        }
        // Left alone, the same migration completes.
        let result = try HelperProcess.run(["migrate", directory.file().path, "none"] + variant)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasSuffix("\(count)\n"))
        let model: ObjectBase.Type = variant.isEmpty ? MigratingItemV1.self : MigratingPlainItemV1.self
        var configuration = Configuration(fileURL: directory.file(), objectTypes: [model])
        configuration.schemaVersion = 1
        let db = try Database(configuration: configuration)
        let item = try db.dynamicObjects("MigratingItem").filter("id == 7").first
        #expect(item?["name"] as? String == "item 7")
        #expect(item?["total"] as? String == "21")
        #expect(try db.dynamicObjects("MigratingItem").filter("tag == 'new'").count == count)
        #expect(try db.verify().isHealthy)
    }
}
