import Foundation
import Testing
@testable import ObjDB

final class Memo: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var text: String = ""
    @Persisted var tags: List<String>
    @Persisted(.createdAt) var created: Date
    @Persisted(.modifiedAt) var modified: Date
}

struct TimestampPropertyTests {
    let directory = TemporaryDirectory()
    let unset = Date(timeIntervalSinceReferenceDate: 0)

    func open() throws -> Database { try directory.open([Memo.self]) }

    func memo(_ id: Int, _ text: String = "") -> Memo {
        let memo = Memo()
        memo.id = id
        memo.text = text
        return memo
    }

    @Test func addStampsBothDatesOncePerTransaction() throws {
        let db = try open()
        let before = Date()
        let memos = [memo(1), memo(2), memo(3)]
        try db.write {
            try db.add(memos[0])
            Thread.sleep(forTimeInterval: 0.01)
            try db.add(memos[1])
            _ = try db.create(Memo.self, value: ["id": 3])
        }
        let stored = db.objects(Memo.self).sorted(by: \.id).map { ($0.created, $0.modified) }
        #expect(stored.count == 3)
        let stamp = stored[0].0
        #expect(stamp >= before && stamp <= Date())
        #expect(stored.allSatisfy { $0.0 == stamp && $0.1 == stamp })
    }

    @Test func aLaterWriteChangesModifiedButNotCreated() throws {
        let db = try open()
        let m = memo(1, "a")
        try db.write { try db.add(m) }
        let created = m.created
        Thread.sleep(forTimeInterval: 0.01)
        try db.write { m.text = "b" }
        #expect(m.created == created)
        #expect(m.modified > created)
        let afterText = m.modified
        Thread.sleep(forTimeInterval: 0.01)
        try db.write { m.tags.append("x") }    // a collection edit changes the object too
        #expect(m.modified > afterText)
        #expect(m.created == created)
    }

    @Test func anUnchangedObjectKeepsItsModifiedDate() throws {
        let db = try open()
        let m = memo(1, "a")
        let other = memo(2, "b")
        try db.write { try db.add([m, other]) }
        let stamp = m.modified
        Thread.sleep(forTimeInterval: 0.01)
        try db.write {
            other.text = "changed"
            m.text = "a"                                   // the same value: no change
            try db.add(memo(1, "a"), update: .modified)   // an identical copy: no change
        }
        #expect(m.modified == stamp)
        #expect(m.created == stamp)
        #expect(other.modified > stamp && other.created == stamp)
    }

    @Test func anUpsertStampsModifiedAndKeepsCreated() throws {
        let db = try open()
        try db.write { try db.add(memo(1, "a")) }
        let stored = try #require(db.object(ofType: Memo.self, forPrimaryKey: 1))
        let created = stored.created
        Thread.sleep(forTimeInterval: 0.01)
        try db.write { try db.add(memo(1, "new"), update: .modified) }
        #expect(stored.text == "new")
        #expect(stored.created == created)
        #expect(stored.modified > created)
    }

    @Test func explicitDatesAtAddAreKept() throws {
        let db = try open()
        let old = Date(timeIntervalSince1970: 1_000_000)
        let m = memo(1)
        m.created = old
        m.modified = old
        try db.write { try db.add(m) }
        #expect(m.created == old && m.modified == old)
    }

    @Test func theSchemaListsTheDates() throws {
        let db = try open()
        try db.write { try db.add(memo(1)) }
        let schema = try #require(db.schema["Memo"])
        #expect(schema["created"]?.timestamp == .createdAt)
        #expect(schema["modified"]?.timestamp == .modifiedAt)
        #expect(schema["text"]?.timestamp == nil)
        #expect(schema["modified"]?.description == "modified: Date (modifiedAt)")
        let reopened = try open()
        #expect(reopened.schema["Memo"]?["created"]?.timestamp == .createdAt)
    }

    @Test func aRolledBackWriteLeavesTheDates() throws {
        let db = try open()
        let m = memo(1, "a")
        try db.write { try db.add(m) }
        let stamp = m.modified
        db.beginWrite()
        m.text = "b"
        db.cancelWrite()
        #expect(m.modified == stamp && m.text == "a")
        #expect(m.modified != unset)
    }
}
