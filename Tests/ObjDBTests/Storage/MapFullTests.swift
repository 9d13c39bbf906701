import Foundation
import Testing
@_spi(Inspection) import ObjDB
import ObjDBTestModels

struct MapFullTests {
    let directory = TemporaryDirectory()

    func tinyConfiguration() -> Configuration {
        var config = directory.configuration([Note.self])
        config.maximumSize = 256 * 1024
        return config
    }

    func note(_ i: Int) -> Note {
        let note = Note()
        note.text = "\(i):" + String(repeating: "x", count: 2_000)
        return note
    }

    @Test func fullMapRollsBackTheTransactionAndKeepsEarlierData() throws {
        let db = try Database(configuration: tinyConfiguration())
        var committed = 0
        var failure: ObjDBError?
        while failure == nil && committed < 1_000 {
            do {
                try db.write { for i in 0..<10 { try db.add(note(committed + i)) } }
                committed += 10
            } catch let error as ObjDBError {
                failure = error
            }
        }
        let error = try #require(failure)
        #expect(error.code == .mapFull)
        // Refused by ObjDB's check at commit, before LMDB's map (which is larger by the reserve
        // for deletes) is full.
        #expect(error.lmdbCode == nil)
        #expect(error.message.contains("maximumSize"))
        #expect(committed > 0)
        #expect(!db.isInWriteTransaction)
        #expect(db.objects(Note.self).count == committed)
        // The file still opens and holds exactly the committed notes.
        let reopened = try Database(configuration: tinyConfiguration())
        #expect(reopened.objects(Note.self).count == committed)
        #expect(reopened.objects(Note.self).allSatisfy { $0.text.hasSuffix("xxxx") })
        // Deleting at a full map is tested in MapFullReserveTests; raising maximumSize, below.
    }

    @Test func fullMapDuringPropertySetsFailsAtCommit() throws {
        let db = try Database(configuration: tinyConfiguration())
        let notes = (0..<10).map { _ in Note() }
        try db.write { try db.add(notes) }
        let error = try #require(throws: ObjDBError.self) {
            try db.write {
                // Rows grow to 10 × 40 KB, beyond the 256 KB map.
                for round in 1...10 {
                    for note in notes { note.text = String(repeating: "y", count: 4_000 * round) }
                }
            }
        }
        #expect(error.code == .mapFull)
        #expect(notes.allSatisfy { $0.text == "" })
    }

    @Test func raisingTheLimitOnReopenAllowsMore() throws {
        var committed = 0
        do {
            let db = try Database(configuration: tinyConfiguration())
            while true {
                do { try db.write { try db.add(note(committed)) }; committed += 1 } catch { break }
            }
        }
        var bigger = tinyConfiguration()
        bigger.maximumSize = 4 << 20
        let db = try Database(configuration: bigger)
        try db.write { for i in 0..<50 { try db.add(note(i)) } }
        #expect(db.objects(Note.self).count == committed + 50)
    }
}
