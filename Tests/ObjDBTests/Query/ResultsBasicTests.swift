import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

struct ResultsBasicTests {
    let directory = TemporaryDirectory()

    @Test func emptyResults() throws {
        let db = try directory.open()
        let people = db.objects(Person.self)
        #expect(people.isEmpty && people.count == 0)
        #expect(people.first == nil && people.last == nil)
        #expect(Array(people).isEmpty)
        #expect(people.description == "Results<Person> (0 objects)")
    }

    @Test func collectionAccess() throws {
        let db = try directory.open()
        try db.write { try db.add([3, 1, 2].map { person($0, "P\($0)") }) }
        let people = db.objects(Person.self)
        #expect(people.count == 3)
        #expect(people.map(\.id) == [3, 1, 2])        // insertion (object key) order
        #expect(people[0].id == 3 && people[2].id == 2)
        #expect(people.first?.id == 3 && people.last?.id == 2)
        let two = try #require(db.object(ofType: Person.self, forPrimaryKey: 2))
        #expect(people.index(of: two) == 2)
        #expect(people.index(of: person(9, "unmanaged")) == nil)
        #expect(Array(people.reversed()).map(\.id) == [2, 1, 3])
        #expect(people.indices == 0..<3)
    }

    @Test func resultsAreLive() throws {
        let db = try directory.open()
        let people = db.objects(Person.self)
        #expect(people.count == 0)
        try db.write {
            try db.add(person(1, "Ann"))
            #expect(people.count == 1)                 // sees uncommitted changes of its own write
            #expect(people[0].name == "Ann")
        }
        try db.write { try db.add(person(2, "Bob")) }
        #expect(people.map(\.name) == ["Ann", "Bob"])
        try db.write { db.delete(people[0]) }
        #expect(people.map(\.name) == ["Bob"])
    }

    @Test func iterationSurvivesWritesInTheLoopBody() throws {
        let db = try directory.open()
        try db.write { try db.add((1...100).map { person($0, "P\($0)", age: $0) }) }
        var seen: [Int] = []
        try db.write {
            for p in db.objects(Person.self) {
                seen.append(p.id)
                p.age = (p.age ?? 0) * 2
                if p.id % 10 == 0 { db.delete(p) }
            }
        }
        #expect(seen == Array(1...100))
        #expect(db.objects(Person.self).count == 90)
        #expect(db.objects(Person.self).allSatisfy { ($0.age ?? 0) == $0.id * 2 })
    }

    /// Loops that finish or stop early give their cursors back; a loop still running keeps its own.
    @Test func loopsInOneWriteDoNotGatherCursors() throws {
        let db = try directory.open()
        try db.write { try db.add((1...20).map { person($0, "P\($0)", age: $0) }) }
        var outerSeen = 0
        var innerSeen = 0
        try db.write {
            let context = try db.requireWrite("test")
            for outer in db.objects(Person.self) {
                outerSeen += 1
                for inner in db.objects(Person.self) {      // finishes
                    innerSeen += 1
                    inner.age = (inner.age ?? 0) + 1
                }
                for _ in db.objects(Person.self) { break }  // stops early
                outer.name = "Seen \(outer.id)"
                // The outer loop's cursor and the last inner one (not yet pruned) at most.
                #expect(context.transaction.iteratorWalks.count <= 2)
            }
        }
        #expect(outerSeen == 20)
        #expect(innerSeen == 400)
        #expect(db.objects(Person.self).map(\.name) == (1...20).map { "Seen \($0)" })
        #expect(db.objects(Person.self).map { $0.age ?? 0 } == (1...20).map { $0 + 20 })
    }

    @Test func iterationContinuesInTheNewVersionAfterRefresh() throws {
        let db = try directory.open()
        let other = try directory.open()
        try db.write { try db.add((1...10).map { person($0, "P\($0)") }) }
        var seen: [Int] = []
        for p in db.objects(Person.self) {
            seen.append(p.id)
            if p.id == 3 {
                try other.write {
                    other.delete(try #require(other.object(ofType: Person.self, forPrimaryKey: 4)))
                    try other.add(person(11, "P11"))
                }
                db.refresh()
            }
        }
        #expect(seen == [1, 2, 3, 5, 6, 7, 8, 9, 10, 11])
    }

    @Test func iteratingKeepsNoObjects() throws {
        let db = try directory.open([Note.self])
        try db.write {
            for _ in 0..<20_000 { try db.add(Note()) }
        }
        weak var firstSeen: Note?
        var count = 0
        for note in db.objects(Note.self) {
            if count == 0 { firstSeen = note }
            count += 1
        }
        #expect(count == 20_000)
        #expect(firstSeen == nil)
    }

    /// The iterator reuses an object nobody else holds for the next row. A weak reference to
    /// an object the loop body let go of must see it freed (nil), never another row.
    @Test func aWeakReferenceNeverSeesAnotherRow() throws {
        let db = try openWithNotes(100)
        weak var weakFirst: Note?
        var texts: [String] = []
        var seenThroughWeak: Set<String> = []
        for note in db.objects(Note.self) {
            if texts.isEmpty { weakFirst = note }
            texts.append(note.text)
            if let text = weakFirst?.text { seenThroughWeak.insert(text) }
        }
        #expect(texts == (0..<100).map { "N\($0)" })
        #expect(seenThroughWeak == ["N0"])
        #expect(weakFirst == nil)
    }

    /// An unowned reference also keeps the iterator from reusing an object: the next row gets a
    /// new instance (the old one's memory stays allocated while the unowned reference exists).
    @Test func anUnownedReferenceKeepsTheObjectFromBeingReused() throws {
        struct Holder { unowned let note: Note }
        let db = try openWithNotes(3)
        var iterator = db.objects(Note.self).makeIterator()
        var first: Note? = iterator.next()
        let firstNote = try #require(first)
        let firstID = ObjectIdentifier(firstNote)
        let holders = [Holder(note: firstNote)]
        first = nil
        _ = consume firstNote
        let next = iterator.next()
        let second = try #require(next)
        #expect(ObjectIdentifier(second) != firstID)
        #expect(second.text == "N1")
        #expect(holders.count == 1)
    }

    /// A database with `count` notes whose texts are "N0", "N1", …, in key order.
    private func openWithNotes(_ count: Int) throws -> Database {
        let db = try directory.open([Note.self])
        try db.write {
            for i in 0..<count {
                let note = Note()
                note.text = "N\(i)"
                try db.add(note)
            }
        }
        return db
    }
}
