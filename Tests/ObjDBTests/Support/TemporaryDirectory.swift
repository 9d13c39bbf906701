import Foundation
import ObjDB
import ObjDBTestModels

/// A fresh directory under the system's temporary directory, removed when released.
///
/// Test suites hold one as a stored property, so every test gets its own directory.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("objdb-tests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A file in the directory.
    func file(_ name: String = "test.objdb") -> URL { url.appendingPathComponent(name) }

    /// A configuration for a file in the directory.
    func configuration(
        _ types: [ObjectBase.Type]? = [Person.self, Note.self, AllTypes.self], name: String = "test.objdb"
    ) -> Configuration {
        Configuration(fileURL: file(name), objectTypes: types)
    }

    /// Opens a database on a file in the directory.
    func open(_ types: [ObjectBase.Type]? = [Person.self, Note.self, AllTypes.self], name: String = "test.objdb") throws -> Database {
        try Database(configuration: configuration(types, name: name))
    }
}

/// Makes a person.
func person(_ id: Int, _ name: String, age: Int? = nil) -> Person {
    let person = Person()
    person.id = id
    person.name = name
    person.age = age
    return person
}
