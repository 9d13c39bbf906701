import Foundation
import Testing
@testable import ObjDB

final class Ticket: Object {
    @Persisted(primaryKey: true, autoIncrement: true) var id: Int = 0
    @Persisted var title: String = ""
}

/// `autoIncrement` without `primaryKey`: refused at discovery.
final class LooseCounter: Object {
    @Persisted(primaryKey: false, autoIncrement: true) var id: Int = 0
}

/// The same class as ``Ticket`` before it was auto-increment.
final class PlainTicket: Object {
    override class var className: String { "Ticket" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var title: String = ""
}

struct AutoIncrementKeyTests {
    let directory = TemporaryDirectory()

    func open(_ types: [ObjectBase.Type] = [Ticket.self]) throws -> Database {
        try directory.open(types)
    }

    func ticket(_ title: String, id: Int = 0) -> Ticket {
        let ticket = Ticket()
        ticket.id = id
        ticket.title = title
        return ticket
    }

    @Test func idsOneTwoThreeAreAssigned() throws {
        let db = try open()
        let tickets = [ticket("a"), ticket("b"), ticket("c")]
        try db.write { for t in tickets { try db.add(t) } }
        #expect(tickets.map(\.id) == [1, 2, 3])
        #expect(db.objects(Ticket.self).map(\.id).sorted() == [1, 2, 3])
        #expect(db.object(ofType: Ticket.self, forPrimaryKey: 2)?.title == "b")
    }

    @Test func createAndDynamicCreateAssignIds() throws {
        let db = try open()
        let created = try db.write { try db.create(Ticket.self, value: ["title": "x"]) }
        #expect(created.id == 1)
        let upserted = try db.write { try db.create(Ticket.self, value: ["title": "y"], update: .modified) }
        #expect(upserted.id == 2)
        let seq = try db.write { () -> Int in
            let batch = [ticket("p"), ticket("q")]
            try db.add(batch, update: .modified)
            return batch.map(\.id).max() ?? 0
        }
        #expect(seq == 4)
    }

    @Test func deletingTheHighestDoesNotFreeItsId() throws {
        let db = try open()
        try db.write { for title in ["a", "b", "c"] { try db.add(ticket(title)) } }
        try db.write { if let t = db.object(ofType: Ticket.self, forPrimaryKey: 3) { db.delete(t) } }
        let next = ticket("d")
        try db.write { try db.add(next) }
        #expect(next.id == 4)
        try db.write { db.deleteAll() }
        let after = ticket("e")
        try db.write { try db.add(after) }
        #expect(after.id == 5)
    }

    @Test func anExplicitIdIsKeptAndMovesTheCounter() throws {
        let db = try open()
        try db.write {
            try db.add(ticket("first"))
            try db.add(ticket("explicit", id: 10))
            try db.add(ticket("after"))
            try db.add(ticket("below", id: 5))
            try db.add(ticket("later"))
        }
        #expect(db.objects(Ticket.self).sorted(by: \.id).map(\.id) == [1, 5, 10, 11, 12])
        try db.write {
            let error = try #require(throws: ObjDBError.self) { try db.add(ticket("clash", id: 10)) }
            #expect(error.code == .primaryKeyExists)
        }
    }

    @Test func aRolledBackTransactionConsumesNoIds() throws {
        let db = try open()
        try db.write { try db.add(ticket("a")) }
        db.beginWrite()
        let lost = ticket("lost")
        try db.add(lost)
        #expect(lost.id == 2)
        db.cancelWrite()
        let kept = ticket("kept")
        try db.write { try db.add(kept) }
        #expect(kept.id == 2)
    }

    @Test func reopeningContinuesTheSequence() throws {
        do {
            let db = try open()
            try db.write { for title in ["a", "b", "c"] { try db.add(ticket(title)) } }
            try db.write { if let t = db.object(ofType: Ticket.self, forPrimaryKey: 3) { db.delete(t) } }
        }
        let db = try open()
        let next = ticket("d")
        try db.write { try db.add(next) }
        #expect(next.id == 4)
        let property = try #require(db.schema["Ticket"]?["id"])
        #expect(property.isAutoIncrement && property.isPrimaryKey)
        #expect(property.description == "id: Int (primary key) (auto-increment)")
    }

    @Test func twoInstancesGetDistinctIds() throws {
        let url = directory.file()
        let perThread = 40
        let results = LockedIDs()
        let threads = (0..<2).map { _ in
            Thread {
                do {
                    let db = try Database(configuration: Configuration(fileURL: url, objectTypes: [Ticket.self]))
                    for i in 0..<perThread {
                        let t = Ticket()
                        t.title = "\(i)"
                        try db.write { try db.add(t) }
                        results.append(t.id)
                    }
                } catch {
                    results.fail("\(error)")
                }
            }
        }
        let db = try open()   // creates the class before the threads race
        try db.write { try db.add(ticket("seed")) }
        threads.forEach { $0.start() }
        let deadline = Date().addingTimeInterval(60)
        while results.count < 2 * perThread && results.failures.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(results.failures.isEmpty)
        #expect(results.ids.count == 2 * perThread)
        #expect(Set(results.ids).count == 2 * perThread)
        #expect(Set(results.ids) == Set(2...(2 * perThread + 1)))
    }

    @Test func aClassThatBecomesAutoIncrementContinuesAfterItsLargestId() throws {
        do {
            let db = try open([PlainTicket.self])
            try db.write {
                for id in [3, 7] {
                    let t = PlainTicket()
                    t.id = id
                    try db.add(t)
                }
            }
        }
        let db = try open()
        let next = ticket("n")
        try db.write { try db.add(next) }
        #expect(next.id == 8)
    }

    /// The same in an encrypted file, whose primary-key table is keyed by hashes in no order of
    /// the ids: the largest id is found in the rows.
    @Test func anEncryptedClassThatBecomesAutoIncrementContinuesAfterItsLargestId() throws {
        func configuration(_ types: [ObjectBase.Type]) -> Configuration {
            var config = directory.configuration(types)
            config.encryptionKey = Data(repeating: 5, count: 64)
            return config
        }
        let ids = [3, 7, 5, 1, 12, 9, 2, 11, 4]
        do {
            let db = try Database(configuration: configuration([PlainTicket.self]))
            try db.write {
                for id in ids {
                    let t = PlainTicket()
                    t.id = id
                    try db.add(t)
                }
            }
        }
        let db = try Database(configuration: configuration([Ticket.self]))
        let next = ticket("n")
        try db.write { try db.add(next) }
        #expect(next.id == 13)
        // The counter is stored now: the next transaction goes on from it.
        let after = ticket("m")
        try db.write { try db.add(after) }
        #expect(after.id == 14)
    }

    @Test func autoIncrementWithoutPrimaryKeyIsRefused() throws {
        let error = try #require(throws: ObjDBError.self) { try SchemaDiscovery.layout(of: LooseCounter.self) }
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("'LooseCounter.id' is auto-increment"))
        #expect(error.message.contains("not the primary key"))
    }

    @Test func storedSchemaWithoutTheFieldDecodes() throws {
        let json = #"{"classes":[{"id":1,"name":"A","nextPropertyID":2,"properties":[{"id":1,"name":"id","type":"int","bits":64,"optional":false,"primaryKey":true,"indexed":false}]}],"nextClassID":2}"#
        let stored = try Array(json.utf8).withUnsafeBytes { try StoredSchema.decode($0, path: nil) }
        let id = try #require(stored.schema["A"]?["id"])
        #expect(!id.isAutoIncrement && id.timestamp == nil)
    }
}

/// Ids collected from several threads.
final class LockedIDs: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Int] = []
    private var errors: [String] = []
    func append(_ id: Int) { lock.withLock { storage.append(id) } }
    func fail(_ message: String) { lock.withLock { errors.append(message) } }
    var ids: [Int] { lock.withLock { storage } }
    var count: Int { lock.withLock { storage.count } }
    var failures: [String] { lock.withLock { errors } }
}
