import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Table scans that stop early (`first`, `prefix(n)`) split into chunks among threads
/// (``ParallelScan/firstKeys(from:limit:_:)``): the first matches in key order, as the rows
/// computed here give them, wherever the matches lie, and the cases that stay on one thread.
struct QueryParallelEarlyStopTests {
    typealias Row = QueryParallelScanTests.Row

    /// The ids of `kept` that pass `test`, at most `limit`.
    static func expected(_ kept: [Row], _ limit: Int, _ test: (Row) -> Bool) -> [Int] {
        Array(kept.lazy.filter(test).prefix(limit).map(\.id))
    }

    /// A database of `rows` generated rows without the ids in `deleted`, queried with `threads`
    /// threads, and the rows it keeps.
    static func makeDatabase(_ directory: TemporaryDirectory, rows count: Int, deleted: ClosedRange<Int>, threads: Int) throws -> (Database, [Row]) {
        let rows = QueryParallelScanTests.makeRows(count)
        let config = try QueryParallelScanTests.makeFile(directory, rows, deleted: deleted, threads: threads)
        return (try Database(configuration: config), rows.filter { !deleted.contains($0.id) })
    }

    /// Sets `group` to `marker` on the objects `ids` of `db`, and in `rows`.
    static func mark(_ ids: [Int], group marker: Int, _ db: Database, _ rows: inout [Row]) throws {
        try db.write {
            for id in ids {
                let sample = try #require(db.object(ofType: ScanSample.self, forPrimaryKey: id))
                sample.group = marker
            }
        }
        for index in rows.indices where ids.contains(rows[index].id) {
            let row = rows[index]
            rows[index] = Row(id: row.id, group: marker, score: row.score, name: row.name, flag: row.flag, level: row.level)
        }
    }

    @Test func earlyStopsFindTheFirstMatchesWhereverTheyLie() throws {
        let directory = TemporaryDirectory()
        // Keys 20,001…30,000 gone: a sparse stretch in the middle, chunks with no rows.
        var (db, kept) = try Self.makeDatabase(directory, rows: 60_000, deleted: 20_001...30_000, threads: 3)
        // Markers: 50 only past the deleted stretch, 51 only in the last rows, 52 in the first
        // keys and then far on.
        try Self.mark([31_000, 31_001, 45_123, 59_000], group: 50, db, &kept)
        try Self.mark([59_998, 60_000], group: 51, db, &kept)
        try Self.mark([2, 4_000, 4_097, 50_000], group: 52, db, &kept)
        #expect(try QueryParallelScanTests.splits(db))

        // Each filter (none has a primary-key range: those read the primary-key table) and the
        // limits to try.
        let cases: [(String, [Int], (Row) -> Bool)] = [
            // Matches everywhere: the first ones are in the first keys, unless many are needed.
            ("group == 3", [1, 10, 1_000, 5_999, 100_000], { $0.group == 3 }),
            ("group == 50", [1, 3, 4, 2_500], { $0.group == 50 }),
            ("group == 51 AND flag == false", [1, 2], { $0.group == 51 && !$0.flag }),
            ("group == 52", [1, 2, 3, 4], { $0.group == 52 }),
            ("group == 99", [1, 50], { _ in false }),
            // One string equality or inequality: a loop of its own (`BytesEquality`).
            ("name == 'Cy'", [1, 3_000], { $0.name == "Cy" }),
            ("name != 'Ann'", [1, 5_000], { $0.name != "Ann" }),
            ("name == 'Nobody'", [1], { _ in false }),
            // A conjunction with a part that is not a column test (NOT over an OR).
            ("group > 5 AND NOT (name == 'Ann' OR name == 'Bob')", [1, 4_000], { $0.group > 5 && $0.name != "Ann" && $0.name != "Bob" }),
        ]
        for (text, limits, test) in cases {
            for limit in limits {
                let want = Self.expected(kept, limit, test)
                let results = try db.objects(ScanSample.self).filter(text)
                let before = db.splitScanCount
                #expect(results.prefix(limit).map(\.id) == want, "\(text), limit \(limit)")
                // The scan splits exactly when the first 1,024 keys do not hold the matches.
                let withinFirstKeys = want.count == limit && (want.last ?? .max) <= ParallelScan.rowsPerChunk
                #expect(db.splitScanCount == before + (withinFirstKeys ? 0 : 1), "\(text), limit \(limit)")
                if limit == 1 { #expect(try db.objects(ScanSample.self).filter(text).first?.id == want.first, "\(text)") }
            }
        }
        // `isEmpty` stops at the first match too.
        #expect(try !db.objects(ScanSample.self).filter("group == 51").isEmpty)
        #expect(try db.objects(ScanSample.self).filter("group == 99").isEmpty)
    }

    @Test func aSmallTableOrOneThreadStopsEarlyOnOneThread() throws {
        let directory = TemporaryDirectory()
        var rows = QueryParallelScanTests.makeRows(30_000)
        // 30,000 rows: fewer than two parts' worth, so no split.
        let small = try Database(configuration: try QueryParallelScanTests.makeFile(directory, rows, threads: 2))
        try Self.mark([25_000, 29_999], group: 50, small, &rows)
        #expect(try !QueryParallelScanTests.splits(small))
        #expect(small.objects(ScanSample.self).where { $0.group == 50 }.prefix(3).map(\.id) == [25_000, 29_999])
        #expect(small.splitScanCount == 0)

        let other = TemporaryDirectory()
        var bigger = QueryParallelScanTests.makeRows(40_000)
        let single = try Database(configuration: try QueryParallelScanTests.makeFile(other, bigger, threads: 1))
        try Self.mark([35_000, 39_999], group: 50, single, &bigger)
        #expect(single.objects(ScanSample.self).where { $0.group == 50 }.prefix(3).map(\.id) == [35_000, 39_999])
        #expect(single.objects(ScanSample.self).where { $0.group == 3 }.prefix(5_000).map(\.id) == Self.expected(bigger, 5_000) { $0.group == 3 })
        #expect(single.splitScanCount == 0)
    }

    @Test func aLimitInsideAWriteStaysOnOneThreadAndSeesTheWrite() throws {
        let directory = TemporaryDirectory()
        let rows = QueryParallelScanTests.makeRows(40_000)
        let db = try Database(configuration: try QueryParallelScanTests.makeFile(directory, rows, threads: 2))
        let first: Int? = try db.write {
            let sample = try #require(db.object(ofType: ScanSample.self, forPrimaryKey: 39_000))
            sample.group = 42
            return db.objects(ScanSample.self).where { $0.group == 42 }.first?.id
        }
        #expect(first == 39_000)
        #expect(db.splitScanCount == 0)
        // Committed, a later read splits and finds it.
        #expect(db.objects(ScanSample.self).where { $0.group == 42 }.first?.id == 39_000)
        #expect(db.splitScanCount == 1)
    }

    /// Object keys near `UInt64.max` (a file whose key counter is that high): the first
    /// part's end, 1,024 keys on, would overflow.
    @Test func keysNearTheTopOfTheRangeStillGiveTheirFirstMatches() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open([Person.self])
        let info = try #require(try db.classInfo(for: Person.self))
        db.environment.raiseCounterFloor(info.classID, to: UInt64.max - 100)
        try db.write {
            for i in 1...3 { try db.add(person(i, "P\(i)", age: i)) }
        }
        let all = db.objects(Person.self)
        #expect(all.count == 3)
        #expect(Array(all.map(\.id)) == [1, 2, 3])
        #expect(all.first?.id == 1, "first")
        #expect(!all.isEmpty, "isEmpty")
        #expect(try all.filter("age > 1").first?.id == 2, "filtered first")
        #expect(Array(try all.filter("age > 0").prefix(2).map(\.id)) == [1, 2], "prefix")
        #expect(try !all.filter("age > 2").isEmpty, "filtered isEmpty")
    }

    /// Random early stops over a larger file split four ways, with a deleted stretch: the first
    /// matches of conjunctions of int, bool, string and double tests, at limits around the
    /// number of matches.
    @Test func randomEarlyStopsGiveWhatTheDataGives() throws {
        let directory = TemporaryDirectory()
        let (db, kept) = try Self.makeDatabase(directory, rows: 100_000, deleted: 40_001...55_000, threads: 4)
        #expect(try QueryParallelScanTests.splits(db))
        var rng = SeededRandom(seed: 77)
        let cases: [(String, (QueryParallelScanTests.Row) -> Bool)] = [
            ("group == 3 AND flag == true", { $0.group == 3 && $0.flag }),
            ("name == 'Cy' AND flag == true AND level == 7", { $0.name == "Cy" && $0.flag && $0.level == 7 }),
            ("name == 'Åsa' AND group == 9 AND score > 0.97", { $0.name == "Åsa" && $0.group == 9 && ($0.score ?? -1) > 0.97 }),
            ("flag == true AND level == 0 AND score < 0.02", { $0.flag && $0.level == 0 && ($0.score ?? 2) < 0.02 }),
        ]
        var splits = 0
        for round in 0..<60 {
            let (text, test) = cases[round % cases.count]
            let all = kept.filter(test).map(\.id)
            let limit = [1, 2, 3, 5, 17, all.count, all.count + 1, max(1, all.count - 1), rng.below(all.count + 2) + 1][round % 9]
            let before = db.splitScanCount
            let got = try db.objects(ScanSample.self).filter(text).prefix(limit).map(\.id)
            if db.splitScanCount > before { splits += 1 }
            #expect(Array(got) == Array(all.prefix(limit)), "\(text) limit \(limit) total \(all.count)")
            #expect(try db.objects(ScanSample.self).filter(text).first?.id == all.first, "\(text)")
        }
        #expect(splits > 0)
    }
}
