import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// `ThreadSafeReference` and `resolve(_:)`. Cases follow realm-swift's
/// `RealmSwift/Tests/ThreadSafeReferenceTests.swift` (`testPassThreadSafeReferenceToDeletedObject`,
/// `testPassThreadSafeReferencesToMultipleObjects`, `testPassThreadSafeReferenceToResults`).
@Suite(.serialized)
struct ThreadSafeReferenceTests {
    let directory = TemporaryDirectory()

    /// Opens the file in a detached task (another isolation domain) and runs `body` there.
    func elsewhere<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let configuration = directory.configuration([Person.self])
        return try await Task.detached { try body(try Database(configuration: configuration)) }.value
    }

    // testPassThreadSafeReferencesToMultipleObjects: each resolves to its object, writable there.
    @Test func objectsResolveInAnotherDomain() async throws {
        let db = try directory.open([Person.self])
        try db.write { try db.add([person(1, "Ann", age: 30), person(2, "Bob", age: 40)]) }
        let ann = ThreadSafeReference(to: try #require(db.object(ofType: Person.self, forPrimaryKey: 1)))
        let bob = ThreadSafeReference(to: try #require(db.object(ofType: Person.self, forPrimaryKey: 2)))
        let names = try await elsewhere { other -> [String] in
            guard let ann = other.resolve(ann), let bob = other.resolve(bob) else { return [] }
            try other.write { ann.age = 31 }
            return [ann.name, bob.name]
        }
        #expect(names == ["Ann", "Bob"])
        db.refresh()
        #expect(db.object(ofType: Person.self, forPrimaryKey: 1)?.age == 31)
    }

    // testPassThreadSafeReferenceToDeletedObject: a deleted object resolves to nil.
    @Test func aDeletedObjectResolvesToNil() async throws {
        let db = try directory.open([Person.self])
        try db.write { try db.add(person(1, "Ann")) }
        let ann = try #require(db.object(ofType: Person.self, forPrimaryKey: 1))
        let reference = ThreadSafeReference(to: ann)
        try db.write { db.delete(ann) }
        let found = try await elsewhere { $0.resolve(reference) != nil }
        #expect(found == false)
        #expect(db.resolve(reference) == nil)
    }

    // testPassThreadSafeReferenceToResults: the query, filter and sort included, runs there.
    @Test func resultsResolveWithTheirQuery() async throws {
        let db = try directory.open([Person.self])
        try db.write { try db.add((1...6).map { person($0, "P\($0)", age: $0 * 10) }) }
        let results = db.objects(Person.self).where { $0.age > 20 }.sorted(byKeyPath: "age", ascending: false)
        let reference = ThreadSafeReference(to: results)
        let ids = try await elsewhere { other -> [Int] in
            guard let results = other.resolve(reference) else { return [] }
            try other.write { try other.add(person(7, "P7", age: 70)) }
            return results.map(\.id)
        }
        #expect(ids == [7, 6, 5, 4, 3])
    }

    // The resolving database moves to at least the version the reference was made at.
    @Test func resolvingRefreshesAnOlderDatabase() throws {
        let db = try directory.open([Person.self])
        let reader = try directory.open([Person.self])
        #expect(reader.objects(Person.self).isEmpty)  // begins reading the empty version
        try db.write { try db.add(person(1, "Ann")) }
        let reference = ThreadSafeReference(to: try #require(db.object(ofType: Person.self, forPrimaryKey: 1)))
        #expect(reader.resolve(reference)?.name == "Ann")
    }
}
