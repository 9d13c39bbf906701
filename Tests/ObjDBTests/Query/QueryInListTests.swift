import Foundation
import Testing
@_spi(Inspection) @testable import ObjDB
import ObjDBTestModels

/// Long `IN` lists (sorted by ``RadixSort`` and sought in order): on the primary key, an indexed
/// column and a column without index, with repeats, misses and negative values, each checked
/// against a filter written here.
struct QueryInListTests {
    @Test func longListsOfIntegersMatchWhatAFilterFinds() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open([QItem.self, QOwner.self])
        var rng = SeededRandom(seed: 0x1A_15)
        var rows: [(id: Int, rank: Int, score: Double)] = []
        try db.write {
            for id in -1_000..<1_000 {
                let item = QItem()
                (item.id, item.rank, item.score) = (id, rng.inRange(-300...300), Double(rng.inRange(-50...50)))
                rows.append((item.id, item.rank, item.score))
                try db.add(item)
            }
        }
        // 600 values: repeats, misses (ids beyond ±1,000), the extremes of Int.
        let values = (0..<600).map { i in i % 50 == 0 ? [Int.min, Int.max][i % 2] : rng.inRange(-1_500...1_500) }
        let wanted = Set(values)
        let items = db.objects(QItem.self)

        let byID = items.where { $0.id.in(values) }
        // Each distinct value once, sorted, looked up in the primary-key table.
        #expect(byID.queryPlan == "primary key lookup on id (\(wanted.count) values)")
        #expect(byID.map(\.id) == rows.filter { wanted.contains($0.id) }.map(\.id))
        let byRank = items.where { $0.rank.in(values) }
        #expect(byRank.queryPlan == "index lookup on rank (\(wanted.count) values)")
        #expect(byRank.map(\.id) == rows.filter { wanted.contains($0.rank) }.map(\.id))
        // Integers against a double column, through a predicate string.
        let byScore = try items.filter("score IN %@", values)
        #expect(byScore.map(\.id) == rows.filter { wanted.contains(Int($0.score)) }.map(\.id))
        #expect(try items.filter("id IN %@ AND score IN %@", values, values).count
            == rows.filter { wanted.contains($0.id) && wanted.contains(Int($0.score)) }.count)
    }

    @Test func optionalAndMixedListsTakeTheGeneralPath() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open([QItem.self, QOwner.self])
        let ages: [Int?] = [nil, 0, 3, nil, 7, Int.min, 12]
        try db.write {
            for (i, age) in ages.enumerated() {
                let item = QItem()
                (item.id, item.age, item.score) = (i + 1, age, Double(i) / 2)
                try db.add(item)
            }
        }
        let items = db.objects(QItem.self)
        // `[Int?]` through the DSL: nil matches the nil ages (1 and 4).
        #expect(items.where { $0.age.in([nil, 3, Int.min] as [Int?]) }.map(\.id) == [1, 3, 4, 6])
        // Integers and doubles mixed against a double column: 1 is 1.0 (id 3), 2.5 is id 6.
        #expect(try items.filter("score IN {1, 2.5, 99}").map(\.id) == [3, 6])
        // Integers against a double column through BETWEEN: 1.0 … 2.0 (ids 3, 4, 5).
        #expect(try items.filter("score BETWEEN {1, 2}").map(\.id) == [3, 4, 5])
    }

    /// Optional `Float` and `Decimal` columns with `IN` and `BETWEEN`, nil in the lists, and enum
    /// lists through `in(_:)`; every expectation counted by hand from the rows below.
    @Test func optionalFloatDecimalAndEnumLists() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open([AllTypes.self])
        // id: optFloat, optDecimal, kind, optKind
        let rows: [(Float?, Decimal?, Kind, Kind?)] = [
            (nil, nil, .regular, nil),                                  // 1
            (1.5, Decimal(string: "1.10"), .vip, .vip),                 // 2
            (-0.0, Decimal(string: "-3"), .regular, .regular),          // 3
            (2.25, Decimal(string: "1.1"), .vip, nil),                  // 4
            (Float.greatestFiniteMagnitude, Decimal(string: "1000000000000000000000.5"), .regular, .vip),  // 5
        ]
        try db.write {
            for (i, row) in rows.enumerated() {
                let object = AllTypes()
                object.id = i + 1
                (object.optFloat, object.optDecimal, object.kind, object.optKind) = row
                try db.add(object)
            }
        }
        let all = db.objects(AllTypes.self)
        func ids(_ format: String, _ arguments: Any?...) throws -> [Int] {
            try all.filter(format, argumentArray: arguments).map(\.id).sorted()
        }
        // Float: 0.0 equals -0.0; 1.5 and 2.25 are exact in Float; nil only where stored nil.
        #expect(try ids("optFloat IN {0, 2.25}") == [3, 4])
        #expect(try ids("optFloat IN {nil, 1.5}") == [1, 2])
        #expect(try ids("optFloat IN %@", [Float(1.5), Float.greatestFiniteMagnitude]) == [2, 5])
        #expect(try ids("optFloat BETWEEN {-1, 2}") == [2, 3])
        #expect(all.where { $0.optFloat.in([nil, 2.25]) }.map(\.id).sorted() == [1, 4])
        #expect(all.where { $0.optFloat.contains(0...1.5) }.map(\.id).sorted() == [2, 3])
        // Decimal: 1.10 equals 1.1 (compared as numbers, not text).
        #expect(try ids("optDecimal IN {1.1}") == [2, 4])
        #expect(try ids("optDecimal IN {nil, -3}") == [1, 3])
        #expect(try ids("optDecimal BETWEEN {-3, 1.1}") == [2, 3, 4])
        #expect(all.where { $0.optDecimal.in([Decimal(string: "1000000000000000000000.5")]) }.map(\.id) == [5])
        #expect(all.where { $0.optDecimal.contains(Decimal(1)...Decimal(2)) }.map(\.id).sorted() == [2, 4])
        // Enums through `in(_:)`, and their raw values in strings.
        #expect(all.where { $0.kind.in([.vip]) }.map(\.id) == [2, 4])
        #expect(all.where { $0.optKind.in([nil, .regular]) }.map(\.id).sorted() == [1, 3, 4])
        #expect(all.where { !$0.optKind.in([.vip]) }.map(\.id).sorted() == [1, 3, 4])
        #expect(try ids("optKind IN {'vip', nil}") == [1, 2, 4, 5])
        #expect(try ids("kind IN %@", [Kind.regular]) == [1, 3, 5])
    }
}
