import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// The change log: what each commit records, how entries merge, their bytes, damaged entries,
/// and pruning.
@Suite(.serialized)
struct ChangeLogTests {
    let directory = TemporaryDirectory()

    func ranges(_ keys: [UInt64]) -> KeyRanges { KeyRanges(keys) }

    @Test func keyRangesMergeAndSubtract() {
        let a = ranges([1, 2, 3, 7, 8, 20])
        #expect(a.ranges == [1...3, 7...8, 20...20])
        #expect(a.count == 6)
        #expect(a.contains(8) && !a.contains(9) && !a.contains(0) && a.contains(20))
        let b = ranges([3, 4, 5, 6, 21])
        #expect(a.union(b).ranges == [1...8, 20...21])
        #expect(a.subtracting(b).ranges == [1...2, 7...8, 20...20])
        #expect(a.subtracting(ranges([1, 2, 3, 7, 8, 20])).isEmpty)
        #expect(ranges([]).union(a) == a)
        // Random sets against Set arithmetic.
        var generator = SeededRandom(seed: 3)
        for _ in 0..<200 {
            let x = (0..<40).compactMap { _ in Bool.random(using: &generator) ? UInt64.random(in: 0...60, using: &generator) : nil }
            let y = (0..<40).compactMap { _ in Bool.random(using: &generator) ? UInt64.random(in: 0...60, using: &generator) : nil }
            #expect(ranges(x).union(ranges(y)).keys == Set(x).union(y).sorted())
            #expect(ranges(x).subtracting(ranges(y)).keys == Set(x).subtracting(y).sorted())
        }
    }

    /// Composition: inserted then deleted is nothing; inserted then modified is inserted;
    /// modified then deleted is deleted.
    @Test func changeSetsMergeAsSets() {
        var first = ClassChangeSet()
        first.inserted = ranges([10, 11])
        first.modified = [1: columns(0), 2: columns(1)]
        var second = ClassChangeSet()
        second.deleted = ranges([10, 2])
        second.modified = [11: columns(2), 1: columns(3), 3: columns(0)]
        first.append(second)
        #expect(first.inserted.keys == [11])
        #expect(first.deleted.keys == [2])
        #expect(first.modified == [1: columns(0, 3), 3: columns(0)])
    }

    func columns(_ numbers: Int...) -> ColumnSet {
        var set = ColumnSet()
        set.formUnion(numbers)
        return set
    }

    @Test func entriesRoundTrip() throws {
        var changes = ChangeSet(schemaChanged: true)
        var people = ClassChangeSet()
        people.inserted = ranges(Array(100...200) + [1_000_000])
        people.deleted = ranges([0, 5, 6, 7])
        people.modified = [9: columns(0, 3, 70), 1 << 40: columns(1)]
        changes.classes[1] = people
        var notes = ClassChangeSet()
        notes.unlistedModifications = columns(2)
        changes.classes[7] = notes
        let bytes = ChangeLogFormat.encode(changes)
        let decoded = try bytes.withUnsafeBytes { try ChangeLogFormat.decode($0) }
        #expect(decoded == changes)
        // 100 consecutive inserted keys cost a few bytes.
        #expect(bytes.count < 60)
    }

    /// An entry whose class inserts and deletes the same key cannot come from a commit: damaged.
    @Test func anEntryThatInsertsAndDeletesTheSameKeyIsDamaged() throws {
        var changes = ChangeSet()
        var people = ClassChangeSet()
        people.inserted = ranges(Array(10...20))
        people.deleted = ranges([3, 15])
        changes.classes[1] = people
        let bytes = ChangeLogFormat.encode(changes)
        let error = try #require(throws: ObjDBError.self) { try bytes.withUnsafeBytes { try ChangeLogFormat.decode($0) } }
        #expect(error.code == .corruptFile)
        #expect(error.message.contains("both inserted and deleted"), "\(error.message)")
        people.deleted = ranges([3, 21])
        changes.classes[1] = people
        #expect(try ChangeLogFormat.encode(changes).withUnsafeBytes { try ChangeLogFormat.decode($0) } == changes)
    }

    /// Damaged entries throw corruptFile, never crash: every truncation and every single-byte
    /// change of a valid entry either decodes or throws.
    @Test func damagedEntriesThrow() throws {
        var changes = ChangeSet()
        var people = ClassChangeSet()
        people.inserted = ranges([3, 4, 5])
        people.modified = [1: columns(0, 2)]
        changes.classes[0] = people
        let bytes = ChangeLogFormat.encode(changes)
        for length in 0..<bytes.count {
            let error = #expect(throws: ObjDBError.self) { try Array(bytes.prefix(length)).withUnsafeBytes { try ChangeLogFormat.decode($0) } }
            #expect(error?.code == .corruptFile)
        }
        for index in bytes.indices {
            for value: UInt8 in [0, 0x7F, 0x80, 0xFF] {
                var damaged = bytes
                damaged[index] = value
                _ = try? damaged.withUnsafeBytes { try ChangeLogFormat.decode($0) }
            }
        }
        let tooLong = bytes + [0]
        #expect(throws: ObjDBError.self) { try tooLong.withUnsafeBytes { try ChangeLogFormat.decode($0) } }
    }

    /// Each commit leaves an entry under its version: inserted keys, deleted keys, modified
    /// objects with their columns; a commit that wrote nothing leaves none.
    @Test func commitsRecordTheirChanges() throws {
        let db = try directory.open([Person.self])
        try db.write { for i in 1...5 { try db.add(person(i, "p\(i)", age: i)) } }
        let info = try #require(try db.classInfo(for: Person.self))
        let ageColumn = try #require(info.stored.properties.firstIndex { $0.name == "age" })
        let first = try latestEntry(db)
        #expect(first.changes[info.classID].inserted.keys == Array(1...5))
        try db.write {
            db.object(ofType: Person.self, forPrimaryKey: 2)?.age = 20
            if let three = db.object(ofType: Person.self, forPrimaryKey: 3) { db.delete(three) }
            try db.add(person(6, "p6"))
        }
        let second = try latestEntry(db)
        #expect(second.version == first.version + 1)
        let change = second.changes[info.classID]
        #expect(change.inserted.keys == [6])
        #expect(change.deleted.keys == [3])
        #expect(change.modified == [2: columns(ageColumn)])
        // Nothing written: no new version, no entry.
        try db.write {}
        #expect(try latestEntry(db).version == second.version)
        // The log merges the two versions.
        let txn = try db.requireReadableTxn()
        let merged = try #require(try ChangeLog.changes(after: first.version - 1, through: second.version, table: db.changesTable(), txn: txn))
        #expect(merged[info.classID].inserted.keys == [1, 2, 4, 5, 6])
        #expect(merged[info.classID].modified.isEmpty)  // 2 was inserted within the range
        // A version the log does not have gives nil.
        #expect(try ChangeLog.changes(after: 0, through: second.version, table: db.changesTable(), txn: txn) == nil)
    }

    /// Entries older than the retained window are pruned; the log stays bounded.
    @Test func theLogIsPruned() throws {
        let db = try directory.open([Person.self])
        let total = Int(ChangeLog.retainedEntries + 2 * ChangeLog.pruneInterval)
        for i in 0..<total { try db.write { try db.add(person(i, "p")) } }
        db.refresh()
        let txn = try db.requireReadableTxn()
        let table = try #require(try db.changesTable())
        let count = try txn.entryCount(table)
        #expect(count <= Int(ChangeLog.retainedEntries + ChangeLog.pruneInterval))
        #expect(count >= Int(ChangeLog.retainedEntries))
    }

    /// A transaction that changes more objects than the log lists records only the columns.
    @Test func largeTransactionsRecordColumnsOnly() throws {
        let db = try directory.open([Person.self])
        let n = ChangeLog.listedModificationsLimit + 10
        try db.write { for i in 0..<n { try db.add(person(i, "p", age: 1)) } }
        try db.write { for person in db.objects(Person.self) { person.age = 2 } }
        let info = try #require(try db.classInfo(for: Person.self))
        let change = try latestEntry(db).changes[info.classID]
        #expect(change.modified.isEmpty)
        #expect(change.unlistedModifications?.count == 1)
        #expect(change.modifiedColumns(of: 5) != nil)
    }

    func latestEntry(_ db: Database) throws -> (version: UInt64, changes: ChangeSet) {
        db.refresh()
        let txn = try db.requireReadableTxn()
        let table = try #require(try db.changesTable())
        let entry = try #require(try Cursor(txn, table).last())
        return (entry.objectKey, try ChangeLogFormat.decode(entry.value))
    }
}
