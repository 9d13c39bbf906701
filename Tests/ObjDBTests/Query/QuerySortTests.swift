import Foundation
import Testing
@testable import ObjDB

/// Sorting by numbers, dates and bools through order words (``QuerySort``): the same order as
/// the scalar comparison, with `nil`, NaN, `-0.0`, infinities and the integer extremes.
struct QuerySortTests {
    /// Values of every kind that has a word, with the awkward ones.
    static var scalars: [QueryScalar] { [
        .null, .int(.min), .int(.min + 1), .int(-1), .int(0), .int(1), .int(.max),
        .double(.nan), .double(-.nan), .double(-.infinity), .double(-1e300), .double(-1), .double(-0.0),
        .double(0), .double(.leastNonzeroMagnitude), .double(1), .double(.infinity),
        .date(-1e9), .date(-0.0), .date(0), .date(1.5), .date(.nan),
        .bool(false), .bool(true),
    ] }

    /// Whether two scalars can share a sort column: nil with anything, otherwise one kind.
    static func sameColumn(_ a: QueryScalar, _ b: QueryScalar) -> Bool {
        switch (a, b) {
        case (.null, _), (_, .null), (.int, .int), (.double, .double), (.date, .date), (.bool, .bool): true
        default: false
        }
    }

    @Test(arguments: [true, false]) func wordsOrderLikeTheScalarComparison(ascending: Bool) throws {
        for a in Self.scalars {
            for b in Self.scalars where Self.sameColumn(a, b) {
                let words = QuerySort.words([a, b], [ascending])
                // Int.min's word would be nil's: that column sorts by scalars instead.
                if case .int(.min) = a { #expect(words == nil); continue }
                if case .int(.min) = b { #expect(words == nil); continue }
                let pair = try #require(words)
                let expected = QueryOrder.sortCompare(a, b).signum() * (ascending ? 1 : -1)
                let actual = pair[0] < pair[1] ? -1 : pair[0] == pair[1] ? 0 : 1
                #expect(actual == expected, "\(a) vs \(b), ascending: \(ascending)")
            }
        }
    }

    @Test func stringsAndDecimalsHaveNoWords() {
        let text: [UInt8] = Array("a".utf8)
        text.withUnsafeBytes { bytes in
            #expect(QuerySort.words([.int(1), .bytes(bytes)], [true, true]) == nil)
        }
        #expect(QuerySort.words([.decimal(1)], [true]) == nil)
        #expect(QuerySort.words([.object(1)], [true]) == nil)
    }

    /// Adds plain items with the given scores and ages, ids 1, 2, … in that order.
    private func fill(_ db: Database, _ values: [(score: Double, age: Int?, flag: Bool)]) throws {
        try db.write {
            for (offset, value) in values.enumerated() {
                let item = QPlainItem()
                (item.id, item.score, item.age, item.flag) = (offset + 1, value.score, value.age, value.flag)
                try db.add(item)
            }
        }
    }

    private func ids(_ results: Results<QPlainItem>) -> [Int] { results.map(\.id) }

    @Test func doublesSortWithNaNLastAndNegativeZeroEqualToZero() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open([QPlainItem.self, QOwner.self])
        try fill(db, [
            (1, nil, false), (.nan, nil, false), (-0.0, nil, false), (0, nil, false),
            (-.infinity, nil, false), (.infinity, nil, false), (-2.5, nil, false), (.nan, nil, false),
        ])
        let items = db.objects(QPlainItem.self)
        #expect(ids(items.sorted(byKeyPath: "score")) == [5, 7, 3, 4, 1, 6, 2, 8])
        #expect(ids(items.sorted(byKeyPath: "score", ascending: false)) == [2, 8, 6, 1, 3, 4, 7, 5])
    }

    @Test func optionalIntegersSortNilFirstAscendingAndLastDescending() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open([QPlainItem.self, QOwner.self])
        // Without Int.min (order words), then with it (scalar comparison): the same rules.
        try fill(db, [(0, nil, false), (0, -5, false), (0, 7, false), (0, nil, false), (0, .max, false)])
        let items = db.objects(QPlainItem.self)
        #expect(ids(items.sorted(byKeyPath: "age")) == [1, 4, 2, 3, 5])
        #expect(ids(items.sorted(byKeyPath: "age", ascending: false)) == [5, 3, 2, 1, 4])
        try db.write { db.objects(QPlainItem.self).where { $0.id == 2 }.first?.age = .min }
        #expect(ids(items.sorted(byKeyPath: "age")) == [1, 4, 2, 3, 5])
        #expect(ids(items.sorted(byKeyPath: "age", ascending: false)) == [5, 3, 2, 1, 4])
    }

    @Test func severalKeysAndATopKLimit() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open([QPlainItem.self, QOwner.self])
        // flag ascending, then score descending, then key order for ties.
        let values: [(score: Double, age: Int?, flag: Bool)] = [
            (3, nil, true), (1, nil, false), (2, nil, true), (1, nil, false), (9, nil, false),
            (.nan, nil, true), (0, nil, false), (5, nil, true), (2, nil, false), (4, nil, true),
        ]
        try fill(db, values)
        let items = db.objects(QPlainItem.self)
        let sorted = items.sorted(by: [SortDescriptor(keyPath: "flag"), SortDescriptor(keyPath: "score", ascending: false)])
        let expected = [5, 9, 2, 4, 7, 6, 8, 10, 1, 3]
        #expect(ids(sorted) == expected)
        // A limit well below the count keeps only the best while scanning: same first ones.
        #expect(sorted.prefix(2).map(\.id) == Array(expected.prefix(2)))
        #expect(items.sorted(byKeyPath: "score").prefix(1).map(\.id) == [7])
        #expect(items.sorted(byKeyPath: "score", ascending: false).prefix(1).map(\.id) == [6])
        #expect(sorted.prefix(1).map(\.id) == [5])
    }

    /// A sorted prefix by one column keeps only its best matches while it scans (``TopWords``):
    /// checked against a stable brute-force sort for every limit around the edges, both
    /// directions, many ties, `nil` next to `Int.min`, NaN and `-0.0`, rows that arrive worst
    /// first, and filters tested on the row alone or not.
    @Test func sortedPrefixesKeepTheBestMatchesInOrder() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open([QPlainItem.self, QOwner.self])
        let agePool: [Int?] = [nil, .min, .max, -1, 0, 3, 3, 7]
        let scorePool: [Double] = [.nan, -0.0, 0, 1.5, -2, .infinity, 1.5]
        var values: [(score: Double, age: Int?, flag: Bool)] = []
        var rng = SeededRandom(seed: 0x70_9C)
        for _ in 0..<150 { values.append((rng.pick(scorePool), rng.pick(agePool), rng.percent(50))) }
        // Then rows that each beat every row kept so far (ascending), and the reverse.
        for i in 0..<60 { values.append((Double(-i), -i, false)) }
        for i in 0..<60 { values.append((Double(i), i, true)) }
        try fill(db, values)
        let items = db.objects(QPlainItem.self)

        func order<T>(_ key: (Int) -> T, ascending: Bool, _ less: (T, T) -> Bool) -> [Int] {
            values.indices.sorted { a, b in
                let (x, y) = (key(a), key(b))
                if less(x, y) { return ascending }
                if less(y, x) { return !ascending }
                return a < b
            }
        }
        let ageLess: (Int?, Int?) -> Bool = { x, y in
            switch (x, y) {
            case (nil, nil): false
            case (nil, _): true
            case (_, nil): false
            case let (x?, y?): x < y
            }
        }
        let scoreLess: (Double, Double) -> Bool = { x, y in
            x.isNaN ? false : y.isNaN ? true : x < y
        }
        for ascending in [true, false] {
            let byAge = order({ values[$0].age }, ascending: ascending, ageLess)
            let byScore = order({ values[$0].score }, ascending: ascending, scoreLess)
            for limit in [0, 1, 2, 7, 100, 269, 270, 271, 1000] {
                let expectedAge = byAge.prefix(limit).map { $0 + 1 }
                let expectedScore = byScore.prefix(limit).map { $0 + 1 }
                #expect(ids(items.sorted(byKeyPath: "age", ascending: ascending).prefix(limit)) == expectedAge, "age, \(ascending), \(limit)")
                #expect(ids(items.sorted(byKeyPath: "score", ascending: ascending).prefix(limit)) == expectedScore, "score, \(ascending), \(limit)")
                // A filter of the row alone, and one that is not (a collection's count).
                let flagged = byAge.filter { values[$0].flag }.prefix(limit).map { $0 + 1 }
                #expect(ids(items.where { $0.flag == true }.sorted(byKeyPath: "age", ascending: ascending).prefix(limit)) == flagged)
                let counted = try items.filter("tags.@count == 0").sorted(byKeyPath: "score", ascending: ascending).prefix(limit)
                #expect(ids(counted) == expectedScore, "score through a collection count, \(ascending), \(limit)")
                #expect(counted.count == min(limit, values.count))
            }
        }
    }
}
