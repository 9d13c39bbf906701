import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// `Map.observe`, as realm-swift's `MapTests` (`testObserve`, `testObserveKeyPath`) observe
/// dictionaries, with positions in the map's key order.
@Suite(.serialized)
struct MapNotificationTests {
    let directory = TemporaryDirectory()

    enum Call: Equatable {
        case initial([String])
        case update(deletions: [Int], insertions: [Int], modifications: [Int])
        case error
    }

    final class Recorder {
        var calls: [Call] = []
        func record<K, V>(_ change: CollectionChange<Map<K, V>>) {
            switch change {
            case .initial(let map): calls.append(.initial(map.map { "\($0.key)" }))
            case .update(_, let deletions, let insertions, let modifications):
                calls.append(.update(deletions: deletions, insertions: insertions, modifications: modifications))
            case .error: calls.append(.error)
            }
        }
    }

    func open() throws -> (Database, Owner) {
        let db = try directory.open([Owner.self, Pet.self, Address.self, Location.self])
        let ann = owner(1, "Ann")
        ann.scores["b"] = 2
        ann.scores["d"] = 4
        ann.petsByName["rex"] = pet(1, "Rex")
        try db.write { try db.add(ann) }
        return (db, ann)
    }

    /// Realm's dictionary_set: in a commit that writes the map, a key set again is a modification
    /// of its position, even to the value it had. A commit that leaves the map's contents as
    /// they were calls nothing (nothing the observer sees changed).
    @Test func aKeySetAgainIsAModificationAsInRealm() throws {
        let (db, ann) = try open()
        let recorder = Recorder()
        let token = ann.scores.observe { recorder.record($0) }
        db.refresh()
        try db.write { ann.scores["d"] = 4 }
        try db.write {
            ann.scores["b"] = nil
            ann.scores["b"] = 2
        }
        #expect(recorder.calls == [.initial(["b", "d"])])
        let other = try directory.open([Owner.self, Pet.self, Address.self, Location.self])
        try other.write {
            let theirs = other.object(ofType: Owner.self, forPrimaryKey: 1)
            theirs?.scores["b"] = 2
            theirs?.scores["c"] = 3
        }
        db.refresh()
        #expect(recorder.calls.last == .update(deletions: [], insertions: [1], modifications: [0]))
        #expect(recorder.calls.count == 2)
        // Back to its value, but read back from the row in between (a query): the edits made are
        // reported.
        try db.write {
            ann.scores["b"] = 5
            let owners = try db.objects(Owner.self).filter("name == 'Ann'").count
            #expect(owners == 1)
            ann.scores["b"] = 2
        }
        #expect(recorder.calls.last == .update(deletions: [], insertions: [], modifications: [0]))
        #expect(recorder.calls.count == 3)
        withExtendedLifetime(token) {}
    }

    @Test func insertionsDeletionsAndModificationsByPosition() throws {
        let (db, ann) = try open()
        let recorder = Recorder()
        let token = ann.scores.observe { recorder.record($0) }
        db.refresh()
        #expect(recorder.calls == [.initial(["b", "d"])])
        try db.write {
            ann.scores["a"] = 1       // new position 0
            ann.scores["d"] = 40      // old position 1
            ann.scores["b"] = nil     // old position 0
            ann.scores["e"] = 5       // new position 2
        }
        #expect(recorder.calls.last == .update(deletions: [0], insertions: [0, 2], modifications: [1]))
        #expect(ann.scores.keys == ["a", "d", "e"])
        // A commit that does not touch the map calls nothing.
        try db.write { ann.name = "Annie" }
        #expect(recorder.calls.count == 2)
        // Another instance's commit arrives at refresh().
        let other = try directory.open([Owner.self, Pet.self, Address.self, Location.self])
        try other.write { other.object(ofType: Owner.self, forPrimaryKey: 1)?.scores["e"] = 50 }
        db.refresh()
        #expect(recorder.calls.last == .update(deletions: [], insertions: [], modifications: [2]))
        withExtendedLifetime(token) {}
    }

    @Test func aLinkedObjectChangeIsAModificationWhenWatched() throws {
        let (db, ann) = try open()
        let recorder = Recorder()
        let token = ann.petsByName.observe(keyPaths: ["name"]) { recorder.record($0) }
        db.refresh()
        let rex = try #require(db.object(ofType: Pet.self, forPrimaryKey: 1))
        try db.write { rex.owner = ann }  // not watched
        #expect(recorder.calls == [.initial(["rex"])])
        try db.write { rex.name = "Rexy" }
        #expect(recorder.calls.last == .update(deletions: [], insertions: [], modifications: [0]))
        withExtendedLifetime(token) {}
    }

    @Test func deletingTheOwnerDeletesEveryEntry() throws {
        let (db, ann) = try open()
        let recorder = Recorder()
        let token = ann.scores.observe { recorder.record($0) }
        db.refresh()
        try db.write { db.delete(ann) }
        #expect(recorder.calls.last == .update(deletions: [0, 1], insertions: [], modifications: []))
        try db.write { try db.add(owner(2, "Bob")) }
        #expect(recorder.calls.count == 2)
        withExtendedLifetime(token) {}
    }
}

extension MapNotificationTests {
    /// Observing on a queue: the map arrives on the queue, from an instance confined there.
    @Test func observingOnAQueue() throws {
        let (db, ann) = try open()
        let queue = DispatchQueue(label: "map observer")
        let calls = LockedCalls()
        let token = ann.petsByName.observe(on: queue) { change in
            switch change {
            case .initial(let map): calls.append("initial \(map.keys)")
            case .update(let map, let deletions, let insertions, _): calls.append("update \(map.keys) -\(deletions) +\(insertions)")
            case .error(let error): calls.append("error \(error)")
            }
        }
        try calls.wait(for: 1)  // the initial call: a commit before it would be part of it
        try db.write { ann.petsByName["tom"] = pet(2, "Tom") }
        try calls.wait(for: 2)
        #expect(calls.all == ["initial [\"rex\"]", "update [\"rex\", \"tom\"] -[] +[1]"])
        token.invalidate()
    }
}

/// Calls recorded on another queue.
final class LockedCalls: @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [String] = []
    private let arrived = DispatchSemaphore(value: 0)

    func append(_ call: String) {
        lock.withLock { calls.append(call) }
        arrived.signal()
    }

    var all: [String] { lock.withLock { calls } }

    /// Waits until `count` calls arrived (at most 5 s).
    func wait(for count: Int) throws {
        while all.count < count {
            guard arrived.wait(timeout: .now() + 5) == .success else { throw CancellationError() }
        }
    }
}
