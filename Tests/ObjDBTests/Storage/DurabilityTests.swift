import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Each durability mode opens the environment with LMDB's flags for it.
struct DurabilityTests {
    let directory = TemporaryDirectory()

    func open(_ durability: Durability) throws -> Database {
        var config = directory.configuration([Person.self])
        config.durability = durability
        return try Database(configuration: config)
    }

    @Test func fullFlushesPagesAndMetaPage() throws {
        // The database must outlive the flags' read: its last instance closes the environment.
        let db = try open(.full)
        let flags = db.environment.flags
        #expect(!flags.contains(.noSync) && !flags.contains(.noMetaSync))
        #expect(flags.contains(.noSubdirectory))
        withExtendedLifetime(db) {}
    }

    @Test func normalSkipsOnlyTheMetaPageFlush() throws {
        let db = try open(.normal)
        defer { withExtendedLifetime(db) {} }
        #expect(db.environment.flags.contains(.noMetaSync))
        #expect(!db.environment.flags.contains(.noSync))
        try db.write { try db.add(person(1, "Ann")) }
        #expect(db.objects(Person.self).count == 1)
    }

    @Test func noSyncFlushesNothing() throws {
        let db = try open(.noSync)
        let flags = db.environment.flags
        #expect(flags.contains(.noSync) && flags.contains(.noMetaSync))
        withExtendedLifetime(db) {}
    }

    @Test func theDefaultIsFull() {
        #expect(Configuration().durability == .full)
    }

    @Test func normalAndFullCannotShareAFileInOneProcess() throws {
        let normal = try open(.normal)
        let error = try #require(throws: ObjDBError.self) { try open(.full) }
        #expect(error.code == .incompatibleConfiguration)
        #expect(error.message.contains("already open in this process with durability .normal, not .full"))
        _ = normal
    }

    @Test func aCommitUnderNormalIsReadByAnotherProcess() throws {
        let db = try open(.normal)
        try db.write { try db.add((1...3).map { person($0, "P\($0)") }) }
        let counted = try HelperProcess.run(["count", directory.file().path])
        #expect(counted.status == 0, "\(counted.error)")
        #expect(counted.output.trimmingCharacters(in: .whitespacesAndNewlines) == "3")
    }
}
