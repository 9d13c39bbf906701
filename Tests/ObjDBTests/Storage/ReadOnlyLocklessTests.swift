import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// `readOnly: true` reads a file whose lock file cannot be written or created (a file in an
/// application bundle or a read-only image) by opening it without one (`MDB_NOLOCK`).
///
/// The tests run as root, which permission bits do not stop, so the lock file is made
/// impossible to create in ways that stop root too: a directory where the lock file should be,
/// or a symbolic link into a directory that does not exist.
struct ReadOnlyLocklessTests {
    let directory = TemporaryDirectory()

    /// A database of three people, closed, with its lock file removed.
    func makeFile() throws -> URL {
        do {
            let db = try directory.open([Person.self])
            try db.write { try db.add([person(1, "Ann", age: 30), person(2, "Bob"), person(3, "Cy", age: 9)]) }
        }
        let url = directory.file()
        try FileManager.default.removeItem(atPath: url.path + "-lock")
        return url
    }

    func readOnly(_ url: URL) -> Configuration {
        Configuration(fileURL: url, readOnly: true, objectTypes: [Person.self])
    }

    /// Opens read-only, checks every object and that writes throw `readOnly`.
    func checkReadsAndRefusesWrites(_ url: URL) throws {
        let before = try Data(contentsOf: url)
        let db = try Database(configuration: readOnly(url))
        defer { withExtendedLifetime(db) {} }
        #expect(db.environment.isLockless)
        #expect(db.environment.flags.contains(.noLock))
        #expect(db.environment.flags.contains(.readOnly))
        let people = db.objects(Person.self).sorted(by: \.id)
        #expect(people.map(\.name) == ["Ann", "Bob", "Cy"])
        #expect(people.map(\.age) == [30, nil, 9])
        #expect(db.objects(Person.self).where { $0.age > 10 }.map(\.id) == [1])
        #expect(db.object(ofType: Person.self, forPrimaryKey: 3)?.name == "Cy")
        let error = try #require(throws: ObjDBError.self) { try db.write { try db.add(person(4, "Dee")) } }
        #expect(error.code == .readOnly)
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aLockPathThatIsADirectoryOpensWithoutLocking() throws {
        let url = try makeFile()
        try FileManager.default.createDirectory(atPath: url.path + "-lock", withIntermediateDirectories: false)
        try checkReadsAndRefusesWrites(url)
        // The directory is left as it was.
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: url.path + "-lock", isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test func aLockFileThatCannotBeCreatedOpensWithoutLocking() throws {
        let url = try makeFile()
        try FileManager.default.createSymbolicLink(
            atPath: url.path + "-lock", withDestinationPath: directory.url.appendingPathComponent("missing/lock").path)
        try checkReadsAndRefusesWrites(url)
    }

    @Test func aWritableLockFileIsStillUsed() throws {
        let url = try makeFile()
        let db = try Database(configuration: readOnly(url))
        defer { withExtendedLifetime(db) {} }
        #expect(!db.environment.isLockless)
        #expect(!db.environment.flags.contains(.noLock))
        #expect(FileManager.default.fileExists(atPath: url.path + "-lock"))
        #expect(db.objects(Person.self).count == 3)
    }

    @Test func openingForWritingWithoutALockFileSaysWhy() throws {
        let url = try makeFile()
        try FileManager.default.createDirectory(atPath: url.path + "-lock", withIntermediateDirectories: false)
        let error = try #require(throws: ObjDBError.self) { try directory.open([Person.self]) }
        #expect(error.code == .permissionDenied)
        #expect(error.message.contains("can neither be opened for writing nor created, and a database opened for writing needs it; to only read the file, open it with readOnly: true"))
    }
}
