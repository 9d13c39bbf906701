import Testing
@_spi(Inspection) @testable import ObjDB

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
}
