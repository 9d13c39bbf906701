import Foundation
import ObjDB
import ObjDBTestModels

/// The programmer errors ObjDB stops the process for, each run in a child process (or an exit
/// test), which must end abnormally with a message on standard error naming what was wrong.
///
/// The names are what `objdb-reliability misuse` prints.
public enum MisuseCase: String, Sendable, Codable, CaseIterable {
    /// `write { }` inside `write { }`.
    case nestedWrite = "nested-write"
    /// `cancelWrite()` without a write transaction.
    case cancelWithoutBegin = "cancel-without-begin"
    /// `beginWrite()` twice.
    case beginTwice = "begin-twice"
    /// Setting a managed object's primary key to another value.
    case changePrimaryKey = "change-primary-key"
    /// `delete` of an object that was never added.
    case deleteUnmanaged = "delete-unmanaged"
    /// `objects(_:)` of a model class whose properties differ from the class stored under its
    /// name.
    case objectsSchemaMismatch = "objects-schema-mismatch"
    /// Setting a managed property outside a write transaction.
    case setOutsideWrite = "set-outside-write"

    /// What standard error must contain: the call, class or property at fault.
    public var expectedWords: [String] {
        switch self {
        case .nestedWrite: ["write"]
        case .cancelWithoutBegin: ["cancelWrite"]
        case .beginTwice: ["beginWrite"]
        case .changePrimaryKey: ["Person.id"]
        case .deleteUnmanaged: ["delete", "Person"]
        case .objectsSchemaMismatch: ["Person"]
        case .setOutsideWrite: ["Person.name"]
        }
    }

    /// Commits the programmer error on a fresh database in `directory`; returns only if ObjDB
    /// let it pass.
    public func trigger(in directory: URL) throws {
        let url = directory.appendingPathComponent("misuse-\(rawValue).objdb")
        try? FileManager.default.removeItem(at: url)
        try? FileManager.default.removeItem(atPath: url.path + "-lock")
        let config = Configuration(fileURL: url, objectTypes: [Person.self])
        let db = try Database(configuration: config)
        let ann = Person()
        ann.id = 1
        ann.name = "Ann"
        switch self {
        case .nestedWrite:
            try db.write { try db.write {} }
        case .cancelWithoutBegin:
            db.cancelWrite()
        case .beginTwice:
            db.beginWrite()
            db.beginWrite()
            db.cancelWrite()
        case .changePrimaryKey:
            try db.write { try db.add(ann) }
            try db.write { ann.id = 2 }
        case .deleteUnmanaged:
            try db.write { db.delete(ann) }
        case .objectsSchemaMismatch:
            try db.write { try db.add(ann) }
            // The same file without listed classes: the schema is the file's, and the model
            // class named Person does not match it.
            let other = try Database(configuration: Configuration(fileURL: url))
            _ = other.objects(MisuseModels.Person.self).count
        case .setOutsideWrite:
            try db.write { try db.add(ann) }
            ann.name = "Changed"
        }
    }
}
