import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// `Results.identities` (every match's identity without reading the objects) and
/// `Database.object(ofType:identifiedBy:)`, which looks one up again.
struct ResultsIdentitiesTests {
    let directory = TemporaryDirectory()

    /// Each object's `Identifiable.id`, read through the object.
    func identity(_ object: Object) -> ObjectIdentity? { (object as any Identifiable).id as? ObjectIdentity }

    @Test func identitiesAreTheObjectsIdsInResultOrder() throws {
        let db = try directory.open()
        try db.write { try db.add([5, 3, 8, 1, 9].map { person($0, "P\($0)", age: $0 * 10) }) }
        let adults = db.objects(Person.self).where { $0.age >= 30 }.sorted(by: \.id, ascending: false)
        #expect(adults.identities.count == 4)
        #expect(adults.identities.map(Optional.some) == adults.map { identity($0) })
        let ids = adults.identities.map { db.object(ofType: Person.self, identifiedBy: $0)?.id }
        #expect(ids == [9, 8, 5, 3])
        #expect(db.objects(Person.self).identities.count == 5)
        #expect(db.objects(Person.self).where { $0.age > 1_000 }.identities.isEmpty)
    }

    @Test func identitiesAreASnapshotAndDeletedObjectsResolveToNil() throws {
        let db = try directory.open()
        try db.write { try db.add((1...4).map { person($0, "P\($0)") }) }
        let people = db.objects(Person.self)
        let before = people.identities
        try db.write { db.delete(people.where { $0.id == 2 }) }
        #expect(before.count == 4)
        #expect(people.identities.count == 3)
        #expect(before.map { db.object(ofType: Person.self, identifiedBy: $0)?.id } == [1, nil, 3, 4])
    }

    @Test func identitiesInsideAWriteIncludeNewObjects() throws {
        let db = try directory.open()
        try db.write {
            try db.add(person(1, "A"))
            let added = person(2, "B")
            try db.add(added)
            let ids = db.objects(Person.self).identities
            #expect(ids.count == 2)
            #expect(ids.last == identity(added))
            #expect(db.object(ofType: Person.self, identifiedBy: ids[1])?.name == "B")
        }
    }

    @Test func identitiesOfAnotherFileClassOrAnUnmanagedObjectFindNothing() throws {
        let db = try directory.open()
        let other = try directory.open(name: "other.objdb")
        try db.write { try db.add(person(1, "Ann")); try db.add(Note()) }
        try other.write { try other.add(person(1, "Ann")) }
        let ann = try #require(db.objects(Person.self).identities.first)
        let note = try #require(db.objects(Note.self).identities.first)
        #expect(db.object(ofType: Person.self, identifiedBy: ann)?.name == "Ann")
        #expect(other.object(ofType: Person.self, identifiedBy: ann) == nil)
        #expect(db.object(ofType: Person.self, identifiedBy: note) == nil)
        #expect(db.object(ofType: Note.self, identifiedBy: note) != nil)
        let unmanaged = try #require(identity(person(1, "Ann")))
        #expect(db.object(ofType: Person.self, identifiedBy: unmanaged) == nil)
        // A class the database was not opened with: nil too, not a stop.
        let peopleOnly = try directory.open([Person.self], name: "people.objdb")
        try peopleOnly.write { try peopleOnly.add(person(1, "Ann")) }
        let annThere = try #require(peopleOnly.objects(Person.self).identities.first)
        #expect(peopleOnly.object(ofType: Note.self, identifiedBy: annThere) == nil)
        #expect(peopleOnly.object(ofType: Person.self, identifiedBy: annThere)?.name == "Ann")
    }

    @Test func fullTextMatchesGiveTheirIdentities() throws {
        let db = try directory.open([Article.self])
        try db.write {
            for (id, body) in [(1, "swift data"), (2, "objective-c"), (3, "Swift on Linux"), (4, "data")] {
                let article = Article()
                article.id = id
                article.body = body
                try db.add(article)
            }
        }
        let matches = db.objects(Article.self).where { $0.body.fullTextMatches("swift") }
        let ids = matches.identities.compactMap { db.object(ofType: Article.self, identifiedBy: $0)?.id }
        #expect(ids.sorted() == [1, 3])
    }
}

/// A text with a full-text index.
private final class Article: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(fullTextIndexed: true) var body: String = ""
}
