import Foundation
import Testing
@testable import ObjDB

/// Queries into the lists and dictionaries a mixed value holds: `@size`/`@count`, as
/// realm-core 14 evaluates them. Every query also runs through the reference
/// interpreter (the internal checks of a debug build), which must give the same objects.
@Suite(.serialized)
struct MixedNestedQueryTests {
    let directory = TemporaryDirectory()

    /// realm-dotnet `MixedCollection_Filter_CountSizeType`: ob1 … ob4 are ids 1 … 4.
    nonisolated(unsafe) static let countSizeRows: [(Int, MixedValue)] = [
        (1, .int(2)),
        (2, .list([.int(1), .string("string"), .double(23.0)])),
        (3, .list([.int(1), .string("string")])),
        (4, .dictionary(["s1": .int(22)])),
    ]

    func open(_ rows: [(Int, MixedValue)]) throws -> Database {
        let db = try directory.open([MixedHolder.self])
        try db.write {
            for (id, value) in rows {
                let holder = MixedHolder()
                holder.id = id
                holder.value = value
                try db.add(holder)
            }
        }
        return db
    }

    func ids(_ db: Database, _ query: String, _ arguments: Any?...) throws -> [Int] {
        try db.objects(MixedHolder.self).filter(query, argumentArray: arguments).map(\.id).sorted()
    }

    @Test func sizeCountAndTypeOfCollections() throws {
        let db = try open(Self.countSizeRows)
        // realm-dotnet MixedCollection_Filter_CountSizeType
        #expect(try ids(db, "value.@size <= 2") == [3, 4])
        #expect(try ids(db, "value.@count > 2") == [2])
        #expect(try ids(db, "value.@type == 'dictionary'") == [4])
        #expect(try ids(db, "value.@type == 'list'") == [2, 3])
        #expect(try ids(db, "value.@type == 'collection'") == [2, 3, 4])
        // A value that is no collection has no size: neither side of a comparison holds.
        #expect(try ids(db, "value.@size > 2 || value.@size <= 2") == [2, 3, 4])
        #expect(try ids(db, "value.@size == nil") == [1])
    }
}
