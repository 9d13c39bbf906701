import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Damage that used to stop a plain open's reads (found by the reliability harness's damaged
/// files): a backlink naming an object that does not exist, and a row on overflow pages whose
/// node claims more bytes than the file has. Both are reported through the read-failure channel
/// and the reads go on.
@Suite(.serialized)
struct DamagedReferenceTests {
    let directory = TemporaryDirectory()

    @Test func aBacklinkToAMissingObjectReadsAsDefaultsAndIsReported() throws {
        let failures = FailureBox()
        var configuration = directory.configuration([Owner.self, Pet.self, Address.self, Location.self])
        configuration.readFailureHandler = { failures.append($0) }
        let db = try Database(configuration: configuration)
        let ann = owner(7, "Ann")
        ann.pets.append(pet(1, "Rex"))
        try db.write { try db.add(ann) }
        // Remove Ann's row behind the library's back: the backlink of Rex still names her.
        let info = try #require(try db.classInfo(for: Owner.self))
        let key = ann._objdbKey
        let write = try WriteTransaction(db.environment)
        #expect(try write.txn.delete(info.objectsTable, key: key))
        try write.commit()
        db.refresh()

        let rex = try #require(db.object(ofType: Pet.self, forPrimaryKey: 1))
        #expect(rex.owners.count == 1)
        let dangling = rex.owners[0]
        #expect(dangling.database == nil)
        #expect(dangling.name == "")
        #expect(failures.errors.contains { $0.code == .corruptFile && $0.message.contains("'Owner' with object key \(key), which does not exist") })
        #expect(try !db.verify().isHealthy)
    }

    @Test func aRowClaimingBytesPastTheEndOfTheFileIsReported() throws {
        let url = directory.file("big.objdb")
        let failures = FailureBox()
        var configuration = Configuration(fileURL: url, objectTypes: [Note.self])
        configuration.readFailureHandler = { failures.append($0) }
        let db = try Database(configuration: configuration)
        let note = Note()
        note.text = String(repeating: "x", count: 20_000)  // on overflow pages
        try db.write { try db.add(note) }
        let key = note._objdbKey
        // Damage the open file (the open-time structure check is behind us): the leaf node of
        // the row (8-byte key, F_BIGDATA) now claims 1.5 GB.
        let bytes = try [UInt8](Data(contentsOf: url))
        var pattern: [UInt8] = [0x01, 0x00, 0x08, 0x00]  // flags F_BIGDATA, key size 8
        withUnsafeBytes(of: key.littleEndian) { pattern += $0 }
        let offsets = stride(from: 4, through: bytes.count - pattern.count, by: 2).filter {
            Array(bytes[$0..<$0 + pattern.count]) == pattern
        }
        try #require(!offsets.isEmpty)
        let handle = try FileHandle(forWritingTo: url)
        for offset in offsets {
            try handle.seek(toOffset: UInt64(offset - 2))
            try handle.write(contentsOf: [0x00, 0x60])  // the high half of the size
        }
        try handle.close()

        let reader = try Database(configuration: configuration)
        let texts = reader.objects(Note.self).map(\.text)
        #expect(texts == [""])  // the row reads as damaged: defaults
        #expect(failures.errors.contains { $0.code == .corruptFile && $0.message.contains("its 0 bytes are not a row") })
        failures.removeAll()
        #expect(reader.objects(Note.self).first?.text == "")  // through the first row
        #expect(failures.errors.contains { $0.message.contains("its 0 bytes are not a row") })
    }

    /// The check of values off their leaf page remembers the file's size; a file that grew since
    /// must not make a valid row past the remembered size read as damaged.
    @Test func rowsOnOverflowPagesReadAfterTheFileGrew() throws {
        let failures = FailureBox()
        var configuration = Configuration(fileURL: directory.file("growing.objdb"), objectTypes: [Note.self])
        configuration.readFailureHandler = { failures.append($0) }
        let db = try Database(configuration: configuration)
        let first = Note()
        first.text = String(repeating: "a", count: 20_000)  // on overflow pages
        try db.write { try db.add(first) }
        #expect(db.objects(Note.self).map(\.text.count) == [20_000])  // the size is read here
        let sizeBefore = db.fileSize
        for round in 0..<20 {
            let note = Note()
            note.text = String(repeating: "b", count: 20_000 + round)
            try db.write { try db.add(note) }
        }
        #expect(db.fileSize > sizeBefore)
        #expect(db.objects(Note.self).map(\.text.count) == [20_000] + (0..<20).map { 20_000 + $0 })
        #expect(failures.errors.isEmpty)
    }
}
