import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

struct ConfigurationTests {
    let directory = TemporaryDirectory()

    @Test func inMemoryDatabasesAreSharedByIdentifierAndVanish() throws {
        let identifier = "memory-\(UUID().uuidString)"
        var path = ""
        do {
            let a = try Database(configuration: .inMemory(identifier: identifier))
            let b = try Database(configuration: .inMemory(identifier: identifier))
            path = a.path
            try a.write { try a.add(person(1, "Ann")) }
            b.refresh()
            #expect(b.objects(Person.self).count == 1)
            let other = try Database(configuration: .inMemory(identifier: identifier + "-other"))
            #expect(other.objects(Person.self).isEmpty)
            #expect(FileManager.default.fileExists(atPath: path))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        let again = try Database(configuration: .inMemory(identifier: identifier))
        #expect(again.objects(Person.self).isEmpty)
    }

    @Test func fileURLAndInMemoryIdentifierExcludeEachOther() {
        var config = Configuration(fileURL: directory.file())
        config.inMemoryIdentifier = "x"
        #expect(config.fileURL == nil)
        config.fileURL = directory.file()
        #expect(config.inMemoryIdentifier == nil)
    }

    @Test func deleteFilesAndFileExists() throws {
        let config = directory.configuration()
        #expect(!Database.fileExists(for: config))
        do {
            let db = try Database(configuration: config)
            try db.write { try db.add(person(1, "Ann")) }
            #expect(Database.fileExists(for: config))
            let busy = try #require(throws: ObjDBError.self) { try Database.deleteFiles(for: config) }
            #expect(busy.code == .fileInUse)
        }
        #expect(try Database.deleteFiles(for: config))
        #expect(!Database.fileExists(for: config))
        #expect(!FileManager.default.fileExists(atPath: directory.file().path + "-lock"))
        #expect(try !Database.deleteFiles(for: config))
        let reopened = try Database(configuration: config)
        #expect(reopened.objects(Person.self).isEmpty)
    }

    @Test func schemaVersionIsStoredAndReadable() throws {
        var config = directory.configuration()
        config.schemaVersion = 3
        do { _ = try Database(configuration: config) }
        #expect(try Database.schemaVersion(at: directory.file()) == 3)
        config.schemaVersion = 5
        do { _ = try Database(configuration: config) }
        #expect(try Database.schemaVersion(at: directory.file()) == 5)
        config.schemaVersion = 4
        let error = try #require(throws: ObjDBError.self) { try Database(configuration: config) }
        #expect(error.code == .migrationRequired)
        #expect(error.message.contains("lower than the file's schema version 5"))
        #expect(throws: ObjDBError.self) { try Database.schemaVersion(at: directory.file("missing.objdb")) }
    }

    @Test func missingDirectoryIsAClearError() {
        let config = Configuration(fileURL: directory.url.appendingPathComponent("no/such/dir/x.objdb"))
        let error = #expect(throws: ObjDBError.self) { try Database(configuration: config) }
        #expect(error?.code == .fileNotFound)
    }

    @Test func durabilityMustAgreeWithinAProcess() throws {
        var fast = directory.configuration()
        fast.durability = .noSync
        let db = try Database(configuration: fast)
        try db.write { try db.add(person(1, "Ann")) }
        let error = try #require(throws: ObjDBError.self) { try Database(configuration: directory.configuration()) }
        #expect(error.code == .incompatibleConfiguration)
        let second = try Database(configuration: fast)
        #expect(second.objects(Person.self).count == 1)
    }

    @Test func readOnlyAfterReadWriteSharesTheEnvironmentButNotTheReverse() throws {
        do { _ = try directory.open() }
        var readOnly = directory.configuration()
        readOnly.readOnly = true
        let reader = try Database(configuration: readOnly)
        let error = try #require(throws: ObjDBError.self) { try directory.open() }
        #expect(error.code == .incompatibleConfiguration)
        _ = reader
    }
}
