import Foundation
import Testing
@testable import ObjDB

final class SyncTag: Object {
    @Persisted(primaryKey: true) var id: String = ""
    @Persisted var label: String = ""
}

final class SyncPlace: EmbeddedObject {
    @Persisted var city: String = ""
    @Persisted var floor: Int = 0
    @Persisted var landmark: SyncTag?
}

final class SyncNote: Object {
    @Persisted(primaryKey: true) var id: String = ""
    @Persisted var title: String = ""
    @Persisted var count: Int = 0
    @Persisted var score: Double = 0
    @Persisted var when: Date?
    @Persisted var lines: List<String>
    @Persisted var tag: SyncTag?
    @Persisted var tags: List<SyncTag>
    @Persisted var place: SyncPlace?
    @Persisted var marks: Map<String, Double>
}

/// Mixed values sync when they hold a scalar.
final class SyncSetting: Object {
    @Persisted(primaryKey: true) var id: String = ""
    @Persisted var value: MixedValue = .none
    @Persisted var history: List<MixedValue>
}

/// Integer primary keys cannot be synced.
final class SyncCounter: Object {
    @Persisted(primaryKey: true) var id: Int = 0
}

/// The outbox: what a commit on a synced file records, in the same transaction.
struct OutboxTests {
    let directory = TemporaryDirectory()

    func open() throws -> Database {
        let db = try directory.open([SyncNote.self, SyncTag.self, SyncPlace.self, SyncCounter.self])
        try db.enableSync(classNames: ["SyncNote", "SyncTag"])
        return db
    }

    func note(_ id: String, title: String = "") -> SyncNote {
        let note = SyncNote()
        note.id = id
        note.title = title
        return note
    }

    @Test func aFileNotSyncedRecordsNothing() throws {
        let db = try directory.open([SyncNote.self, SyncTag.self, SyncPlace.self])
        try db.write { try db.add(note("a")) }
        #expect(try db.syncFileState() == nil)
        #expect(try db.outboxOperations(after: 0).isEmpty)
    }

    /// What an upload sends: the entries as stored (they decode to the operations), at most so
    /// many, and at most so many bytes, but always the first.
    @Test func entriesAreReadAsStoredWithinACountAndASize() throws {
        let db = try open()
        for i in 0..<5 { try db.write { try db.add(note("n\(i)", title: String(repeating: "x", count: 100))) } }
        let all = try db.outboxEntries(after: 0, limit: 100)
        #expect(all.map(\.sequence) == [1, 2, 3, 4, 5])
        let operations = try db.outboxOperations(after: 0)
        for (entry, operation) in zip(all, operations) {
            #expect(try entry.bytes.withUnsafeBytes { try SyncOperationBytes.decode($0, sequence: entry.sequence) } == operation)
        }
        #expect(try db.outboxEntries(after: 2, limit: 2).map(\.sequence) == [3, 4])
        let size = all[0].bytes.count + 20
        #expect(try db.outboxEntries(after: 0, limit: 100, maxBytes: 2 * size).map(\.sequence) == [1, 2])
        #expect(try db.outboxEntries(after: 0, limit: 100, maxBytes: 1).map(\.sequence) == [1])
    }

    @Test func aCreateCarriesEveryProperty() throws {
        let db = try open()
        let when = Date(timeIntervalSince1970: 1_234.000_001)
        try db.write {
            let n = note("a", title: "milk")
            n.count = Int.min
            n.score = -.nan
            n.when = when
            n.lines.append(objectsIn: ["x", "y"])
            n.marks["m"] = .infinity
            let place = SyncPlace()
            place.city = "Oslo"
            n.place = place
            try db.add(n)
        }
        let ops = try db.outboxOperations(after: 0)
        #expect(ops.count == 1)
        let op = try #require(ops.first)
        #expect(op.sequence == 1 && op.kind == .create && op.className == "SyncNote" && op.primaryKey == .string("a"))
        #expect(op.values["title"] == .string("milk"))
        #expect(op.values["count"] == .int(Int64.min))
        #expect(op.values["score"] == .double(-.nan))
        #expect(op.values["score"] != .double(.nan))
        #expect(op.values["when"] == .date(when))
        #expect(op.values["lines"] == .list([.string("x"), .string("y")]))
        #expect(op.values["marks"] == .map(["m": .double(.infinity)]))
        #expect(op.values["tag"] == .null)
        #expect(op.values["tags"] == .list([]))
        #expect(op.values["place"] == .object(["city": .string("Oslo"), "floor": .int(0), "landmark": .null]))
        #expect(op.values.count == 10)
    }

    @Test func anUpdateCarriesOnlyWhatItWrote() throws {
        let db = try open()
        let n = note("a", title: "milk")
        try db.write { try db.add(n) }
        try db.write { n.count = 3 }
        let ops = try db.outboxOperations(after: 1)
        #expect(ops.map(\.kind) == [.update])
        #expect(ops.first?.values == ["count": .int(3)])
        #expect(ops.first?.sequence == 2)
    }

    @Test func appendsTravelAsAppends() throws {
        let db = try open()
        let n = note("a")
        try db.write {
            n.lines.append("one")
            try db.add(n)
        }
        try db.write { n.lines.append(objectsIn: ["two", "three"]) }
        try db.write { n.lines.insert("zero", at: 0) }
        let ops = try db.outboxOperations(after: 1)
        #expect(ops.count == 2)
        #expect(ops[0].listAppends == ["lines": [.string("two"), .string("three")]] && ops[0].values.isEmpty)
        #expect(ops[1].listAppends.isEmpty)
        #expect(ops[1].values["lines"] == .list(["zero", "one", "two", "three"].map(SyncValue.string)))
    }

    @Test func linksTravelAsPrimaryKeys() throws {
        let db = try open()
        try db.write {
            let tag = SyncTag()
            tag.id = "t1"
            let n = note("a")
            n.tag = tag
            n.tags.append(tag)
            try db.add(n)
        }
        let ops = try db.outboxOperations(after: 0)
        let noteOp = try #require(ops.first { $0.className == "SyncNote" })
        #expect(noteOp.values["tag"] == .link(.string("t1")))
        #expect(noteOp.values["tags"] == .list([.link(.string("t1"))]))
        #expect(ops.contains { $0.className == "SyncTag" && $0.kind == .create })
    }

    @Test func aDeleteCarriesThePrimaryKey() throws {
        let db = try open()
        let n = note("gone")
        try db.write { try db.add(n) }
        try db.write { db.delete(n) }
        let ops = try db.outboxOperations(after: 1)
        #expect(ops.map(\.kind) == [.delete])
        #expect(ops.first?.primaryKey == .string("gone"))
    }

    @Test func deleteAllRecordsEveryObjectOnce() throws {
        let db = try open()
        try db.write { for i in 0..<5 { try db.add(note("n\(i)")) } }
        try db.write { db.deleteAll() }
        let ops = try db.outboxOperations(after: 5)
        #expect(Set(ops.map(\.primaryKey)) == Set((0..<5).map { SyncValue.string("n\($0)") }))
        #expect(ops.allSatisfy { $0.kind == .delete })
    }

    @Test func anEmbeddedChangeUpdatesItsOwner() throws {
        let db = try open()
        let n = note("a")
        try db.write {
            n.place = SyncPlace()
            try db.add(n)
        }
        try db.write { n.place?.city = "Bergen" }
        let ops = try db.outboxOperations(after: 1)
        #expect(ops.count == 1)
        #expect(ops.first?.values["place"] == .object(["city": .string("Bergen"), "floor": .int(0), "landmark": .null]))
    }

    @Test func aStringWithNULIsRefusedAtCommit() throws {
        let db = try open()
        let error = #expect(throws: ObjDBError.self) { try db.write { try db.add(note("a", title: "x\u{0}y")) } }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("SyncNote.title") == true)
        #expect(db.objects(SyncNote.self).isEmpty)
        #expect(try db.outboxOperations(after: 0).isEmpty)
    }

    // Mixed values travel with their type: a float stays a float, a list a list.
    @Test func mixedValuesAreRecordedWithTheirTypes() throws {
        let db = try directory.open([SyncSetting.self], name: "mixed.objdb")
        try db.enableSync(classNames: ["SyncSetting"])
        let setting = SyncSetting()
        setting.id = "a"
        setting.value = .float(1.5)
        setting.history.append(objectsIn: [.string("x"), .list([.int(1), .none]), .dictionary(["k": .decimal(2)])])
        try db.write { try db.add(setting) }
        let create = try #require(try db.outboxOperations(after: 0).last)
        #expect(create.values["value"] == .float(1.5))
        #expect(create.values["history"] == .list([.string("x"), .list([.int(1), .null]), .map(["k": .decimal(2)])]))
        try db.write { setting.value = .dictionary(["n": .list([.bool(true)])]) }
        #expect(try db.outboxOperations(after: 0).last?.values["value"] == .map(["n": .list([.bool(true)])]))
    }

    // The outbox reads back the deepest mixed value a commit takes: nothing blocks the uploads.
    @Test func theDeepestMixedValueIsReadBackFromTheOutbox() throws {
        let db = try directory.open([SyncSetting.self], name: "mixed.objdb")
        try db.enableSync(classNames: ["SyncSetting"])
        var deepest: MixedValue = .int(1)
        var expected: SyncValue = .int(1)
        for _ in 0..<MixedFormat.maxDepth {
            deepest = .list([deepest])
            expected = .list([expected])
        }
        let setting = SyncSetting()
        setting.id = "a"
        setting.value = deepest
        setting.history.append(deepest)
        try db.write { try db.add(setting) }
        let create = try #require(try db.outboxOperations(after: 0).last)
        #expect(create.values["value"] == expected)
        #expect(create.values["history"] == .list([expected]))
    }

    @Test func aMixedLinkIsRefusedAtCommit() throws {
        let db = try directory.open([SyncSetting.self], name: "mixed.objdb")
        try db.enableSync(classNames: ["SyncSetting"])
        let setting = SyncSetting()
        setting.id = "a"
        setting.value = .int(3)
        setting.history.append(.string("x"))
        try db.write { try db.add(setting) }
        for value: MixedValue in [.object(setting), .list([.int(1), .dictionary(["k": .object(setting)])])] {
            let error = #expect(throws: ObjDBError.self) { try db.write { setting.value = value } }
            #expect(error?.code == .invalidValue)
            #expect(error?.message.contains("SyncSetting.value") == true)
        }
        let error = #expect(throws: ObjDBError.self) { try db.write { setting.history.append(.object(setting)) } }
        #expect(error?.code == .invalidValue)
        #expect(setting.value == .int(3))
        #expect(Array(setting.history) == [.string("x")])
    }

    @Test func integerPrimaryKeysCannotBeSynced() throws {
        let db = try directory.open([SyncNote.self, SyncTag.self, SyncPlace.self, SyncCounter.self])
        let error = #expect(throws: ObjDBError.self) { try db.enableSync(classNames: ["SyncCounter"]) }
        #expect(error?.code == .invalidSchema)
        #expect(try db.syncFileState() == nil)
    }

    @Test func anotherInstanceRecordsToo() throws {
        let db = try open()
        let other = try directory.open([SyncNote.self, SyncTag.self, SyncPlace.self, SyncCounter.self])
        try other.write { try other.add(note("b")) }
        db.refresh()
        #expect(try db.outboxOperations(after: 0).map(\.primaryKey) == [.string("b")])
    }

    @Test func aRolledBackWriteLeavesNothing() throws {
        let db = try open()
        db.beginWrite()
        try db.add(note("a"))
        db.cancelWrite()
        #expect(try db.outboxOperations(after: 0).isEmpty)
        try db.write { try db.add(note("b")) }
        #expect(try db.outboxOperations(after: 0).map(\.sequence) == [1])
    }

    @Test func theFileStillVerifies() throws {
        let db = try open()
        try db.write { try db.add(note("a", title: "x")) }
        let report = try db.verify()
        #expect(report.problems.isEmpty, "\(report.problems)")
    }
}
