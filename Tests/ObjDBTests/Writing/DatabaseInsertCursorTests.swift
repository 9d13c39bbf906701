import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Inserts go through cursors a write transaction keeps open (``OpenTransaction/insertCursor(_:_:)``);
/// these tests mix them with every other kind of write in one transaction and check the result
/// against a plain dictionary.
struct DatabaseInsertCursorTests {
    let directory = TemporaryDirectory()

    /// What the database should hold: id → (name, age).
    typealias Model = [Int: (name: String, age: Int?)]

    @Test func insertsMixedWithDeletesUpdatesAndDuplicatesStayConsistent() throws {
        let db = try directory.open([Person.self])
        var rng = SeededRandom(seed: 0x1_05E7)
        var model: Model = [:]
        // The ids in `model`, in an order the seed decides (a dictionary's order varies by run).
        var ids: [Int] = []
        var nextID = 1
        func name(_ i: Int) -> String { "n\(i % 37)" }
        func anyID() -> Int { ids[rng.below(ids.count)] }
        func forget(_ id: Int) {
            model[id] = nil
            if let index = ids.firstIndex(of: id) { ids.swapAt(index, ids.count - 1); ids.removeLast() }
        }
        for round in 0..<3 {
            try db.write {
                for step in 0..<2_000 {
                    let roll = rng.below(100)
                    if roll < 55 || model.isEmpty {
                        // Mostly ascending ids (the cursor's fast path); some far above, so that later ascending
                        // ids land before them.
                        let id = rng.below(5) == 0 ? rng.below(nextID + 1) + 100_000 * (round + 1) : nextID
                        if id == nextID { nextID += 1 }
                        if model[id] != nil { continue }
                        let age = rng.below(4) == 0 ? nil : rng.below(90)
                        try db.add(person(id, name(id &+ step), age: age))
                        model[id] = (name(id &+ step), age)
                        ids.append(id)
                    } else if roll < 75 {
                        let id = anyID()
                        let object = try #require(db.object(ofType: Person.self, forPrimaryKey: id))
                        db.delete(object)
                        forget(id)
                    } else if roll < 88 {
                        let id = anyID()
                        let object = try #require(db.object(ofType: Person.self, forPrimaryKey: id))
                        object.name = "renamed\(step % 11)"
                        model[id]?.name = object.name
                    } else if roll < 95 {
                        let id = anyID()
                        try db.add(person(id, "upserted", age: 7), update: .modified)
                        model[id] = ("upserted", 7)
                    } else {
                        let id = anyID()
                        let error = try #require(throws: ObjDBError.self) { try db.add(person(id, "dup")) }
                        #expect(error.code == .primaryKeyExists)
                    }
                    if round == 1 && step == 1_000 {
                        // Emptying the table mid-transaction, then inserting again.
                        db.delete(db.objects(Person.self))
                        model.removeAll()
                        ids.removeAll()
                    }
                }
            }
            try expectMatches(db, model)
        }
        try expectMatches(try directory.open([Person.self]), model)
    }

    @Test func anInsertRolledBackByAFailedWriteLeavesLaterInsertsIntact() throws {
        let db = try directory.open([Person.self])
        var model: Model = [:]
        try db.write {
            for id in 1...500 {
                try db.add(person(id, "p\(id)"))
                model[id] = ("p\(id)", nil)
            }
            // A taken primary key fails before anything is written; inserting goes on after it.
            #expect(throws: ObjDBError.self) { try db.add(person(250, "again")) }
            for id in 501...1_000 {
                try db.add(person(id, "p\(id)"))
                model[id] = ("p\(id)", nil)
            }
        }
        #expect(throws: ObjDBError.self) {
            try db.write {
                for id in 1_001...1_500 { try db.add(person(id, "gone")) }
                throw ObjDBError(.invalidValue, "roll back")
            }
        }
        try db.write {
            for id in 1_001...1_200 {
                try db.add(person(id, "p\(id)"))
                model[id] = ("p\(id)", nil)
            }
        }
        try expectMatches(db, model)
    }

    @Test func aDatabaseReleasedInsideAWriteClosesItsCursorsAndKeepsNothing() throws {
        do {
            let db = try directory.open([Person.self])
            db.beginWrite()
            for id in 1...300 { try db.add(person(id, "p\(id)")) }
            // Released here, inside the write: its insert cursors must close before the abort.
        }
        let reopened = try directory.open([Person.self])
        #expect(reopened.objects(Person.self).isEmpty)
        try reopened.write { for id in 1...10 { try reopened.add(person(id, "q\(id)")) } }
        try expectMatches(reopened, Dictionary(uniqueKeysWithValues: (1...10).map { ($0, (name: "q\($0)", age: Int?.none)) }))
    }

    @Test func appendingRefusesAKeyBelowTheLastAndTheInsertThenSearches() throws {
        let db = try directory.open([Person.self])
        try db.write { for id in 1...400 { try db.add(person(id, "p\(id)")) } }
        let info = try #require(try db.classInfo(for: Person.self))
        let lastKey = try #require(db.objects(Person.self).last?._objdbKey)
        let freed = try #require(db.object(ofType: Person.self, forPrimaryKey: 200)?._objdbKey)
        try db.write { db.delete(try #require(db.object(ofType: Person.self, forPrimaryKey: 200))) }

        // `.append` (MDB_APPEND) stores a key past the table's last one and refuses any other
        // as if it were taken, even a free one; without it the same key is stored. Rolled back.
        #expect(throws: ObjDBError.self) {
            try db.write {
                let cursor = try Cursor(try db.requireReadableTxn(), info.tables.objects)
                #expect(try cursor.storeRow(key: freed, count: 3, flags: [.noOverwrite, .append]) { $0.initializeMemory(as: UInt8.self, repeating: 0) } == nil)
                #expect(try cursor.storeRow(key: lastKey, count: 3, flags: [.noOverwrite, .append]) { $0.initializeMemory(as: UInt8.self, repeating: 0) } == nil)
                #expect(try cursor.storeRow(key: lastKey + 5, count: 3, flags: [.noOverwrite, .append]) { $0.initializeMemory(as: UInt8.self, repeating: 0) } != nil)
                #expect(try cursor.storeRow(key: lastKey + 2, count: 3, flags: [.noOverwrite, .append]) { $0.initializeMemory(as: UInt8.self, repeating: 0) } == nil)
                #expect(try cursor.storeRow(key: lastKey + 2, count: 3, flags: .noOverwrite) { $0.initializeMemory(as: UInt8.self, repeating: 0) } != nil)
                throw ObjDBError(.invalidValue, "roll back")
            }
        }

        // A row under a key below the last (as a graph's keys, handed out before the rows are
        // written, could be) is refused by the append and stored by the search after it.
        try db.write {
            let context = try #require(db.writeContext)
            db.encodeUnmanaged(person(200, "again"), info, into: context.scratch.row)
            let inserted = try db.insertNew(info, key: freed, context)
            #expect(inserted.key == freed)
        }
        let again = try #require(db.object(ofType: Person.self, forPrimaryKey: 200))
        #expect(again.name == "again" && again._objdbKey == freed)
        #expect(db.objects(Person.self).map(\.id) == Array(1...400))
        #expect(db.objects(Person.self).where { $0.name == "again" }.map(\.id) == [200])
    }

    /// Every object of `model` is found by primary key and by name with its values, nothing
    /// else is there, and iteration visits them in insertion (key) order.
    private func expectMatches(_ db: Database, _ model: Model) throws {
        let people = db.objects(Person.self)
        #expect(people.count == model.count)
        for (id, expected) in model {
            let object = try #require(db.object(ofType: Person.self, forPrimaryKey: id), "id \(id)")
            #expect(object.name == expected.name && object.age == expected.age, "id \(id)")
        }
        var byName: [String: Set<Int>] = [:]
        for (id, value) in model { byName[value.name, default: []].insert(id) }
        for (name, ids) in byName {
            #expect(Set(people.where { $0.name == name }.map(\.id)) == ids, "name \(name)")
        }
        let keys = people.map { $0._objdbKey }
        #expect(keys == keys.sorted())
        #expect(Set(people.map(\.id)) == Set(model.keys))
    }
}
