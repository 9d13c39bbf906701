import Foundation
import Testing
@testable import ObjDB

// A class whose rows are its only table besides its primary key (no index, no link of its
// own), so that a migration rewrites its rows as `enumerateObjects` reaches them
// (``FusedRewrite``), and a class that links to it.

/// Version 0 of "Fusable".
final class FusableV0: Object {
    override class var className: String { "Fusable" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var first: String = ""
    @Persisted var last: String = ""
    @Persisted var age: Int = 0
    @Persisted var tags: List<String>
}

/// Version 1: `age` renamed `years`, `fullName` computed from `first` and `last` (removed).
final class FusableV1: Object {
    override class var className: String { "Fusable" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var fullName: String = ""
    @Persisted var years: Int = 0
    @Persisted var tags: List<String>
}

/// A class linking to version 0 of Fusable.
final class FusableHolderV0: Object {
    override class var className: String { "FusableHolder" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var item: FusableV0?
}

/// The same class, linking to version 1.
final class FusableHolderV1: Object {
    override class var className: String { "FusableHolder" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var item: FusableV1?
}

/// Migrations of a class whose rows are rewritten as the block's enumeration reaches them: every
/// case runs the same migration with that fast path and with its slow twin (every row rewritten
/// before the block) and compares the files; the cases are the ways a block can reach the class
/// before the walk is through (a query, a link, create, delete, a nested enumeration, a throw).
@Suite(.serialized)
struct MigrationFusedRewriteTests {
    static let count = 2_500

    /// What a migrated file holds: each Fusable as "id fullName years tags", each holder's item.
    struct Contents: Equatable {
        var items: [String]
        var holders: [String]
    }

    /// A version-0 file in `directory`: `count` objects, ages `id % 90`, tags `["t\(id)"]`, and
    /// a holder for every hundredth object, linking to it.
    private func makeV0(in directory: TemporaryDirectory) throws {
        let db = try Database(configuration: directory.configuration([FusableV0.self, FusableHolderV0.self]))
        try db.write {
            for id in 1...Self.count {
                let item = FusableV0()
                item.id = id
                item.first = "F\(id)"
                item.last = "L\(id)"
                item.age = id % 90
                item.tags.append("t\(id)")
                try db.add(item)
                if id % 100 == 0 {
                    let holder = FusableHolderV0()
                    holder.id = id
                    holder.item = item
                    try db.add(holder)
                }
            }
        }
    }

    /// Migrates a version-0 file with `block` inside `enumerateObjects(ofType: "Fusable")`,
    /// with the fused rewrite or its slow twin; returns the file's contents and the progress
    /// reports.
    private func migrate(
        fused: Bool, around: ((Migration) throws -> Void)? = nil,
        _ block: @escaping @Sendable (Migration, DynamicObject?, DynamicObject?) throws -> Void
    ) throws -> (Contents, [String]) {
        let directory = TemporaryDirectory()
        try makeV0(in: directory)
        let reports = LockedCalls()
        var configuration = directory.configuration([FusableV1.self, FusableHolderV1.self])
        configuration.schemaVersion = 1
        configuration.fusesMigrationRewritesForTesting = fused
        configuration.migrationProgress = { reports.append("\($0.className) \($0.phase.rawValue) \($0.processed)") }
        nonisolated(unsafe) let around = around
        configuration.migrationBlock = { migration, _ in
            migration.renameProperty(onType: "Fusable", from: "age", to: "years")
            if let around {
                try around(migration)
                return
            }
            try migration.enumerateObjects(ofType: "Fusable") { old, new in try block(migration, old, new) }
        }
        let db = try Database(configuration: configuration)
        #expect(try db.verify().isHealthy)
        let items = db.objects(FusableV1.self).sorted(byKeyPath: "id").map { "\($0.id) \($0.fullName) \($0.years) \(Array($0.tags))" }
        let holders = db.objects(FusableHolderV1.self).sorted(byKeyPath: "id").map { "\($0.id) \($0.item?.id ?? -1) \($0.item?.years ?? -1)" }
        return (Contents(items: items, holders: holders), reports.all)
    }

    /// Expects the two files to hold the same, naming the first difference (not every value).
    private func expectSame(_ fused: Contents, _ slow: Contents, sourceLocation: SourceLocation = #_sourceLocation) {
        let firstItem = zip(fused.items, slow.items).first { $0 != $1 }.map { "fused \($0.0), slow \($0.1)" }
        let firstHolder = zip(fused.holders, slow.holders).first { $0 != $1 }.map { "fused \($0.0), slow \($0.1)" }
        let counts = "\(fused.items.count)/\(slow.items.count) items, \(fused.holders.count)/\(slow.holders.count) holders"
        let same = fused == slow
        #expect(same, "the fused rewrite and its slow twin differ: \(firstItem ?? firstHolder ?? counts)", sourceLocation: sourceLocation)
    }

    /// The usual block: `fullName` from the old object's two properties.
    @Sendable private static func computeFullName(_ old: DynamicObject?, _ new: DynamicObject?) {
        new?["fullName"] = "\(old?["first"] as? String ?? "") \(old?["last"] as? String ?? "")"
    }

    /// The same, and a list set whole. A collection is written back into its row later, through
    /// a lookup of the row, which completes the fused walk at the first object.
    @Sendable private static func computeFullNameAndTags(_ old: DynamicObject?, _ new: DynamicObject?) {
        computeFullName(old, new)
        new?["tags"] = ["t\(new?["id"] as? Int ?? 0)", "v1"]
    }

    @Test func theFusedRewriteLeavesWhatTheSlowTwinLeaves() throws {
        let (fused, fusedReports) = try migrate(fused: true) { _, old, new in Self.computeFullName(old, new) }
        let (slow, slowReports) = try migrate(fused: false) { _, old, new in Self.computeFullName(old, new) }
        expectSame(fused, slow)
        #expect(fused.items.count == Self.count)
        #expect(fused.items[41] == "42 F42 L42 42 [\"t42\"]")
        #expect(fused.holders.first == "100 100 10")
        // The slow twin rewrites every row before the block; the fused walk goes through both
        // at once (and reports both phases).
        #expect(slowReports.firstIndex(of: "Fusable rewriting 2500")! < slowReports.firstIndex(of: "Fusable enumerating 1000")!)
        #expect(fusedReports.firstIndex(of: "Fusable enumerating 1000")! < fusedReports.firstIndex(of: "Fusable rewriting 2000")!)
        #expect(fusedReports.last == "Fusable enumerating 2500")
    }

    @Test func aQueryInTheBlockSeesEveryObject() throws {
        let seen = LockedCalls()
        let (fused, _) = try migrate(fused: true) { _, old, new in
            Self.computeFullName(old, new)
            // The class's table holds every object whenever the block looks.
            if let id = new?["id"] as? Int, id % 500 == 1 {
                let all = new?.database?.dynamicObjects("Fusable")
                seen.append("\(id): \(all?.count ?? -1) \(all?.filter { ($0["years"] as? Int) == 89 }.count ?? -1)")
            }
        }
        let (slow, _) = try migrate(fused: false) { _, old, new in Self.computeFullName(old, new) }
        expectSame(fused, slow)
        // 2,500 objects; 27 of them are 89 (ids 89, 179, …, 2429).
        #expect(seen.all == ["1: 2500 27", "501: 2500 27", "1001: 2500 27", "1501: 2500 27", "2001: 2500 27"])
    }

    @Test func aLinkFollowedInTheBlockReachesObjectsTheWalkHasNotReached() throws {
        let read = LockedCalls()
        let block: @Sendable (Migration, DynamicObject?, DynamicObject?) throws -> Void = { _, old, new in
            Self.computeFullName(old, new)
            guard new?["id"] as? Int == 3 else { return }
            // The holder of object 2,000, found by a query on the holders (not guarded), links to
            // an object the walk has not written yet.
            let holder = new?.database?.dynamicObjects("FusableHolder").filter { ($0["id"] as? Int) == 2_000 }.first
            let item = holder?["item"] as? DynamicObject
            read.append("\(item?["id"] as? Int ?? -1) \(item?["years"] as? Int ?? -1) '\(item?["fullName"] as? String ?? "?")'")
        }
        let (fused, _) = try migrate(fused: true, block)
        let (slow, _) = try migrate(fused: false, block)
        expectSame(fused, slow)
        // Its renamed property holds the old value; the block has not given it a full name yet.
        #expect(read.all == ["2000 20 ''", "2000 20 ''"])
    }

    @Test func createDeleteAndANestedEnumerationInTheBlock() throws {
        let counts = LockedCalls()
        let block: @Sendable (Migration, DynamicObject?, DynamicObject?) throws -> Void = { migration, old, new in
            guard let new, let id = new["id"] as? Int else { return }
            if id % 7 == 0 {
                migration.delete(new)
                return
            }
            Self.computeFullNameAndTags(old, new)
            if id == 10 {
                try migration.create("Fusable", value: ["id": 10_000, "fullName": "made in the block", "years": 1])
            }
            if id == 20 {
                var seen = 0
                try migration.enumerateObjects(ofType: "Fusable") { _, inner in if inner != nil { seen += 1 } }
                counts.append("\(seen)")
            }
        }
        let (fused, _) = try migrate(fused: true, block)
        let (slow, _) = try migrate(fused: false, block)
        expectSame(fused, slow)
        // 2,500 less the 357 multiples of 7, plus the one made in the block.
        #expect(fused.items.count == 2_500 - 357 + 1)
        #expect(fused.items.last == "10000 made in the block 1 []")
        let hasEleven = fused.items.contains("11 F11 L11 11 [\"t11\", \"v1\"]")
        let hasFourteen = fused.items.contains { $0.hasPrefix("14 ") }
        #expect(hasEleven && !hasFourteen)
        // The nested enumeration, at object 20, saw the 2,500 old objects less the two deleted
        // before it (7 and 14), both times.
        #expect(counts.all == ["2498", "2498"])
        // Holders of deleted objects (700, 1400, 2100) link to nothing now.
        let orphanHolder = fused.holders.contains("700 -1 -1")
        #expect(orphanHolder)
    }

    /// Inserts and upserts through the database in the middle of the walk (they build their
    /// row before the insert cursor that completes the walk is opened): found by review, the
    /// completion wrote its rows through the same row builder, so the object made was a copy of
    /// the class's last row, or the program stopped on a size mismatch.
    @Test func objectsAddedThroughTheDatabaseInTheBlock() throws {
        let block: @Sendable (Migration, DynamicObject?, DynamicObject?) throws -> Void = { _, old, new in
            Self.computeFullName(old, new)
            guard let id = new?["id"] as? Int, let database = new?.database else { return }
            if id == 101 {
                _ = try database.createDynamicObject("Fusable", value: ["id": 20_000, "fullName": "created in the block", "years": 7])
            }
            if id == 102 {
                let added = FusableV1()
                added.id = 20_001
                added.fullName = "added, a name of another length"
                added.years = 8
                try database.add(added)
            }
            if id == 103 {
                // An upsert of an object the walk has not reached.
                _ = try database.createDynamicObject("Fusable", value: ["id": 2_400, "fullName": "upserted", "years": 9], update: .modified)
            }
        }
        let (fused, _) = try migrate(fused: true, block)
        let (slow, _) = try migrate(fused: false, block)
        expectSame(fused, slow)
        #expect(fused.items.suffix(2) == ["20000 created in the block 7 []", "20001 added, a name of another length 8 []"])
        // The block reached 2,400 after the upsert and gave it its full name again.
        #expect(fused.items[2_399] == "2400 F2400 L2400 9 [\"t2400\"]")
    }

    @Test func aThrowCaughtByTheMigrationBlockStillLeavesEveryObject() throws {
        struct Stop: Error {}
        let around: (Migration) throws -> Void = { migration in
            do {
                try migration.enumerateObjects(ofType: "Fusable") { old, new in
                    if new?["id"] as? Int == 1_200 { throw Stop() }
                    Self.computeFullNameAndTags(old, new)
                }
            } catch is Stop {
                // The block gives up half-way; the migration goes on.
            }
        }
        let (fused, _) = try migrate(fused: true, around: around) { _, _, _ in }
        let (slow, _) = try migrate(fused: false, around: around) { _, _, _ in }
        expectSame(fused, slow)
        #expect(fused.items.count == Self.count)
        #expect(fused.items[1_198] == "1199 F1199 L1199 29 [\"t1199\", \"v1\"]")
        #expect(fused.items[1_199] == "1200  30 [\"t1200\"]")
        #expect(fused.items[2_499] == "2500  70 [\"t2500\"]")
    }

    @Test func aClassWithAnIndexIsNotFused() throws {
        // Contact (MigrationTests) has indexes: its rows are all rewritten before the block.
        let change = MigrationRun.Rewrite(
            old: StoredClass(id: 1, name: "C", nextPropertyID: 1, properties: []), new: StoredClass(id: 1, name: "C", nextPropertyID: 1, properties: []), sources: [])
        let directory = TemporaryDirectory()
        let db = try Database(configuration: directory.configuration([ContactV1.self, FusableV1.self]))
        let contact = try #require(db.classInfo(named: "Contact"))
        let fusable = try #require(db.classInfo(named: "Fusable"))
        #expect(!FusedRewrite.canFuse(change, contact))
        #expect(FusedRewrite.canFuse(change, fusable) == FastPaths.enabled.contains(.fusedMigrations))
        var rowsKept = change
        rowsKept.rewritesRows = false
        #expect(!FusedRewrite.canFuse(rowsKept, fusable))
    }
}
