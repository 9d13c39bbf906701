import Foundation
import Testing
@_spi(Inspection) @testable import ObjDB
import ObjDBTestModels

/// New objects' secondary-index entries are logged and written grouped, at commit or before
/// anything reads or deletes index entries (``PendingIndexEntries``). Every read, delete and
/// commit must find exactly what one put per entry would have stored: checked through queries
/// that use the name index and through the index table's own entry count.
struct DatabasePendingIndexTests {
    let directory = TemporaryDirectory()

    /// The ids of the people named `name`, found through the name index, ascending.
    private func idsNamed(_ db: Database, _ name: String) -> [Int] {
        db.objects(Person.self).where { $0.name == name }.map(\.id).sorted()
    }

    /// The number of entries in the name index's table, as `db` reads it now.
    private func indexEntryCount(_ db: Database) throws -> Int {
        let info = try #require(try db.classInfo(for: Person.self))
        let column = try #require(info.columnNames.firstIndex(of: "name"))
        let table = try #require(info.tables.indexes[column])
        return try db.requireReadableTxn().entryCount(table)
    }

    @Test func queriesInsideTheWriteSeeNewObjectsThroughTheIndex() throws {
        let db = try directory.open([Person.self])
        try db.write {
            for id in 1...300 { try db.add(person(id, "n\(id % 7)")) }
            #expect(db.objects(Person.self).where { $0.name == "n3" }.queryPlan.hasPrefix("index"))
            #expect(idsNamed(db, "n3") == (1...300).filter { $0 % 7 == 3 })
            #expect(db.objects(Person.self).where { $0.name == "n5" }.count == (1...300).filter { $0 % 7 == 5 }.count)
            #expect(try indexEntryCount(db) == 300)
            // More after the reads: logged again, written at commit.
            for id in 301...400 { try db.add(person(id, "n\(id % 7)")) }
        }
        for r in 0..<7 { #expect(idsNamed(db, "n\(r)") == (1...400).filter { $0 % 7 == r }) }
        #expect(try indexEntryCount(db) == 400)
    }

    @Test func valuesChangedOrDeletedInTheSameWriteLeaveOnlyWhatIsStored() throws {
        let db = try directory.open([Person.self])
        try db.write {
            let people = (1...200).map { person($0, "old\($0 % 5)") }
            for p in people { try db.add(p) }
            // A new object's changed value deletes its logged entry, so that one is written first.
            for p in people where p.id % 2 == 0 { p.name = "new\(p.id % 3)" }
            for p in people where p.id % 10 == 1 { db.delete(p) }
            // And new objects again after those writes.
            for id in 201...220 { try db.add(person(id, "old\(id % 5)")) }
        }
        var expected: [String: [Int]] = [:]
        for id in 1...220 where id > 200 || id % 10 != 1 {
            expected[id <= 200 && id % 2 == 0 ? "new\(id % 3)" : "old\(id % 5)", default: []].append(id)
        }
        for name in ["old0", "old1", "old2", "old3", "old4", "new0", "new1", "new2"] {
            #expect(idsNamed(db, name) == (expected[name] ?? []), "\(name)")
        }
        #expect(try indexEntryCount(db) == expected.values.map(\.count).reduce(0, +))
        #expect(db.objects(Person.self).count == 200)
    }

    @Test func changesInKeyOrderThenAgainKeepTheIndexExact() throws {
        let db = try directory.open([Person.self])
        try db.write { for id in 1...300 { try db.add(person(id, "start")) } }
        try db.write {
            // In key order, as iterating does: each change logs its new entry.
            for p in db.objects(Person.self) { p.name = "a\(p.id % 3)" }
            #expect(idsNamed(db, "a1") == (1...300).filter { $0 % 3 == 1 })
            // Changed again, in reverse order and then from the start: the entries logged for
            // those objects must be written before they are deleted.
            for p in db.objects(Person.self).reversed() where p.id % 4 == 0 { p.name = "b" }
            for id in [1, 2, 3] { db.object(ofType: Person.self, forPrimaryKey: id)?.name = "c" }
            for p in db.objects(Person.self) where p.id % 4 == 0 && p.id > 150 { p.name = "d" }
        }
        func finalName(_ id: Int) -> String {
            if id <= 3 { return "c" }
            if id % 4 == 0 { return id > 150 ? "d" : "b" }
            return "a\(id % 3)"
        }
        for name in ["start", "a0", "a1", "a2", "b", "c", "d"] {
            #expect(idsNamed(db, name) == (1...300).filter { finalName($0) == name }, "\(name)")
        }
        #expect(try indexEntryCount(db) == 300)
    }

    @Test func aCancelledWriteWritesNoneOfItsEntries() throws {
        let db = try directory.open([Person.self])
        try db.write { for id in 1...50 { try db.add(person(id, "kept")) } }
        db.beginWrite()
        for id in 51...150 { try db.add(person(id, "dropped")) }
        db.cancelWrite()
        try db.write { try db.add(person(151, "later")) }
        #expect(idsNamed(db, "dropped").isEmpty)
        #expect(idsNamed(db, "later") == [151])
        #expect(idsNamed(db, "kept") == Array(1...50))
        #expect(try indexEntryCount(db) == 51)
    }

    @Test func aFailedAddOfASequenceTakesItsEntriesBack() throws {
        let db = try directory.open([Person.self])
        try db.write {
            try db.add((1...100).map { person($0, "first") })
            // The last object repeats a primary key: the 50 before it are removed again.
            #expect(throws: ObjDBError.self) { try db.add((101...150).map { person($0, "second") } + [person(7, "dup")]) }
            try db.add((151...160).map { person($0, "third") })
        }
        #expect(idsNamed(db, "first") == Array(1...100))
        #expect(idsNamed(db, "second").isEmpty)
        #expect(idsNamed(db, "dup").isEmpty)
        #expect(idsNamed(db, "third") == Array(151...160))
        #expect(try indexEntryCount(db) == 110)
    }

    @Test func deletingEverythingAfterInsertsInTheSameWriteEmptiesTheIndex() throws {
        let db = try directory.open([Person.self])
        try db.write {
            for id in 1...100 { try db.add(person(id, "x\(id % 4)")) }
            db.delete(db.objects(Person.self))
            try db.add(person(500, "x1"))
        }
        #expect(idsNamed(db, "x1") == [500])
        #expect(try indexEntryCount(db) == 1)
    }

    @Test func manyDistinctValuesInRandomOrderAreAllFound() throws {
        // Thousands of distinct names (the grouping table grows several times) and many
        // repeats of a few, in random order, with multi-byte characters and lengths past 8.
        let db = try directory.open([Person.self])
        var rng = SeededRandom(seed: 0x1DE7)
        var expected: [String: [Int]] = [:]
        try db.write {
            for id in 1...6_000 {
                let name = rng.below(4) == 0
                    ? "common\(rng.below(3))"
                    : "n\(rng.below(1_000_000))" + String(repeating: "é", count: rng.below(20))
                try db.add(person(id, name))
                expected[name, default: []].append(id)
            }
        }
        #expect(try indexEntryCount(db) == 6_000)
        // Every repeated name, and distinct ones picked at random: a query per name of all
        // ~4,500 costs minutes in debug builds, where each is cross-checked by a full scan.
        var mismatches = 0
        let checked = expected.keys.sorted().filter { expected[$0, default: []].count > 1 || rng.below(15) == 0 }
        #expect(checked.count > 300)
        for name in checked where idsNamed(db, name) != expected[name] { mismatches += 1 }
        #expect(mismatches == 0)
        #expect(db.objects(Person.self).where { $0.name.starts(with: "common") }.count == expected.filter { $0.key.hasPrefix("common") }.values.map(\.count).reduce(0, +))
    }

    @Test func puttingManyObjectKeysKeepsPairsAlreadyStored() throws {
        let db = try directory.open([Person.self])
        try db.write { for id in 1...10 { try db.add(person(id, "same")) } }
        let info = try #require(try db.classInfo(for: Person.self))
        let column = try #require(info.columnNames.firstIndex(of: "name"))
        let table = try #require(info.tables.indexes[column])
        #expect(throws: ObjDBError.self) {
            try db.write {
                let txn = try db.requireReadableTxn()
                let cursor = try Cursor(txn, table)
                let first = try #require(try cursor.first())
                let key = Array(first.key)
                var stored = [first.valueObjectKey]
                while let next = try cursor.nextDuplicate() { stored.append(next.valueObjectKey) }
                #expect(stored.count == 10)
                // Two stored pairs among three new ones: all five present afterwards, each once.
                let extra: [UInt64] = [1_000, 1_001, 1_002]
                try key.withUnsafeBytes { try cursor.putAll(key: $0, objectKeys: (extra + [stored[3], stored[5]]).sorted()) }
                #expect(try txn.entryCount(table) == 13)
                var after: [UInt64] = []
                var entry = try key.withUnsafeBytes { try cursor.seek(exactly: $0) }
                while let current = entry {
                    after.append(current.valueObjectKey)
                    entry = try cursor.nextDuplicate()
                }
                #expect(after == (stored + extra).sorted())
                throw ObjDBError(.invalidValue, "roll back")
            }
        }
        #expect(try indexEntryCount(db) == 10)
    }

    @Test func aFullMapWhileWritingLoggedEntriesKeepsNothingOfTheWrite() throws {
        var config = directory.configuration([Person.self])
        config.maximumSize = 256 * 1024
        let db = try Database(configuration: config)
        var committed = 0
        var failure: ObjDBError?
        while failure == nil && committed < 10_000 {
            do {
                try db.write {
                    for id in committed..<committed + 50 { try db.add(person(id, "p\(id)-" + String(repeating: "z", count: 300))) }
                }
                committed += 50
            } catch let error as ObjDBError {
                failure = error
            }
        }
        #expect(failure?.code == .mapFull)
        #expect(committed > 0)
        #expect(db.objects(Person.self).count == committed)
        #expect(try indexEntryCount(db) == committed)
        #expect(idsNamed(db, "p0-" + String(repeating: "z", count: 300)) == [0])
    }

    /// deleteAll() after adds in the same write: the entries logged for the deleted objects
    /// are not written into the emptied index.
    @Test func deleteAllEmptiesOrdinaryIndexesOfObjectsAddedInTheSameWrite() throws {
        let db = try directory.open()
        try db.write {
            try db.add(person(1, "Ann"))
            db.deleteAll()
            try db.add(person(2, "Bob"))
        }
        #expect(try db.objects(Person.self).filter("name == 'Ann'").count == 0)
        #expect(try db.verify().isHealthy)
    }
}
