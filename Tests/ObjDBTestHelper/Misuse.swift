import Foundation
import ObjDB
import ObjDBTestModels

/// `Person` as an older version of an app stored it: the same class name, other properties.
final class OlderPerson: Object {
    override class var className: String { "Person" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var nickname: String = ""
}

/// The programmer errors `misuse <case>` commits. Each must stop the process with a message
/// starting "ObjDB: " on standard error, in debug and release builds alike.
enum Misuse: String, CaseIterable {
    case nestedWrite = "nested-write"
    case cancelWithoutBegin = "cancel-without-begin"
    case beginTwice = "begin-twice"
    case changePrimaryKey = "change-primary-key"
    case deleteUnmanaged = "delete-unmanaged"
    case objectsSchemaMismatch = "objects-schema-mismatch"
    case setOutsideWrite = "set-outside-write"

    /// Commits the misuse on a new file in `directory`. Returns only if ObjDB let it pass.
    func commit(in directory: URL) throws {
        let url = directory.appendingPathComponent("misuse-\(rawValue).objdb")
        // A run before this one stopped with its file in place.
        try? FileManager.default.removeItem(at: url)
        try? FileManager.default.removeItem(atPath: url.path + "-lock")
        let config = Configuration(fileURL: url, objectTypes: [Person.self])
        switch self {
        case .nestedWrite:
            let db = try Database(configuration: config)
            try db.write { try db.write {} }
        case .cancelWithoutBegin:
            let db = try Database(configuration: config)
            db.cancelWrite()
        case .beginTwice:
            let db = try Database(configuration: config)
            db.beginWrite()
            db.beginWrite()
        case .changePrimaryKey:
            let db = try Database(configuration: config)
            let ann = Self.person(1, "Ann")
            try db.write { try db.add(ann) }
            try db.write { ann.id = 2 }
        case .deleteUnmanaged:
            let db = try Database(configuration: config)
            try db.write { db.delete(Self.person(1, "Ann")) }
        case .objectsSchemaMismatch:
            // The file was written by an older model of the class; the database is opened
            // without objectTypes, so nothing checks the class at open.
            do {
                let older = try Database(configuration: Configuration(fileURL: url, objectTypes: [OlderPerson.self]))
                try older.write { try older.create(OlderPerson.self, value: ["id": 1, "nickname": "Annie"]) }
            }
            let db = try Database(configuration: Configuration(fileURL: url))
            _ = db.objects(Person.self).count
        case .setOutsideWrite:
            let db = try Database(configuration: config)
            let ann = Self.person(1, "Ann")
            try db.write { try db.add(ann) }
            ann.name = "Changed"
        }
    }

    private static func person(_ id: Int, _ name: String) -> Person {
        let person = Person()
        person.id = id
        person.name = name
        return person
    }
}

/// Runs `misuse <case> [<directory>]`: the process is expected to stop inside ObjDB. If it
/// returns, the misuse went unnoticed: that is reported with exit code 3.
func runMisuse(_ arguments: [String]) -> Never {
    let names = Misuse.allCases.map(\.rawValue).joined(separator: "|")
    guard let name = arguments.first, let misuse = Misuse(rawValue: name), arguments.count <= 2 else {
        fail("misuse <\(names)> [<directory>]")
    }
    let directory: URL
    if arguments.count == 2 {
        directory = URL(fileURLWithPath: arguments[1], isDirectory: true)
    } else {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("objdb-misuse-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            fail("cannot create \(directory.path): \(error)")
        }
    }
    do {
        try misuse.commit(in: directory)
    } catch {
        fail("misuse \(name) threw instead of stopping the program: \(error)")
    }
    FileHandle.standardError.write(Data("ObjDBTestHelper: misuse \(name) did not stop the program\n".utf8))
    exit(3)
}
