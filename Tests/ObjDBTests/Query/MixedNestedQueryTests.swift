import Foundation
import Testing
@testable import ObjDB

/// Queries into the lists and dictionaries a mixed value holds: `@size`/`@count`, subscripts
/// (`[0]`, `[FIRST]`, `[LAST]`, `['key']`, `.key`, `[*]`), chains of them and `@type` after
/// them, as realm-core 14 evaluates them. Every query also runs through the reference
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

    /// realm-dart "Queries" (nested collections in RealmValue): first, second, third are 1 … 3.
    nonisolated(unsafe) static let dartRows: [(Int, MixedValue)] = [
        (1, .list([.int(1), .string("a"), .dictionary(["foo": .string("bar")])])),
        (2, .list([.int(2), .dictionary(["foo": .string("baz")])])),
        (3, .list([.int(3), .string("c"), .dictionary(["foo": .dictionary(["child": .int(5)]), "bar": .int(10)]), .double(3.4)])),
    ]

    /// realm-dotnet `MixedCollection_Filter_AnyAllNone`: ob1 … ob4 are ids 1 … 4.
    nonisolated(unsafe) static let anyAllNoneRows: [(Int, MixedValue)] = [
        (1, .int(2)),
        (2, .list([.string("a"), .string("string")])),
        (3, .list([.int(1), .string("string")])),
        (4, .list([.int(1), .int(23)])),
    ]

    /// Dictionaries, a list of dictionaries, nil elements and a string.
    nonisolated(unsafe) static let keyRows: [(Int, MixedValue)] = [
        (1, .dictionary(["a": .int(1), "b": .list([.int(5), .int(6)])])),
        (2, .dictionary(["a": .string("x")])),
        (3, .list([.dictionary(["a": .int(1)])])),
        (4, .list([.none, .int(1)])),
        (5, .string("abc")),
        (6, .none),
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

    /// The message of the ``ObjDBError`` that `query` throws, checked to be an invalid query.
    func invalid(_ db: Database, _ query: String) -> String {
        do {
            _ = try ids(db, query)
            return "no error"
        } catch let error as ObjDBError {
            return error.code == .invalidQuery ? error.message : "wrong code: \(error)"
        } catch {
            return "not an ObjDBError: \(error)"
        }
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

    @Test func subscriptsAsRealmDartQueriesThem() throws {
        let db = try open(Self.dartRows)
        // realm-dart "Queries" (RealmValue nested collections)
        #expect(try ids(db, "value[0] < 3") == [1, 2])
        #expect(try ids(db, "value.@size > 3") == [3])
        #expect(try ids(db, "value[*] == 3.4") == [3])
        #expect(try ids(db, "value[2].@type == 'dictionary'") == [1, 3])
        #expect(try ids(db, "value[*].foo BEGINSWITH 'ba'") == [1, 2])
        #expect(try ids(db, "value[*].bar == 9") == [])
    }

    @Test func firstLastAndChains() throws {
        let db = try open(Self.dartRows)
        #expect(try ids(db, "value[FIRST] == 2") == [2])
        #expect(try ids(db, "value[first] >= 2") == [2, 3])
        #expect(try ids(db, "value[LAST] == 3.4") == [3])
        #expect(try ids(db, "value[LAST].@type == 'dictionary'") == [1, 2])
        #expect(try ids(db, "value[2]['foo'] == 'bar'") == [1])
        #expect(try ids(db, "value[2].foo.child == 5") == [3])
        #expect(try ids(db, "value[2]['foo']['child'] == 5") == [3])
        #expect(try ids(db, "value[2]['foo'].@type == 'dictionary'") == [3])
        #expect(try ids(db, "value[2].@size == 2") == [3])
        #expect(try ids(db, "value[1].@size == 1") == [1, 2, 3])  // the strings "a" and "c" are 1 long
        #expect(try ids(db, "value[1].@size == 1 && value[1].foo ENDSWITH 'z'") == [2])
        // An index past the end selects nothing, not nil.
        #expect(try ids(db, "value[3] == nil") == [])
        #expect(try ids(db, "value[%@] == 1", "0") == [])
    }

    @Test func quantifiersOverEveryElement() throws {
        let db = try open(Self.anyAllNoneRows)
        // realm-dotnet MixedCollection_Filter_AnyAllNone
        #expect(try ids(db, "ANY value[*].@type == 'string'") == [2, 3])
        #expect(try ids(db, "NONE value[*].@type == 'string'") == [1, 4])
        #expect(try ids(db, "ALL value[*].@type == 'string'") == [1, 2])
        // The same with values instead of types; a non-collection is an empty list.
        #expect(try ids(db, "value[*] == 1") == [3, 4])
        #expect(try ids(db, "ALL value[*] > 0") == [1, 4])
        #expect(try ids(db, "NONE value[*] == 'string'") == [1, 4])
        #expect(try ids(db, "value[*] IN {23, 'a'}") == [2, 4])
    }

    @Test func dictionaryKeysAndNilElements() throws {
        let db = try open(Self.keyRows)
        #expect(try ids(db, "value['a'] == 1") == [1])
        #expect(try ids(db, "value.a == 1") == [1])
        #expect(try ids(db, "value[%@] == 'x'", "a") == [2])
        #expect(try ids(db, "value['b'][1] == 6") == [1])
        #expect(try ids(db, "value.b[LAST] == 6") == [1])
        #expect(try ids(db, "value['b'].@size == 2") == [1])
        #expect(try ids(db, "value[*] == 'x'") == [2])
        #expect(try ids(db, "value[0]['a'] == 1") == [3])
        #expect(try ids(db, "value[*].a == 1") == [3])
        #expect(try ids(db, "value['a'].@type == 'string'") == [2])
        #expect(try ids(db, "value.@size == 2") == [1, 4])
        // A string keeps its length as its size; a key of a list and an index of a dictionary
        // select nothing.
        #expect(try ids(db, "value.@size == 3") == [5])
        #expect(try ids(db, "value['0'] == nil || value[0] == 1") == [])
        // A nil element is a nil value; a subscript into it selects nothing.
        #expect(try ids(db, "value[0] == nil") == [4])
        #expect(try ids(db, "value[0].@type == 'null'") == [4])
        #expect(try ids(db, "value[0][0] == nil") == [])
    }

    @Test func subscriptsOnAMapValue() throws {
        let db = try directory.open([MixedHolder.self])
        try db.write {
            for (id, value) in [(1, MixedValue.list([.int(1), .int(2)])), (2, .dictionary(["n": .int(2)])), (3, .int(2))] {
                let holder = MixedHolder()
                holder.id = id
                holder.extras["k"] = value
                try db.add(holder)
            }
        }
        #expect(try ids(db, "extras['k'][1] == 2") == [1])
        // [*] takes every element of a list and every value of a dictionary.
        #expect(try ids(db, "extras['k'][*] == 2") == [1, 2])
        #expect(try ids(db, "extras['k'].n == 2") == [2])
        #expect(try ids(db, "extras['k'].@size == 2") == [1])
        #expect(try ids(db, "extras['k'] == 2") == [3])
        #expect(try ids(db, "extras['missing'][0] == nil") == [])
    }

    @Test func docsExample() throws {
        // Docs/Queries.md, "Nested collections in mixed values": realm-dart's rows and a number.
        let db = try open(Self.dartRows + [(4, .int(2))])
        #expect(try ids(db, "value[0] < 3") == [1, 2])
        #expect(try ids(db, "value.@size > 3") == [3])
        #expect(try ids(db, "value.@size <= 2") == [2])
        #expect(try ids(db, "value[LAST] == 3.4") == [3])
        #expect(try ids(db, "value[*] == 3.4") == [3])
        #expect(try ids(db, "value[2].@type == 'dictionary'") == [1, 3])
        #expect(try ids(db, "value[2].foo.child == 5") == [3])
        #expect(try ids(db, "value[*].foo BEGINSWITH 'ba'") == [1, 2])
        #expect(try ids(db, "ALL value[*].@type == 'int'") == [4])
        #expect(try ids(db, "NONE value[*].@type == 'string'") == [2, 4])
    }

    @Test func subscriptsParseToComponents() throws {
        let parsed = try PredicateParser.parse("value[2]['foo'][LAST][ * ][first].bar == 1", arguments: [])
        guard case .comparison(let c) = parsed, case .keyPath(let path) = c.left else {
            Issue.record("not a comparison of a key path: \(parsed)")
            return
        }
        #expect(path.components == ["value", "@index:2", "@key:foo", "@last", "@all", "@index:0", "bar"])
        #expect(path.description == "value[2]['foo'][LAST][*][0].bar")
    }

    @Test func badSubscriptsAreNamed() throws {
        let db = try open(Self.dartRows)
        #expect(invalid(db, "id[0] == 1").contains("'id[0]': a subscript such as [0]"))
        #expect(invalid(db, "id[0] == 1").contains("holds Int"))
        #expect(invalid(db, "history[0] == 1").contains("subscripts on list, set and map properties"))
        #expect(invalid(db, "extras[0] == 1").contains("subscripts on list, set and map properties"))
        #expect(invalid(db, "value[-1] == 1").contains("the list index [-1] is negative"))
        #expect(invalid(db, "value[x] == 1").contains("a subscript […] must be"))
        #expect(invalid(db, "value[*].@size > 1").contains("not each element after [*]"))
        #expect(invalid(db, "ALL value[0] == 1").contains("ALL needs a to-many key path"))
    }
}
