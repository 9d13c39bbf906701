import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Object and database notifications. Cases follow realm-swift's `RealmSwift/Tests/ObjectTests.swift`
/// (`testModifyObservedObjectLocally`, `…Remotely`, `testDeleteObservedObject`) and
/// `Realm/Tests/NotificationTests.m` (key-path filtering).
@Suite(.serialized)
struct ObjectNotificationTests {
    let directory = TemporaryDirectory()

    /// What an object observer was told.
    enum Call: Equatable {
        case change([String])
        case deleted
        case error
    }

    final class Recorder {
        var calls: [Call] = []
        var properties: [[PropertyChange]] = []

        func record<T>(_ change: ObjectChange<T>) {
            switch change {
            case .change(_, let changes):
                calls.append(.change(changes.map(\.name)))
                properties.append(changes)
            case .deleted: calls.append(.deleted)
            case .error: calls.append(.error)
            }
        }
    }

    func setUp() throws -> (db: Database, writer: Database, ann: Person) {
        let db = try directory.open([Person.self])
        try db.write { try db.add([person(1, "Ann", age: 1), person(2, "Bob", age: 2)]) }
        let writer = try directory.open([Person.self])
        return (db, writer, try #require(db.object(ofType: Person.self, forPrimaryKey: 1)))
    }

    // ObjectTests testModifyObservedObjectLocally: no old value for this instance's own write.
    @Test func aLocalChangeHasNoOldValue() throws {
        let (db, _, ann) = try setUp()
        let recorder = Recorder()
        let token = ann.observe { recorder.record($0) }
        #expect(recorder.calls.isEmpty)  // no initial call for objects
        try db.write { ann.age = 2 }
        #expect(recorder.calls == [.change(["age"])])
        let change = try #require(recorder.properties.first?.first)
        #expect(change.oldValue == nil)
        #expect(change.newValue as? Int == 2)
        withExtendedLifetime(token) {}
    }

    // ObjectTests testModifyObservedObjectRemotely: another instance's write carries the old value.
    @Test func aRemoteChangeHasItsOldValue() throws {
        let (db, writer, ann) = try setUp()
        let recorder = Recorder()
        let token = ann.observe { recorder.record($0) }
        try writer.write { writer.object(ofType: Person.self, forPrimaryKey: 1)?.age = 2 }
        #expect(recorder.calls.isEmpty)
        db.refresh()
        #expect(recorder.calls == [.change(["age"])])
        let change = try #require(recorder.properties.first?.first)
        #expect(change.oldValue as? Int == 1)
        #expect(change.newValue as? Int == 2)
        // Optional to nil and back (ObjectTests testOptionalPropertyNotifications).
        try writer.write { writer.object(ofType: Person.self, forPrimaryKey: 1)?.age = nil }
        db.refresh()
        #expect(recorder.properties.last?.first?.oldValue as? Int == 2)
        #expect(recorder.properties.last?.first?.newValue == nil)
        withExtendedLifetime(token) {}
    }

    @Test func severalPropertiesInDeclarationOrder() throws {
        let (db, writer, ann) = try setUp()
        let recorder = Recorder()
        let token = ann.observe { recorder.record($0) }
        try writer.write {
            let remote = writer.object(ofType: Person.self, forPrimaryKey: 1)
            remote?.kind = .vip
            remote?.name = "Anna"
        }
        db.refresh()
        #expect(recorder.calls == [.change(["name", "kind"])])
        #expect(recorder.properties.first?.first?.oldValue as? String == "Ann")
        withExtendedLifetime(token) {}
    }

    // ObjectTests testDeleteObservedObject: `.deleted`, then nothing more.
    @Test func deletionIsTheLastCall() throws {
        let (db, writer, ann) = try setUp()
        let recorder = Recorder()
        let token = ann.observe(keyPaths: [\.name]) { recorder.record($0) }
        try writer.write { if let remote = writer.object(ofType: Person.self, forPrimaryKey: 1) { writer.delete(remote) } }
        db.refresh()
        #expect(recorder.calls == [.deleted])
        try writer.write { try writer.add(person(9, "other")) }
        db.refresh()
        #expect(recorder.calls == [.deleted])
        withExtendedLifetime(token) {}
    }

    // NotificationTests.m testModifyUnobservedKeyPathLocally / ObjectTests key-path filtering.
    @Test func keyPathsLimitTheCalls() throws {
        let (db, _, ann) = try setUp()
        let recorder = Recorder()
        let token = ann.observe(keyPaths: [\.name]) { recorder.record($0) }
        try db.write { ann.age = 30 }
        #expect(recorder.calls.isEmpty)
        try db.write { ann.name = "Anne" }
        #expect(recorder.calls == [.change(["name"])])
        // A write to another object calls nothing.
        try db.write { db.object(ofType: Person.self, forPrimaryKey: 2)?.name = "Rob" }
        #expect(recorder.calls.count == 1)
        withExtendedLifetime(token) {}
    }

    @Test func changesThroughLinksCountWithoutKeyPaths() throws {
        let db = try directory.open([Owner.self, Pet.self])
        try db.write {
            let owner = Owner()
            owner.id = 1
            let pet = Pet()
            pet.id = 10
            owner.pets.append(pet)
            try db.add(owner)
        }
        let owner = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        let all = Recorder()
        let name = Recorder()
        let tokens = [owner.observe { all.record($0) }, owner.observe(keyPaths: [\.name]) { name.record($0) }]
        try db.write { db.object(ofType: Pet.self, forPrimaryKey: 10)?.name = "Rex" }
        #expect(all.calls == [.change(["pets"])])
        #expect(name.calls.isEmpty)
        try db.write { owner.tags.append("a") }
        #expect(all.calls.last == .change(["tags"]))
        #expect(all.properties.last?.first?.oldValue == nil)  // collections give no values
        withExtendedLifetime(tokens) {}
    }

    @Test func databaseObserversHearOfEveryNewVersion() throws {
        let (db, writer, _) = try setUp()
        var notifications: [Database.Notification] = []
        let token = db.observe { notification, _ in notifications.append(notification) }
        try db.write { try db.add(person(3, "Cy")) }
        #expect(notifications == [.didChange])
        try writer.write { try writer.add(person(4, "Di")) }
        db.refresh()
        #expect(notifications == [.didChange, .didChange])
        // No new version: nothing.
        db.refresh()
        try db.write {}
        #expect(notifications.count == 2)
        token.invalidate()
        try db.write { try db.add(person(5, "Ed")) }
        #expect(notifications.count == 2)
    }
}
