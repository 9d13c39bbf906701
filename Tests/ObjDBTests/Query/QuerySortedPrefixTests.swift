import Foundation
import Testing
@testable import ObjDB

/// A model with a column of every kind sorted by order words, optional where it can be.
final class SortSample: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var ratio: Float = 0
    @Persisted var weight: Double? = nil
    @Persisted var seen: Date? = nil
    @Persisted var done: Bool = false
    @Persisted var samples: List<SortSample>
}

/// Sorted prefixes (``TopWords``) on every word kind, through indexes, and over a list that holds
/// the same object twice: each checked against a stable sort written here.
struct QuerySortedPrefixTests {
    /// The order `sortCompare` defines for an optional number: nil, then numbers (`-0.0` equal to
    /// `0.0`), then NaN; descending reverses it. Ties keep `positions` order.
    static func stableOrder(_ values: [Double?], ascending: Bool) -> [Int] {
        func rank(_ v: Double?) -> (Int, Double) {
            guard let v else { return (0, 0) }
            return v.isNaN ? (2, 0) : (1, v)
        }
        return values.indices.sorted { a, b in
            let (x, y) = (rank(values[a]), rank(values[b]))
            if x < y { return ascending }
            if y < x { return !ascending }
            return a < b
        }
    }

    static let limits = [0, 1, 3, 10, 39, 40, 41, 500]

    /// 40 rows sort by comparisons; 600 go through the radix sort of order words.
    @Test(arguments: [40, 600]) func floatsOptionalDoublesDatesAndBools(rowCount: Int) throws {
        let directory = TemporaryDirectory()
        let db = try directory.open([SortSample.self])
        var rng = SeededRandom(seed: 0x50_27)
        let numbers: [Double?] = [nil, .nan, -0.0, 0, 2.5, -1, .infinity, -.infinity, 2.5]
        var rows: [(ratio: Float, weight: Double?, seen: Double?, done: Bool)] = []
        for _ in 0..<rowCount {
            let ratio = rng.pick(numbers) ?? 1
            rows.append((Float(ratio), rng.pick(numbers), rng.pick([nil, -86_400, 0, 1e9, 1e9]), rng.percent(50)))
        }
        try db.write {
            for (i, row) in rows.enumerated() {
                let sample = SortSample()
                (sample.id, sample.ratio, sample.weight, sample.done) = (i + 1, row.ratio, row.weight, row.done)
                sample.seen = row.seen.map { Date(timeIntervalSince1970: $0) }
                try db.add(sample)
            }
        }
        let samples = db.objects(SortSample.self)
        let columns: [(String, [Double?])] = [
            ("ratio", rows.map { Double($0.ratio) }),
            ("weight", rows.map(\.weight)),
            ("seen", rows.map(\.seen)),
            ("done", rows.map { $0.done ? 1 : 0 }),
        ]
        for (name, values) in columns {
            for ascending in [true, false] {
                let expected = Self.stableOrder(values, ascending: ascending).map { $0 + 1 }
                let sorted = samples.sorted(byKeyPath: name, ascending: ascending)
                #expect(sorted.map(\.id) == expected, "\(name) \(ascending), all")
                for limit in Self.limits {
                    #expect(sorted.prefix(limit).map(\.id) == Array(expected.prefix(limit)), "\(name) \(ascending) \(limit)")
                }
                #expect(sorted.first?.id == expected.first, "\(name) \(ascending) first")
            }
        }
    }

    @Test func throughIndexesWithNilAndIntMin() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open([QItem.self, QOwner.self])
        var rng = SeededRandom(seed: 0x1D_E5)
        let ages: [Int?] = [nil, .min, .max, -3, 0, 5, 5, 40]
        var rows: [(age: Int?, flag: Bool, score: Double)] = []
        try db.write {
            for i in 0..<80 {
                let row = (age: rng.pick(ages), flag: rng.percent(50), score: rng.pick([0.5, 0.25, 1, -1, .nan]))
                rows.append(row)
                let item = QItem()
                (item.id, item.name, item.age, item.flag, item.score) = (i + 1, "item \(i)", row.age, row.flag, row.score)
                try db.add(item)
            }
        }
        let items = db.objects(QItem.self)
        func expected(_ keep: (Int) -> Bool, by key: (Int) -> Double?, ascending: Bool) -> [Int] {
            let kept = rows.indices.filter(keep)
            return Self.stableOrder(kept.map(key), ascending: ascending).map { kept[$0] + 1 }
        }
        // As doubles, the ages keep their order (Int.min and Int.max stay apart from the rest).
        let age: (Int) -> Double? = { rows[$0].age.map(Double.init) }
        for ascending in [true, false] {
            // Answered by the flag index alone (no row visited), then sorted.
            let flagged = expected({ rows[$0].flag }, by: age, ascending: ascending)
            // The flag index, then a filter on the row: rows are visited and offered.
            let flaggedBelow = expected({ rows[$0].flag && rows[$0].score < 2 }, by: age, ascending: ascending)
            // An index range, then a filter on the row: rows are visited and offered.
            let positive = expected({ (rows[$0].age ?? 0) > 0 && rows[$0].score < 2 }, by: { rows[$0].score }, ascending: ascending)
            for limit in Self.limits {
                let byFlag = items.where { $0.flag == true }.sorted(byKeyPath: "age", ascending: ascending).prefix(limit)
                #expect(byFlag.map(\.id) == Array(flagged.prefix(limit)), "flag index, \(ascending), \(limit)")
                let byFlagAndRow = items.where { $0.flag == true && $0.score < 2 }.sorted(byKeyPath: "age", ascending: ascending).prefix(limit)
                #expect(byFlagAndRow.map(\.id) == Array(flaggedBelow.prefix(limit)), "flag index and row, \(ascending), \(limit)")
                let byRange = items.where { $0.age > 0 && $0.score < 2 }.sorted(byKeyPath: "score", ascending: ascending)
                #expect(byRange.prefix(limit).map(\.id) == Array(positive.prefix(limit)), "age range, \(ascending), \(limit)")
            }
            #expect(items.where { $0.flag == true }.sorted(byKeyPath: "age", ascending: ascending).first?.id == flagged.first)
        }
    }

    @Test func aListHoldingAnObjectTwiceKeepsBothCopiesInListOrder() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open([SortSample.self])
        let weights: [Double?] = [3, nil, 1, 3, .nan]
        let holder = SortSample()
        try db.write {
            var samples: [SortSample] = []
            for (i, weight) in weights.enumerated() {
                let sample = SortSample()
                (sample.id, sample.weight) = (i + 1, weight)
                samples.append(sample)
            }
            holder.id = 100
            // Positions: 3, 1, 3, 5, 2, 4, 1.
            holder.samples.append(contentsOf: [samples[2], samples[0], samples[2], samples[4], samples[1], samples[3], samples[0]])
            try db.add(holder)
        }
        let listed: [Int] = [3, 1, 3, 5, 2, 4, 1]
        for ascending in [true, false] {
            let order = Self.stableOrder(listed.map { weights[$0 - 1] }, ascending: ascending).map { listed[$0] }
            for limit in Self.limits {
                #expect(holder.samples.sorted(byKeyPath: "weight", ascending: ascending).prefix(limit).map(\.id) == Array(order.prefix(limit)),
                        "\(ascending) \(limit)")
            }
        }
    }
}
