import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// `label` in column 1 and `rank` in column 2.
final class BindingFirst: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var label: String = ""
    @Persisted var rank: Int = 0
}

/// The same property names in other columns: `rank` in 1, `label` in 3.
final class BindingSecond: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var rank: Int = 0
    @Persisted var note: String = ""
    @Persisted var label: String = ""
}

/// Key paths of one value property are bound once per class and kept (``ClassInfo/valuePaths``):
/// every later query on the class must still read its own columns, and bad predicates must still
/// fail as before.
struct QueryBindingTests {
    let directory = TemporaryDirectory()

    private func filled() throws -> Database {
        let db = try directory.open([BindingFirst.self, BindingSecond.self])
        try db.write {
            for id in 1...6 {
                let first = BindingFirst()
                (first.id, first.label, first.rank) = (id, "L\(id % 3)", id)
                try db.add(first)
                let second = BindingSecond()
                (second.id, second.rank, second.note, second.label) = (id, 10 - id, "N\(id)", "L\(id % 2)")
                try db.add(second)
            }
        }
        return db
    }

    @Test func aPropertyNameSharedByTwoClassesReadsEachClassesOwnColumn() throws {
        let db = try filled()
        for _ in 0..<3 {
            #expect(db.objects(BindingFirst.self).where { $0.label == "L1" }.map(\.id) == [1, 4])
            #expect(db.objects(BindingSecond.self).where { $0.label == "L1" }.map(\.id) == [1, 3, 5])
            #expect(try db.objects(BindingFirst.self).filter("rank > 4").map(\.id) == [5, 6])
            #expect(try db.objects(BindingSecond.self).filter("rank > 4").map(\.id) == [1, 2, 3, 4, 5])
            #expect(try db.dynamicObjects("BindingSecond").filter("label == 'L0'").count == 3)
        }
    }

    /// The key paths the query layer keeps for `info` (``ClassInfo/queryPaths``).
    func paths(_ info: ClassInfo) -> [BoundPath?] { info.queryPaths.indices.map { info.boundPath(column: $0) } }

    @Test func theBoundPathIsKeptPerClassAndReused() throws {
        let db = try filled()
        let first = try #require(db.classInfoForRead(BindingFirst.self))
        let second = try #require(db.classInfoForRead(BindingSecond.self))
        #expect(paths(first).allSatisfy { $0 == nil })
        _ = db.objects(BindingFirst.self).where { $0.label == "L1" }.count
        let kept = try #require(paths(first)[1])
        #expect(kept.directColumn == 1)
        #expect(paths(second)[3] == nil)
        _ = try db.objects(BindingFirst.self).filter("label BEGINSWITH 'L'").count
        #expect(paths(first)[1] === kept)
        _ = db.objects(BindingSecond.self).where { $0.label == "L1" }.count
        #expect(try #require(paths(second)[3]).directColumn == 3)
    }

    @Test func pathsThroughLinksAndCollectionsAreNotKept() throws {
        let db = try directory.open([Owner.self])
        try db.write {
            let owner = Owner()
            owner.id = 1
            owner.name = "Ann"
            let pet = Pet()
            pet.id = 2
            pet.name = "Rex"
            owner.pets.append(pet)
            owner.favorite = pet
            try db.add(owner)
        }
        #expect(db.objects(Owner.self).where { $0.pets.name == "Rex" }.map(\.id) == [1])
        #expect(try db.objects(Pet.self).filter("owners.name == 'Ann'").map(\.id) == [2])
        #expect(try db.objects(Owner.self).filter("favorite.name == 'Rex' AND tags.@count == 0").map(\.id) == [1])
        let owner = try #require(db.classInfoForRead(Owner.self))
        let pet = try #require(db.classInfoForRead(Pet.self))
        #expect(paths(owner).allSatisfy { $0 == nil })
        #expect(paths(pet).allSatisfy { $0 == nil })
        #expect(db.objects(Owner.self).where { $0.name == "Ann" }.count == 1)
        #expect(paths(owner).indices.filter { paths(owner)[$0] != nil } == [try #require(owner.stored.column(of: "name"))])
    }

    @Test func badPredicatesStillFailAfterGoodOnesWereBound() throws {
        let db = try filled()
        _ = db.objects(BindingFirst.self).where { $0.label == "L1" && $0.rank > 1 }.count
        let unknown = #expect(throws: ObjDBError.self) { try db.objects(BindingFirst.self).filter("labels == 'L1'") }
        #expect(unknown?.code == .invalidQuery)
        #expect(unknown?.message.contains("has no property 'labels'") == true)
        let mismatch = #expect(throws: ObjDBError.self) { try db.objects(BindingFirst.self).filter("label == 3") }
        #expect(mismatch?.message == "Invalid query on 'BindingFirst' at position 0: 'label' (String) cannot be compared with 3")
        let ordered = #expect(throws: ObjDBError.self) { try db.objects(BindingFirst.self).filter("label > rank") }
        #expect(ordered?.code == .invalidQuery)
        // The kept paths are untouched by the failures.
        #expect(db.objects(BindingFirst.self).where { $0.label == "L2" }.map(\.id) == [2, 5])
    }
}
