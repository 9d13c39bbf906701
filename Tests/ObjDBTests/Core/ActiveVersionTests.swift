import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// `activeVersionCount` and `Configuration.maximumNumberOfActiveVersions`. The limit case follows
/// realm-swift's `Realm/Tests/RealmTests.mm` `testActiveVersionLimit` (with writes that change
/// something: an empty write makes no version here).
@Suite(.serialized)
struct ActiveVersionTests {
    let directory = TemporaryDirectory()

    func write(_ db: Database, _ id: Int) throws {
        try db.write { try db.add(person(id, "P\(id)")) }
    }

    @Test func countsTheVersionsFromTheOldestPinnedOne() throws {
        let db = try directory.open([Person.self])
        try write(db, 1)
        _ = db.objects(Person.self).count
        #expect(db.activeVersionCount == 1)
        var frozen: FrozenResults<Person>? = db.objects(Person.self).freeze()
        try write(db, 2)
        try write(db, 3)
        _ = db.objects(Person.self).count
        #expect(db.activeVersionCount == 3)
        #expect(frozen?.count == 1)
        frozen = nil
        #expect(db.activeVersionCount == 1)
        // A live instance that has not refreshed pins its version too.
        let idle = try directory.open([Person.self])
        _ = idle.objects(Person.self).count
        try write(db, 4)
        #expect(db.activeVersionCount == 2)
        idle.refresh()
        #expect(db.activeVersionCount == 1)
    }

    // testActiveVersionLimit: with a version pinned, three writes work and the fourth throws.
    @Test func aWriteBeyondTheLimitThrowsNamingTheSetting() throws {
        var configuration = directory.configuration([Person.self])
        configuration.maximumNumberOfActiveVersions = 3
        let db = try Database(configuration: configuration)
        try write(db, 1)
        let pinned = db.freeze()
        try write(db, 2)
        try write(db, 3)
        try write(db, 4)
        let error = try #require(throws: ObjDBError.self) { try write(db, 5) }
        #expect(error.code == .tooManyActiveVersions)
        #expect(error.message.contains("Configuration.maximumNumberOfActiveVersions (3)"))
        #expect(db.objects(Person.self).count == 4)  // the refused write kept nothing
        #expect(pinned.objects(Person.self).count == 1)
        withExtendedLifetime(pinned) {}
    }

    @Test func releasingTheFrozenVersionLetsWritesGoOn() throws {
        var configuration = directory.configuration([Person.self])
        configuration.maximumNumberOfActiveVersions = 2
        let db = try Database(configuration: configuration)
        try write(db, 1)
        var pinned: Person? = try #require(db.object(ofType: Person.self, forPrimaryKey: 1)).freeze()
        try write(db, 2)
        try write(db, 3)
        #expect(throws: ObjDBError.self) { try write(db, 4) }
        #expect(pinned?.name == "P1")
        pinned = nil
        try write(db, 4)
        #expect(db.objects(Person.self).count == 4)
    }

    @Test func zeroIsRefused() throws {
        var configuration = directory.configuration([Person.self])
        configuration.maximumNumberOfActiveVersions = 0
        let error = try #require(throws: ObjDBError.self) { try Database(configuration: configuration) }
        #expect(error.code == .incompatibleConfiguration)
        #expect(error.message.contains("maximumNumberOfActiveVersions"))
    }
}
