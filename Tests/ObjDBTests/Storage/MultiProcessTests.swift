import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

@Suite(.serialized)
struct MultiProcessTests {
    let directory = TemporaryDirectory()

    @Test func anotherProcessWritesAndThisOneSeesItAfterRefresh() throws {
        let db = try directory.open([Person.self])
        try db.write { try db.add(person(1, "Ann")) }
        let people = db.objects(Person.self)
        #expect(people.count == 1)
        let ann = try #require(db.object(ofType: Person.self, forPrimaryKey: 1))

        let added = try HelperProcess.run(["put", directory.file().path, "2", "Bob"])
        #expect(added.status == 0, "\(added.error)")
        let renamed = try HelperProcess.run(["put", directory.file().path, "1", "Anne"])
        #expect(renamed.status == 0, "\(renamed.error)")

        #expect(people.count == 1 && ann.name == "Ann")   // still on the old version
        #expect(db.refresh())
        #expect(people.count == 2)
        #expect(ann.name == "Anne")
        #expect(db.object(ofType: Person.self, forPrimaryKey: 2)?.name == "Bob")
    }

    @Test func writesWaitForAWriterInAnotherProcess() throws {
        let db = try directory.open([Person.self])
        try db.write { try db.add(person(1, "Ann")) }
        let (process, output, _) = try HelperProcess.start(["hold-write", directory.file().path, "1.0"])
        // Wait until the helper holds the write lock.
        let line = output.fileHandleForReading.availableDataLine()
        #expect(line == "holding")
        let start = Date()
        try db.write { try db.add(person(2, "Bob")) }
        let waited = Date().timeIntervalSince(start)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(waited > 0.3, "the write should have waited for the other process (waited \(waited)s)")
        db.refresh()
        #expect(Set(db.objects(Person.self).map(\.id)) == [1, 2, 1_000_000])
    }

    @Test func anotherProcessReadsWhatThisOneCommitted() throws {
        let db = try directory.open([Person.self])
        try db.write { try db.add((1...5).map { person($0, "P\($0)") }) }
        let counted = try HelperProcess.run(["count", directory.file().path])
        #expect(counted.status == 0, "\(counted.error)")
        #expect(counted.output.trimmingCharacters(in: .whitespacesAndNewlines) == "5")
    }

    /// Another process does not know the keys this one handed out in a rolled-back write, so it
    /// may store an object under one of them: the rolled-back object must not become that one.
    @Test func aRolledBackObjectStaysInvalidatedWhenAnotherProcessReusesItsKey() throws {
        let db = try directory.open([Person.self])
        try db.write { try db.add(person(1, "Ann")) }
        let lost = person(2, "Lost")
        db.beginWrite()
        try db.add(lost)
        let lostKey = lost._objdbKey
        db.cancelWrite()

        let added = try HelperProcess.run(["put", directory.file().path, "3", "Cy"])
        #expect(added.status == 0, "\(added.error)")
        #expect(db.refresh())
        let cy = try #require(db.object(ofType: Person.self, forPrimaryKey: 3))
        #expect(cy._objdbKey == lostKey)   // the other process took the same key
        #expect(lost.isInvalidated)
        #expect(ObjectIdentity(lost) != ObjectIdentity(cy))
        try db.write { db.delete(lost) }   // deleting an invalidated object does nothing
        #expect(db.objects(Person.self).map(\.name) == ["Ann", "Cy"])
    }
}

extension FileHandle {
    /// Reads one line (blocking).
    func availableDataLine() -> String {
        var bytes: [UInt8] = []
        while true {
            let chunk = readData(ofLength: 1)
            guard let byte = chunk.first, byte != UInt8(ascii: "\n") else { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
