import Foundation
import Testing
@testable import ObjDB

final class IndexedMixedHolder: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(indexed: true) var value: MixedValue = .none
}

/// An index on a mixed property: `==` and `IN` on values other than numbers use it, numbers are
/// scanned (they equal numbers of other types and encodings), and every answer agrees with a
/// scan of the same values without an index (and, in a debug build, with the reference
/// interpreter).
@Suite(.serialized)
struct MixedIndexTests {
    let directory = TemporaryDirectory()

    func open() throws -> (indexed: Database, plain: Database) {
        let indexed = try directory.open([IndexedMixedHolder.self], name: "indexed")
        let plain = try directory.open([MixedHolder.self], name: "plain")
        let long = String(repeating: "long text ", count: 80)
        let values: [MixedValue] = [
            .int(1), .double(1), .float(1), .decimal(1), .string("abc"), .data(Data("abc".utf8)), .bool(true), .bool(false), .none,
            .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: -0.0)),
            .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!), .objectId(ObjectId(string: "65a1f0c2b3e4d5f6a7b8c9d0")!),
            .string(long + "a"), .string(long + "b"), .string("1"), .double(.nan),
        ]
        try indexed.write {
            for (i, value) in values.enumerated() {
                let holder = IndexedMixedHolder()
                (holder.id, holder.value) = (i + 1, value)
                try indexed.add(holder)
            }
        }
        try plain.write {
            for (i, value) in values.enumerated() {
                let holder = MixedHolder()
                (holder.id, holder.value) = (i + 1, value)
                try plain.add(holder)
            }
        }
        return (indexed, plain)
    }

    var queries: [(String, [Any?], usesIndex: Bool)] { [
        ("value == 'abc'", [], true), ("value == true", [], true), ("value == false", [], true), ("value == nil", [], true),
        ("value == %@", [Date(timeIntervalSinceReferenceDate: 0)], true),
        ("value == %@", [UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!], true),
        ("value == %@", [ObjectId(string: "65a1f0c2b3e4d5f6a7b8c9d0")!], true),
        ("value == %@", [String(repeating: "long text ", count: 80) + "b"], true),
        ("value IN {'abc', true, nil}", [], true), ("value == '1'", [], true), ("value == %@", [Data("abc".utf8)], true),
        ("value == 1", [], false), ("value IN {1, 'abc'}", [], false), ("value > 'a'", [], false),
    ] }

    @Test func lookupsAgreeWithScans() throws {
        let (indexed, plain) = try open()
        #expect(try #require(IndexedMixedHolder().objectSchema["value"]).isIndexed)
        for (query, arguments, usesIndex) in queries {
            let fromIndex = try indexed.objects(IndexedMixedHolder.self).filter(query, argumentArray: arguments)
            let fromScan = try plain.objects(MixedHolder.self).filter(query, argumentArray: arguments)
            #expect(fromIndex.map(\.id).sorted() == fromScan.map(\.id).sorted(), "\(query)")
            #expect(fromIndex.explain().contains("index") == usesIndex, "\(query): \(fromIndex.explain())")
        }
        // A string and data of the same bytes are apart, as in realm-core.
        #expect(try indexed.objects(IndexedMixedHolder.self).filter("value == 'abc'").map(\.id).sorted() == [5])
        #expect(try indexed.objects(IndexedMixedHolder.self).filter("value == %@", Data("abc".utf8)).map(\.id).sorted() == [6])
        #expect(try indexed.objects(IndexedMixedHolder.self).filter("value == %@", Date(timeIntervalSinceReferenceDate: 0)).count == 2)
        #expect(try indexed.verify().isHealthy)
    }

    @Test func theIndexFollowsChanges() throws {
        let (indexed, _) = try open()
        let first = try #require(indexed.object(ofType: IndexedMixedHolder.self, forPrimaryKey: 1))
        try indexed.write { first.value = .string("abc") }
        #expect(try indexed.objects(IndexedMixedHolder.self).filter("value == 'abc'").map(\.id).sorted() == [1, 5])
        try indexed.write { indexed.delete(first) }
        // A string and data of the same bytes are apart, as in realm-core.
        #expect(try indexed.objects(IndexedMixedHolder.self).filter("value == 'abc'").map(\.id).sorted() == [5])
        #expect(try indexed.objects(IndexedMixedHolder.self).filter("value == %@", Data("abc".utf8)).map(\.id).sorted() == [6])
        #expect(try indexed.verify().isHealthy)
    }
}
