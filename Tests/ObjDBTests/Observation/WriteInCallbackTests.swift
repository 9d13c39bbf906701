import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// A callback that writes: the write's commit notifies in the middle of the round that called
/// the callback. Every observer must still see a consistent sequence: each update, applied to
/// what the observer had, gives the results it is handed, and no commit is lost or told twice.
@Suite(.serialized)
struct WriteInCallbackTests {
    let directory = TemporaryDirectory()

    /// The names an observer believes the results hold, kept by applying each update.
    final class Mirror {
        var names: [String] = []
        var consistent = true
        var calls = 0

        func apply(_ change: CollectionChange<Results<Person>>) {
            calls += 1
            switch change {
            case .initial(let people): names = people.map(\.name)
            case .update(let people, let deletions, let insertions, _):
                for index in deletions.sorted(by: >) where index < names.count { names.remove(at: index) }
                let now = people.map(\.name)
                for index in insertions.sorted() where index <= names.count && index < now.count { names.insert(now[index], at: index) }
                if names != now { consistent = false }
                names = now
            case .error: consistent = false
            }
        }
    }

    /// Sorted, and filtered in key order: both are updated from a change set, which must not be
    /// applied to the version a callback's write made.
    @Test(arguments: [true, false])
    func aCallbackThatWritesKeepsEveryObserverConsistent(sorted: Bool) throws {
        let db = try directory.open([Person.self], name: "sorted-\(sorted).objdb")
        try db.write { for i in 0..<3 { try db.add(person(i, "p\(i)", age: i)) } }
        let results = sorted ? db.objects(Person.self).sorted(by: \.age) : try db.objects(Person.self).filter("age >= -1")
        let first = Mirror(), second = Mirror(), third = Mirror()
        var wrote = false
        let tokens = [
            results.observe { change in
                first.apply(change)
                // On the first update, write from inside the round.
                if case .update = change, !wrote {
                    wrote = true
                    try? db.write { try db.add(person(100, "inner", age: -1)) }  // try?: checked below
                }
            },
            results.observe { second.apply($0) },
            results.observe { third.apply($0) },
        ]
        db.refresh()
        let writer = try directory.open([Person.self], name: "sorted-\(sorted).objdb")
        try writer.write { try writer.add(person(50, "outer", age: 50)) }
        db.refresh()
        #expect(wrote)
        #expect(db.objects(Person.self).count == 5)
        let expected = sorted ? ["inner", "p0", "p1", "p2", "outer"] : ["p0", "p1", "p2", "outer", "inner"]
        for mirror in [first, second, third] {
            #expect(mirror.consistent)
            #expect(mirror.names == expected)
        }
        // Both commits reached every observer: initial, then one or two updates (a round may
        // tell both commits at once).
        for mirror in [second, third] { #expect(mirror.calls >= 2 && mirror.calls <= 3, "\(mirror.calls)") }
        withExtendedLifetime(tokens) {}
    }

    /// A callback inserts an object and a later one in the same round deletes it: the observer
    /// between them read the version with the object, which the next round's changes (the
    /// insertion and deletion cancel out) no longer mention. It must still be told of the
    /// deletion: an observer whose keys are newer than what the changes start from is evaluated
    /// again. Sorted and filtered results, both updated from change sets otherwise.
    @Test(arguments: [true, false])
    func anObjectInsertedAndDeletedByCallbacksOfOneRoundLeavesEveryObserver(sorted: Bool) throws {
        let name = "cancel-\(sorted).objdb"
        let db = try directory.open([Person.self], name: name)
        try db.write { for i in 0..<3 { try db.add(person(i, "p\(i)", age: i)) } }
        let results = sorted ? db.objects(Person.self).sorted(by: \.age) : try db.objects(Person.self).filter("age >= -1")
        let first = Mirror(), second = Mirror(), third = Mirror()
        var inserted = false, deleted = false
        let tokens = [
            results.observe { change in
                first.apply(change)
                if case .update = change, !inserted {
                    inserted = true
                    try? db.write { try db.add(person(100, "transient", age: -1)) }  // try?: checked below
                }
            },
            results.observe { second.apply($0) },
            results.observe { change in
                third.apply(change)
                if case .update = change, inserted, !deleted {
                    deleted = true
                    try? db.write {  // try?: checked below
                        if let transient = db.object(ofType: Person.self, forPrimaryKey: 100) { db.delete(transient) }
                    }
                }
            },
        ]
        db.refresh()
        let writer = try directory.open([Person.self], name: name)
        try writer.write { try writer.add(person(50, "outer", age: 50)) }
        db.refresh()
        #expect(inserted && deleted)
        #expect(db.object(ofType: Person.self, forPrimaryKey: 100) == nil)
        for mirror in [first, second, third] {
            #expect(mirror.consistent)
            #expect(mirror.names == ["p0", "p1", "p2", "outer"])
        }
        withExtendedLifetime(tokens) {}
    }

    /// The same when the round is the synchronous one of this instance's own commit.
    @Test func aCallbackThatWritesDuringTheOwnCommitsRoundKeepsEveryObserverConsistent() throws {
        let db = try directory.open([Person.self])
        try db.write { for i in 0..<3 { try db.add(person(i, "p\(i)", age: i)) } }
        let results = db.objects(Person.self).sorted(by: \.age)
        let first = Mirror(), second = Mirror()
        var writes = 0
        let tokens = [
            results.observe { change in
                first.apply(change)
                if case .update = change, writes < 2 {
                    writes += 1
                    try? db.write { try db.add(person(100 + writes, "inner\(writes)", age: -writes)) }  // try?: checked below
                }
            },
            results.observe { second.apply($0) },
        ]
        db.refresh()
        try db.write { try db.add(person(50, "outer", age: 50)) }
        db.refresh()
        #expect(writes == 2)
        let expected = ["inner2", "inner1", "p0", "p1", "p2", "outer"]
        #expect(db.objects(Person.self).sorted(by: \.age).map(\.name) == expected)
        for mirror in [first, second] {
            #expect(mirror.consistent)
            #expect(mirror.names == expected)
        }
        withExtendedLifetime(tokens) {}
    }
}
