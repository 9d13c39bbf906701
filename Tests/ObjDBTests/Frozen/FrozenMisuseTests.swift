import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// Misusing frozen things stops the process with a message naming what was wrong, as Realm
/// throws for them (realm-swift `ObjectTests` `testModifyFrozenObject`, `testObserveFrozenObject`,
/// `testFreezeUnmanagedObject`; `RealmTests` `testFrozenRealmCannotWrite`;
/// `ThreadSafeReferenceTests` `testInvalidThreadSafeReferenceConstruction`).
struct FrozenMisuseTests {
    @Test func settingAPropertyOfAFrozenObjectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            let ann = person(1, "Ann")
            try db.write { try db.add(ann) }
            let frozen = ann.freeze()
            try db.write { frozen.name = "Changed" }
        }
        #expect(standardError(result).contains("ObjDB: Cannot modify 'Person.name' of a frozen object"))
    }

    @Test func changingAListOfAFrozenObjectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open([Owner.self, Pet.self, Address.self, Location.self])
            let ann = owner(1, "Ann")
            try db.write { try db.add(ann) }
            ann.freeze().tags.append("x")
        }
        #expect(standardError(result).contains("ObjDB: Cannot modify 'Owner.tags' of a frozen object"))
    }

    @Test func writingToAFrozenDatabaseTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            try db.freeze().write {}
        }
        #expect(standardError(result).contains("ObjDB: A write transaction was begun on a frozen Database"))
    }

    @Test func observingFrozenResultsTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            let token = db.freeze().objects(Person.self).observe { _ in }
            withExtendedLifetime(token) {}
        }
        #expect(standardError(result).contains("ObjDB: observe was called on a frozen database, object or collection"))
    }

    @Test func freezingAnUnmanagedObjectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = person(1, "Ann").freeze()
        }
        #expect(standardError(result).contains("ObjDB: freeze() was called on an unmanaged Person"))
    }

    @Test func freezingInsideAWriteTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try directory.open()
            try db.write { _ = db.objects(Person.self).freeze() }
        }
        #expect(standardError(result).contains("ObjDB: freeze() was called inside a write transaction"))
    }

    @Test func referencingAnUnmanagedObjectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ThreadSafeReference(to: person(1, "Ann"))
        }
        #expect(standardError(result).contains("ObjDB: ThreadSafeReference(to:) was given an unmanaged Person"))
    }
}
