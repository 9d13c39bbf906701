import Foundation
import ObjDB

/// Version 0 of the migrated class (stored as "BenchItem").
final class BenchItemV0: Object {
    override class var className: String { "BenchItem" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var first: String = ""
    @Persisted var last: String = ""
    @Persisted var age: Int = 0
}

/// Version 1: `age` renamed `years`; `fullName` computed from `first` and `last`, which go.
final class BenchItemV1: Object {
    override class var className: String { "BenchItem" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var fullName: String = ""
    @Persisted var years: Int = 0
}

/// The `--migration` run: migrating N objects at open (one property renamed, one computed from
/// two old ones, which are removed) against inserting the same N objects, in their new form,
/// into a fresh file. Both without `fsync` (`.noSync`), so that the figures compare work, not
/// the disk; what earlier runs left dirty is written back (`sync`) before each timed region.
enum MigrationBench {
    static func configuration(_ directory: TempDirectory, _ type: ObjectBase.Type, version: UInt64) -> ObjDB.Configuration {
        var configuration = ObjDB.Configuration(fileURL: URL(fileURLWithPath: directory.path + "/items.objdb"), objectTypes: [type])
        configuration.durability = .noSync
        configuration.schemaVersion = version
        if let mapSizeOverride { configuration.maximumSize = mapSizeOverride }
        return configuration
    }

    /// Inserts N version-1 objects into a fresh file; the time.
    static func freshInsert(_ n: Int) throws -> UInt64 {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let db = try ObjDB.Database(configuration: configuration(directory, BenchItemV1.self, version: 1))
        settleDisk()
        return try timedRegion {
            try db.write {
                for id in 0..<n {
                    let item = BenchItemV1()
                    item.id = id
                    item.fullName = "First\(id) Last\(id)"
                    item.years = id % 90
                    try db.add(item)
                }
            }
        }
    }

    /// Fills a version-0 file, then times the open that migrates it; checks the result.
    static func migrate(_ n: Int) throws -> UInt64 {
        let directory = try TempDirectory()
        defer { directory.remove() }
        do {
            let db = try ObjDB.Database(configuration: configuration(directory, BenchItemV0.self, version: 0))
            try db.write {
                for id in 0..<n {
                    let item = BenchItemV0()
                    item.id = id
                    item.first = "First\(id)"
                    item.last = "Last\(id)"
                    item.age = id % 90
                    try db.add(item)
                }
            }
        }
        var migrating = configuration(directory, BenchItemV1.self, version: 1)
        migrating.migrationBlock = { migration, _ in
            migration.renameProperty(onType: "BenchItem", from: "age", to: "years")
            try migration.enumerateObjects(ofType: "BenchItem") { old, new in
                new?["fullName"] = "\(old?["first"] as? String ?? "") \(old?["last"] as? String ?? "")"
            }
        }
        var opened: ObjDB.Database?
        settleDisk()
        let elapsed = try timedRegion { opened = try ObjDB.Database(configuration: migrating) }
        guard let db = opened else { throw CheckFailure(description: "the migrated database did not open") }
        let probe = db.object(ofType: BenchItemV1.self, forPrimaryKey: n / 2)
        guard db.objects(BenchItemV1.self).count == n, probe?.fullName == "First\(n / 2) Last\(n / 2)", probe?.years == (n / 2) % 90 else {
            throw CheckFailure(description: "the migrated objects are wrong")
        }
        return elapsed
    }

    static func run(n: Int, repetitions: Int) throws -> String {
        var fresh: [UInt64] = [], migrated: [UInt64] = []
        for repetition in 0..<repetitions {
            fresh.append(try freshInsert(n))
            migrated.append(try migrate(n))
            progress("migration repetition \(repetition + 1)/\(repetitions)")
        }
        var table = MarkdownTable(headers: ["\(formatCount(n)) objects", "median ms", "vs fresh insert"])
        table.append(["insert in their new form, fresh file", NotificationRun.ms(median(fresh)), "1.00×"])
        table.append(["migrate at open (rename + computed property)", NotificationRun.ms(median(migrated)),
                      fixed(median(migrated) / median(fresh), 2) + "×"])
        return table.render()
    }
}
