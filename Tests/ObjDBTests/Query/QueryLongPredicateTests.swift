import Foundation
import Testing
import ObjDB

/// Predicates with thousands of operands compile and run without deep recursion.
struct QueryLongPredicateTests {
    /// Adds items 1…3 with scores 0, 1, 2.
    private func openWithItems() throws -> (TemporaryDirectory, Database) {
        let directory = TemporaryDirectory()
        let db = try directory.open([QItem.self, QOwner.self])
        try db.write {
            for i in 0..<3 {
                let item = QItem()
                (item.id, item.rank, item.score) = (i + 1, -1 - i, Double(i))
                try db.add(item)
            }
        }
        return (directory, db)
    }

    /// `reduce(||)` and `reduce(&&)` in the DSL: the chain is flattened into one operator, so
    /// 10,000 operands do not nest 10,000 deep (which overflowed the stack in debug builds).
    @Test func aDSLChainOfTenThousandOperands() throws {
        let (directory, db) = try openWithItems()
        _ = directory
        let scores = (0..<10_000).map { Double($0 + 10) }
        let items = db.objects(QItem.self)
        let misses = items.where { item in scores.map { item.score == $0 }.reduce(item.score == -1, ||) }
        #expect(misses.count == 0)
        let hit = items.where { item in scores.map { item.score == $0 }.reduce(item.score == 1, ||) }
        #expect(hit.map(\.id) == [2])
        // Every operand holds for items 2 and 3 (scores 1 and 2), not for item 1 (score 0).
        let all = items.where { item in scores.map { item.score < $0 }.reduce(item.score > 0.5, &&) }
        #expect(all.map(\.id) == [2, 3])
        let grouped = items.where { ($0.score == 0 || $0.score == 2) && ($0.id > 1 || $0.rank == -1) }
        #expect(grouped.map(\.id).sorted() == [1, 3])
    }

    @Test func aFlatOrOfTwentyThousandComparisons() throws {
        let (directory, db) = try openWithItems()
        _ = directory
        let n = 20_000
        // Scores 10 … n + 9 match nothing; one more operand matches item 2 (score 1).
        let misses = (0..<n).map { "score == \($0 + 10)" }
        #expect(try db.objects(QItem.self).filter(misses.joined(separator: " OR ")).count == 0)
        #expect(try db.objects(QItem.self).filter((misses + ["score == 1"]).joined(separator: " OR ")).map(\.id) == [2])
        // A comparison through a link has no row-only form: the general path loops as well.
        #expect(try db.objects(QItem.self).filter((misses + ["owner.level == 1"]).joined(separator: " OR ")).count == 0)
    }

    @Test func aGeneralPredicateOverFiftyThousandRows() throws {
        // A filter with no row-only form is tested through one compiled closure per query; it
        // once gained a pair of conversion thunks per row tested, overflowing the stack of a
        // debug build after some tens of thousands of rows.
        let directory = TemporaryDirectory()
        var config = directory.configuration([QItem.self, QOwner.self])
        config.durability = .noSync
        let db = try Database(configuration: config)
        let n = 50_000
        try db.write {
            for i in 1...n {
                let item = QItem()
                (item.id, item.score) = (i, Double(i % 100))
                try db.add(item)
            }
        }
        let expected = (1...n).filter { $0 % 100 == 7 }
        #expect(try db.objects(QItem.self).filter("owner.level == 1 OR score == 7").map(\.id) == expected)
    }

    @Test func aFlatAndOfTwentyThousandComparisons() throws {
        let (directory, db) = try openWithItems()
        _ = directory
        let n = 20_000
        // Every score differs from 10 … n + 9: each item passes all of them.
        let passes = (0..<n).map { "score != \($0 + 10)" }
        #expect(try db.objects(QItem.self).filter(passes.joined(separator: " AND ")).count == 3)
        #expect(try db.objects(QItem.self).filter((passes + ["score > 0.5"]).joined(separator: " AND ")).map(\.id) == [2, 3])
        #expect(try db.objects(QItem.self).filter((passes + ["owner.level == nil"]).joined(separator: " AND ")).count == 3)
    }
}
