import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Reads that cannot throw (`count`, iteration, lookups, linking objects) report storage
/// failures through `Configuration.readFailureHandler` instead of passing off an empty result.
/// The failures are injected (builds with internal checks only): reads of one table fail as
/// LMDB fails on a damaged page (`MDB_CORRUPTED`).
@Suite(.serialized)
struct ReadFailureChannelTests {
    let directory = TemporaryDirectory()

    func open(_ failures: FailureBox) throws -> Database {
        var config = directory.configuration([Person.self, Owner.self])
        config.readFailureHandler = { failures.append($0) }
        let db = try Database(configuration: config)
        try db.write {
            for i in 1...50 { try db.add(person(i, "name \(i)", age: i)) }
            let owner = Owner()
            owner.id = 1
            let pet = Pet()
            pet.id = 1
            owner.pets.append(pet)
            try db.add(owner)
        }
        return db
    }

    /// Makes reads of `type`'s objects table fail, in a new snapshot.
    func failReads(of type: ObjectBase.Type, in db: Database) throws {
        let info = try #require(try db.classInfo(for: type))
        db.environment.failingReadsForTesting = info.objectsTable
        db.generation &+= 1
        db.snapshot = nil
    }

    @Test func aQueryThatCannotReadItsTableReportsInsteadOfCountingZero() throws {
        let failures = FailureBox()
        let db = try open(failures)
        defer { db.environment.failingReadsForTesting = nil }
        #expect(try db.objects(Person.self).filter("age > 10").count == 40)
        try failReads(of: Person.self, in: db)
        let count = try db.objects(Person.self).filter("age > 10").count
        #expect(count == 0)
        #expect(failures.errors.contains { $0.code == .corruptFile && $0.message.contains("Scanning the objects of 'Person'") }, "\(failures.errors)")
    }

    @Test func iterationAndLookupsReportTheFailure() throws {
        let failures = FailureBox()
        let db = try open(failures)
        defer { db.environment.failingReadsForTesting = nil }
        try failReads(of: Person.self, in: db)
        // A loop, not Array(_:): a collection whose iteration ends before its count traps in the
        // standard library's copy (Docs/Reliability.md).
        var iterated = 0
        for _ in db.objects(Person.self) { iterated += 1 }
        #expect(iterated == 0)
        #expect(failures.errors.contains { $0.message.contains("Iterating over results") })
        failures.removeAll()
        #expect(db.objects(Person.self).first == nil)
        #expect(failures.errors.contains { $0.message.contains("first object of 'Person'") })
        failures.removeAll()
        // The primary-key table still finds the object; its row cannot be read: the object reads
        // as defaults, and the failure is reported.
        let third = db.object(ofType: Person.self, forPrimaryKey: 3)
        #expect(third?.name == "")
        #expect(failures.errors.contains { $0.code == .corruptFile && $0.message.contains("Reading the row of 'Person'") }, "\(failures.errors)")
    }

    @Test func followingALinkThatCannotBeReadIsReported() throws {
        let failures = FailureBox()
        let db = try open(failures)
        defer { db.environment.failingReadsForTesting = nil }
        #expect(try db.objects(Owner.self).filter("ANY pets.id == 1").count == 1)
        try failReads(of: Pet.self, in: db)
        #expect(try db.objects(Owner.self).filter("ANY pets.id == 1").count == 0)
        #expect(failures.errors.contains { $0.code == .corruptFile }, "\(failures.errors)")
    }
}
