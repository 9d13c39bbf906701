import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// The reserve for deletes: at a full map, transactions that only delete still commit, and
/// writes fill what they freed, up to the same limit.
struct MapFullReserveTests {
    let directory = TemporaryDirectory()
    static let maximumSize = 256 * 1024
    /// The reserve as the documentation states it: 1 % of maximumSize, at least 1 MiB.
    static let reserve = max(1 << 20, maximumSize / 100)
    /// LMDB's page size for a new file: the machine's.
    static let page = Int(getpagesize())

    func configuration() -> Configuration {
        var config = directory.configuration([Note.self])
        config.maximumSize = Self.maximumSize
        return config
    }

    static func note(_ label: String) -> Note {
        let note = Note()
        note.text = label + ":" + String(repeating: "x", count: 2_000)
        return note
    }

    /// Adds one note per transaction until the database is full; returns the number added and
    /// the error that stopped it.
    static func fill(_ db: Database, prefix: String) throws -> (added: Int, error: ObjDBError) {
        var added = 0
        while true {
            do {
                try db.write { try db.add(note("\(prefix)\(added)")) }
                added += 1
            } catch let error as ObjDBError {
                return (added, error)
            }
            #expect(db.fileSize <= maximumSize + reserve)
            guard added < 10_000 else { throw ObjDBError(.storage, "the map never filled") }
        }
    }

    @Test func aFullMapRefusesWritesWithAMessageThatSaysDeletesStillWork() throws {
        let db = try Database(configuration: configuration())
        let (added, error) = try Self.fill(db, prefix: "a")
        #expect(added > 0)
        #expect(error.code == .mapFull)
        #expect(error.message.contains("this write transaction adds or changes data and would make the file larger than Configuration.maximumSize (262144 bytes)"))
        #expect(error.message.contains("Transactions that only delete objects still work (ObjDB keeps \(Self.reserve) bytes beyond maximumSize for them)"))
        #expect(error.message.contains("reopen the database with a larger maximumSize"))
        // Refused at maximumSize, not at the end of the map: within a page or two (LMDB's own
        // records at commit) of the limit, and not short of it by more than a transaction's growth.
        #expect(db.fileSize <= Self.maximumSize + 2 * Self.page)
        #expect(db.fileSize > Self.maximumSize - 4 * Self.page)
        #expect(db.objects(Note.self).count == added)
    }

    @Test func deletesCommitAtAFullMapAndWritesWorkAgain() throws {
        let db = try Database(configuration: configuration())
        let (added, _) = try Self.fill(db, prefix: "a")
        // Every other note: every leaf page is copied, so the delete needs pages beyond the limit.
        try db.write {
            for (index, note) in db.objects(Note.self).enumerated() where index % 2 == 0 { db.delete(note) }
        }
        let kept = added / 2
        #expect(db.objects(Note.self).count == kept)
        #expect(db.fileSize > Self.maximumSize)
        #expect(db.fileSize <= Self.maximumSize + Self.reserve)
        // A write of several objects right after the delete finds the space it freed.
        try db.write { for i in 0..<6 { try db.add(Self.note("b\(i)")) } }
        #expect(db.objects(Note.self).count == kept + 6)
        // Until the same limit: no more notes than the first fill held, give or take the two
        // notes of one page (the limit is on pages, and deletes leave pages packed differently).
        let (refilled, error) = try Self.fill(db, prefix: "c")
        #expect(error.code == .mapFull)
        #expect(kept + 6 + refilled <= added + 2)
        #expect(db.fileSize <= Self.maximumSize + Self.reserve)
        // Everything committed is there after reopening.
        let count = kept + 6 + refilled
        let reopened = try Database(configuration: configuration())
        #expect(reopened.objects(Note.self).count == count)
        #expect(reopened.objects(Note.self).allSatisfy { $0.text.hasSuffix("xxxx") })
    }

    @Test func writesRefillWhatContiguousDeletesFreedUpToTheSameLimit() throws {
        let db = try Database(configuration: configuration())
        let (added, _) = try Self.fill(db, prefix: "a")
        let sizeWhenFull = db.fileSize
        // The oldest half: whole pages become free.
        try db.write {
            let notes = Array(db.objects(Note.self))
            for note in notes.prefix(added / 2) { db.delete(note) }
        }
        #expect(db.objects(Note.self).count == added - added / 2)
        let (refilled, error) = try Self.fill(db, prefix: "b")
        #expect(error.code == .mapFull)
        // The same amount of data as before fits again (give or take a page of two notes), and
        // the file did not grow for it.
        #expect(abs(added - added / 2 + refilled - added) <= 2)
        #expect(db.fileSize <= max(sizeWhenFull, Self.maximumSize) + 2 * Self.page)
    }

    @Test func oneLargeInsertBeyondTheLimitIsRefusedAndKeepsNothing() throws {
        let db = try Database(configuration: configuration())
        try db.write { try db.add(Self.note("first")) }
        let before = db.fileSize
        // About 400 KB of notes: more than maximumSize, much less than maximumSize + reserve.
        let error = try #require(throws: ObjDBError.self) {
            try db.write { for i in 0..<200 { try db.add(Self.note("big\(i)")) } }
        }
        #expect(error.code == .mapFull)
        #expect(error.message.contains("adds or changes data"))
        #expect(db.objects(Note.self).count == 1)
        #expect(db.fileSize <= max(before, Self.maximumSize))
    }

    @Test func aFullMapInADeleteOnlyTransactionSaysTheReserveWasTooSmall() throws {
        let db = try Database(configuration: configuration())
        let full = ObjDBError.lmdb(-30792, operation: "mdb_del", path: db.path)
        let deleting = db.environment.explainFullMap(full, onlyDeletes: true)
        #expect(deleting.code == .mapFull && deleting.lmdbCode == -30792)
        #expect(deleting.message.contains("this write transaction only deletes, but needed more room than the \(Self.reserve) bytes ObjDB keeps beyond Configuration.maximumSize (262144 bytes) for deletes"))
        #expect(deleting.message.contains("Delete fewer objects per transaction"))
        let adding = db.environment.explainFullMap(full, onlyDeletes: false)
        #expect(adding.message.contains("Transactions that only delete objects still work"))
    }

    /// When a cross-check of the page count disagrees, the process turns the reserve off and
    /// full maps behave as in plain LMDB, at maximumSize. In a child process: the switch is
    /// process-wide.
    @Test func aFailedCrossCheckFallsBackToThePlainLimit() async {
        await #expect(processExitsWith: .success) {
            let directory = TemporaryDirectory()
            var config = directory.configuration([Note.self])
            config.maximumSize = MapFullReserveTests.maximumSize
            let db = try Database(configuration: config)
            SpaceReserve.disagreeAtNextCheckForTesting()
            try db.write { try db.add(MapFullReserveTests.note("first")) }
            guard SpaceReserve.disabledBecause?.contains("disagreement forced by a test") == true else { exit(10) }
            let (added, error) = try MapFullReserveTests.fill(db, prefix: "a")
            // LMDB's own limit: the map, shrunk back to maximumSize.
            guard added > 0, error.code == .mapFull, error.lmdbCode == -30792 else { exit(11) }
            guard error.message.contains("ObjDB keeps no reserve for deletes") else { exit(12) }
            guard db.fileSize <= MapFullReserveTests.maximumSize else { exit(13) }
            // Without the reserve, a delete that copies every page commits only if free pages
            // happen to be left (as in plain LMDB); either way the file stays within the limit.
            do {
                try db.write {
                    for (index, note) in db.objects(Note.self).enumerated() where index % 2 == 0 { db.delete(note) }
                }
            } catch let error as ObjDBError {
                guard error.code == .mapFull else { exit(15) }
            }
            guard db.fileSize <= MapFullReserveTests.maximumSize else { exit(14) }
        }
    }
}
