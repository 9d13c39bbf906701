import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// Settings that cannot work are refused at open with `incompatibleConfiguration` and a message
/// naming the setting, before any file is created.
struct ConfigurationValidationTests {
    let directory = TemporaryDirectory()

    func refusal(_ config: Configuration) throws -> ObjDBError {
        try #require(throws: ObjDBError.self) { try Database(configuration: config) }
    }

    @Test(arguments: [0, -1, Int.min, 1, 4096])
    func aMaximumSizeBelowTheMinimumIsRefused(size: Int) throws {
        var config = directory.configuration()
        config.maximumSize = size
        let error = try refusal(config)
        #expect(error.code == .incompatibleConfiguration)
        #expect(error.message.contains("Configuration.maximumSize is \(size) bytes; it must be at least \(16 * Int(getpagesize()))"))
        #expect(!FileManager.default.fileExists(atPath: directory.file().path))
        #expect(!FileManager.default.fileExists(atPath: directory.file().path + "-lock"))
    }

    @Test func theMinimumMaximumSizeOpensAndHoldsAnObject() throws {
        #expect(Configuration.minimumMaximumSize == 16 * Int(getpagesize()))
        var config = directory.configuration([Person.self])
        config.maximumSize = Configuration.minimumMaximumSize
        let db = try Database(configuration: config)
        try db.write { try db.add(person(1, "Ann")) }
        #expect(db.objects(Person.self).count == 1)
    }

    @Test func aMaximumSizeTooLargeToMapIsRefused() throws {
        var config = directory.configuration()
        config.maximumSize = Int.max
        let error = try refusal(config)
        #expect(error.code == .incompatibleConfiguration)
        #expect(error.message.contains("Configuration.maximumSize \(Int.max) is too large to map"))
        // Larger than the address space, but no overflow: mmap refuses it.
        config.maximumSize = 1 << 62
        let unmappable = try refusal(config)
        #expect(unmappable.code == .incompatibleConfiguration)
        #expect(unmappable.message.contains("could not be reserved"))
        #expect(unmappable.message.contains("lower maximumSize"))
    }

    @Test func aFileURLThatNamesADirectoryIsRefused() throws {
        let error = try refusal(Configuration(fileURL: directory.url))
        #expect(error.code == .incompatibleConfiguration)
        #expect(error.message.contains("Configuration.fileURL names a directory; point it at a file, such as \(directory.url.appendingPathComponent("default.objdb").path)"))
        #expect(!FileManager.default.fileExists(atPath: directory.url.path + "-lock"))
    }

    @Test func deleteFilesLeavesADirectoryAlone() throws {
        let inside = directory.url.appendingPathComponent("keep.txt")
        try Data("keep".utf8).write(to: inside)
        let config = Configuration(fileURL: directory.url)
        #expect(!Database.fileExists(for: config))
        let error = try #require(throws: ObjDBError.self) { try Database.deleteFiles(for: config) }
        #expect(error.code == .incompatibleConfiguration)
        #expect(FileManager.default.fileExists(atPath: inside.path))
    }

    @Test func aFileURLThatIsNotARegularFileIsRefused() throws {
        let error = try refusal(Configuration(fileURL: URL(fileURLWithPath: "/dev/null")))
        #expect(error.code == .incompatibleConfiguration)
        #expect(error.message.contains("names something that is not a regular file (a character device)"))
    }

    @Test func aURLThatIsNotAFileURLIsRefused() throws {
        let url = try #require(URL(string: "https://example.com/app.objdb"))
        let error = try refusal(Configuration(fileURL: url))
        #expect(error.code == .incompatibleConfiguration)
        #expect(error.message.contains("Configuration.fileURL https://example.com/app.objdb is not a file URL"))
    }

    @Test func readOnlyWithDeleteIfMigrationNeededIsRefusedAndTheFileKept() throws {
        do {
            let db = try directory.open([Person.self])
            try db.write { try db.add(person(1, "Ann")) }
        }
        var config = directory.configuration([ChangedPerson.self])
        config.readOnly = true
        config.deleteDatabaseIfMigrationNeeded = true
        let error = try refusal(config)
        #expect(error.code == .incompatibleConfiguration)
        #expect(error.message.contains("Configuration.readOnly and deleteDatabaseIfMigrationNeeded are both set"))
        let db = try directory.open([Person.self])
        #expect(db.objects(Person.self).count == 1)
    }
}
