import Testing
@testable import ObjDB
import ObjDBTestModels

/// Realm's names for collection calls (`append(objectsIn:)`, `replace(index:object:)`,
/// `removeObject(for:)`) do what their Swift twins do, on managed and unmanaged collections.
struct RealmCollectionNamesTests {
    let directory = TemporaryDirectory()

    @Test(arguments: [false, true])
    func realmNamesChangeCollections(managed: Bool) throws {
        let db = try directory.open([Owner.self, Pet.self])
        let owner = Owner()
        owner.id = 1
        if managed { try db.write { try db.add(owner) } }
        func change(_ body: () -> Void) throws {
            if managed { try db.write(body) } else { body() }
        }
        try change {
            owner.tags.append(objectsIn: ["a", "b", "c"])
            owner.tags.replace(index: 1, object: "B")
            owner.scores["math"] = 9
            owner.scores["art"] = 7
            owner.scores.removeObject(for: "math")
        }
        #expect(Array(owner.tags) == ["a", "B", "c"])
        #expect(owner.scores["math"] == nil)
        #expect(owner.scores["art"] == 7)
        if managed {
            let read = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
            #expect(Array(read.tags) == ["a", "B", "c"])
            #expect(Array(read.scores.keys) == ["art"])
        }
    }
}
