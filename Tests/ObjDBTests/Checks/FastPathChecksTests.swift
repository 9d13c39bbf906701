import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// The fast paths are checked against their slow twins in builds with internal checks (`swift
/// test` builds them), and each can be switched off on its own (`OBJDB_DISABLE_FAST_PATHS`).
/// Each test runs in a child process: the switches are read once per process.
struct FastPathChecksTests {
    /// A database of people added in primary-key order, then a few added out of order.
    static func populate(_ directory: TemporaryDirectory) throws -> Database {
        let db = try directory.open([Person.self])
        try db.write {
            for i in 1...200 { try db.add(person(i, "name \(i % 13)", age: i % 90)) }
            // Ids 300 down to 291 get keys 201 to 210: the distance of ids 1…200 is wrong for them.
            for i in stride(from: 300, through: 291, by: -1) { try db.add(person(i, "late \(i)", age: i % 90)) }
        }
        return db
    }

    @Test func aWrongRowKernelIsCaughtByTheInternalCheck() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OBJDB_BREAK_FAST_PATHS", "rowKernels", 1)
            let directory = TemporaryDirectory()
            let db = try FastPathChecksTests.populate(directory)
            _ = try db.objects(Person.self).filter("age > 50").count
        }
        let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("Internal check failed: the row kernel"), "\(message)")
        #expect(message.contains("disagrees with the filter's general loop"), "\(message)")
    }

    @Test func aWrongKeyGuessIsCaughtByTheInternalCheck() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OBJDB_BREAK_FAST_PATHS", "keyGuesses", 1)
            let directory = TemporaryDirectory()
            let db = try FastPathChecksTests.populate(directory)
            // Lookups in key order teach the distance; then a key stored out of order is guessed,
            // and the broken guess takes the row at the guessed key without checking it.
            for id in 1...10 { _ = db.object(ofType: Person.self, forPrimaryKey: id) }
            _ = db.object(ofType: Person.self, forPrimaryKey: 205)
        }
        let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("Internal check failed: the guessed object key"), "\(message)")
    }

    @Test func aWrongPointLookupIsCaughtByTheInternalCheck() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OBJDB_BREAK_FAST_PATHS", "indexPointLookups", 1)
            let directory = TemporaryDirectory()
            let db = try FastPathChecksTests.populate(directory)
            _ = db.objects(Person.self).where { $0.name == "late 295" }.first
        }
        let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("Internal check failed: the point lookup's object key"), "\(message)")
    }

    @Test func aWrongIncrementalUpdateIsCaughtByTheInternalCheck() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OBJDB_BREAK_FAST_PATHS", "incrementalResults", 1)
            let directory = TemporaryDirectory()
            let db = try FastPathChecksTests.populate(directory)
            let token = try db.objects(Person.self).filter("age > 50").observe { _ in }
            db.refresh()
            try db.write { try db.add(person(1_000, "new", age: 60)) }
            withExtendedLifetime(token) {}
        }
        let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("Internal check failed: incremental results"), "\(message)")
    }

    @Test func aWrongSortedIncrementalUpdateIsCaughtByTheInternalCheck() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OBJDB_BREAK_FAST_PATHS", "incrementalSortedResults", 1)
            let directory = TemporaryDirectory()
            let db = try FastPathChecksTests.populate(directory)
            let token = db.objects(Person.self).sorted(by: \.id).observe { _ in }
            db.refresh()
            try db.write { try db.add(person(1_000, "new", age: 60)) }
            withExtendedLifetime(token) {}
        }
        let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("Internal check failed: incremental results"), "\(message)")
    }

    @Test func aWrongSectionsUpdateIsCaughtByTheInternalCheck() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OBJDB_BREAK_FAST_PATHS", "incrementalSections", 1)
            let directory = TemporaryDirectory()
            let db = try FastPathChecksTests.populate(directory)
            let token = db.objects(Person.self).sectioned(by: \.age).observe { _ in }
            db.refresh()
            try db.write { try db.add(person(1_000, "new", age: 60)) }
            withExtendedLifetime(token) {}
        }
        let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("Internal check failed: incremental sections"), "\(message)")
    }

    @Test(.enabled(if: StoreCipher.hasDirectCipher))
    func aWrongDirectCipherIsCaughtByTheInternalCheck() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OBJDB_BREAK_FAST_PATHS", "directCipher", 1)
            let directory = TemporaryDirectory()
            var config = directory.configuration([Person.self])
            config.encryptionKey = Data(repeating: 7, count: 64)
            let db = try Database(configuration: config)
            try db.write { try db.add(person(1, "Ann")) }
            _ = db.refresh()
            _ = db.object(ofType: Person.self, forPrimaryKey: 1)?.name
        }
        let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("Internal check failed: BoringSSL and swift-crypto disagree"), "\(message)")
    }

    /// Adds ten people in one transaction to a new encrypted file: the writes a broken
    /// encryption fast path is caught in.
    static func addTenPeopleToAnEncryptedFile() throws {
        let directory = TemporaryDirectory()
        var config = directory.configuration([Person.self])
        config.encryptionKey = Data(repeating: 7, count: 64)
        let db = try Database(configuration: config)
        try db.write { for id in 1...10 { try db.add(person(id, "P\(id)")) } }
    }

    @Test func aLostDeferredKeyPutIsCaughtByTheInternalCheck() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OBJDB_BREAK_FAST_PATHS", "deferredKeyPuts", 1)
            try FastPathChecksTests.addTenPeopleToAnEncryptedFile()
        }
        let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("Internal check failed: deferredKeyPuts: an entry written is not in its table"), "\(message)")
    }

    @Test func aWrongRowBucketIsCaughtByTheInternalCheck() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OBJDB_BREAK_FAST_PATHS", "rowBuckets", 1)
            try FastPathChecksTests.addTenPeopleToAnEncryptedFile()
        }
        let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("Internal check failed: rowBuckets: a sealed bucket does not open to the values written"), "\(message)")
    }

    /// With every fast path switched off, every query gives what it gives with them on, and
    /// the internal checks (which compare the plan's answer with the reference interpreter)
    /// pass too.
    @Test func everyFastPathSwitchedOffGivesTheSameAnswers() async {
        await #expect(processExitsWith: .success) {
            setenv("OBJDB_DISABLE_FAST_PATHS", "all", 1)
            guard FastPaths.enabled.isEmpty else { exit(10) }
            let directory = TemporaryDirectory()
            let db = try FastPathChecksTests.populate(directory)
            let people = db.objects(Person.self)
            guard try people.filter("age > 50").count == (1...200).filter({ $0 % 90 > 50 }).count + (291...300).filter({ $0 % 90 > 50 }).count else { exit(11) }
            guard try people.filter("age > 50 AND age < 60").sorted(by: \.age).prefix(3).map(\.id) == [51, 141, 52] else { exit(12) }
            guard db.object(ofType: Person.self, forPrimaryKey: 205) == nil,
                db.object(ofType: Person.self, forPrimaryKey: 295)?.name == "late 295"
            else { exit(13) }
            guard Array(people).count == 210 else { exit(14) }
        }
    }

    @Test func aWrongTypedDownloadValueIsCaughtByTheInternalCheck() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OBJDB_BREAK_FAST_PATHS", "typedDownloads", 1)
            let directory = TemporaryDirectory()
            let db = try directory.open([SyncNote.self, SyncTag.self, SyncPlace.self])
            try db.enableSync(classNames: ["SyncNote", "SyncTag"])
            let batch = SyncObjectBatch(
                className: "SyncTag", propertyNames: ["id", "label"], rows: [.init(primaryKey: .string("t"), values: [.string("t"), .string("L")])])
            try db.applyDownload([batch], isReset: true, classNames: ["SyncTag"], checkpoint: "cp", includedSequence: 0)
        }
        let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("Internal check failed: typedDownloads encoded"), "\(message)")
    }

    @Test func switchNamesParse() {
        #expect(FastPaths(names: "leafPages, keyGuesses") == [.leafPages, .keyGuesses])
        #expect(FastPaths(names: "all") == .all)
        #expect(FastPaths(names: "nonsense,rowKernels") == .rowKernels)
        #expect(FastPaths(names: "") == [])
        #expect(FastPaths(names: "fusedMigrations") == .fusedMigrations)
        #expect(FastPaths(names: "directCipher") == .directCipher)
        #expect(FastPaths(names: "fanoutLookups") == .fanoutLookups)
        #expect(FastPaths(names: "insertColumns") == .insertColumns)
        #expect(FastPaths(names: "deferredKeyPuts") == .deferredKeyPuts)
        #expect(FastPaths(names: "rowBuckets") == .rowBuckets)
        #expect(FastPaths.named.count == 18)
    }

    /// The checks run in this test process, and an application turns them off (or on) with
    /// `OBJDB_INTERNAL_CHECKS`: with `0`, a broken row kernel goes unchecked, and so unbroken.
    @Test func internalChecksRunHereAndFollowTheEnvironment() async {
        #expect(internalChecksEnabled)
        await #expect(processExitsWith: .success) {
            setenv("OBJDB_INTERNAL_CHECKS", "0", 1)
            setenv("OBJDB_BREAK_FAST_PATHS", "rowKernels", 1)
            guard !internalChecksEnabled, FastPaths.broken.isEmpty else { exit(10) }
            let directory = TemporaryDirectory()
            let db = try FastPathChecksTests.populate(directory)
            guard try db.objects(Person.self).filter("age > 50").count == (1...200).filter({ $0 % 90 > 50 }).count + (291...300).filter({ $0 % 90 > 50 }).count
            else { exit(11) }
        }
    }
}
