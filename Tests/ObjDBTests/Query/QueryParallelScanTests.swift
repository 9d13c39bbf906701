import Foundation
import Testing
@testable import ObjDB

/// A model for scans large enough to split among threads.
final class ScanSample: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var group: Int = 0
    @Persisted var score: Double? = nil
    @Persisted var name: String = ""
    @Persisted var flag: Bool = false
    @Persisted var level: Int? = nil
}

/// Table scans split among threads (``ParallelScan``): the same keys in the same order as one
/// thread, checked against values computed here, and the cases that must stay on one thread.
struct QueryParallelScanTests {
    /// One generated row.
    struct Row {
        let id: Int
        let group: Int
        let score: Double?
        let name: String
        let flag: Bool
        let level: Int?
    }

    /// Rows with ids 1…`count`; ties in `score` are common (two decimals in 0..<1), and one in
    /// 20 has none; `flag` is nearly always a tie; `level` holds nil and `Int.min`, whose sort
    /// words are equal.
    static func makeRows(_ count: Int = 50_000) -> [Row] {
        var rng = SeededRandom(seed: 0x5CA7)
        return (1...count).map { id in
            Row(
                id: id, group: rng.below(10), score: rng.percent(5) ? nil : Double(rng.below(100)) / 100,
                name: rng.pick(["Ann", "Bob", "Cy", "Åsa"]), flag: rng.percent(3),
                level: rng.pick([nil, Int.min, -1, 0, 7, Int.max]))
        }
    }

    /// A file holding `rows`, then without the ids in `deleted` (which leaves a key range
    /// sparse or empty); its configuration with `threads` query threads.
    static func makeFile(_ directory: TemporaryDirectory, _ rows: [Row], deleted: ClosedRange<Int>? = nil, threads: Int) throws -> Configuration {
        var config = directory.configuration([ScanSample.self])
        config.durability = .noSync
        config.maximumQueryThreads = threads
        let db = try Database(configuration: config)
        try db.write {
            for row in rows {
                let sample = ScanSample()
                (sample.id, sample.group, sample.score, sample.name) = (row.id, row.group, row.score, row.name)
                (sample.flag, sample.level) = (row.flag, row.level)
                try db.add(sample)
            }
        }
        if let deleted {
            try db.write { db.delete(db.objects(ScanSample.self).where { $0.id.contains(deleted) }) }
        }
        return config
    }

    /// Whether a query on `ScanSample` in `db`'s current version would split its table scan.
    static func splits(_ db: Database) throws -> Bool {
        let info = try #require(db.classInfo(named: "ScanSample"))
        _ = db.readableTxn()
        return ParallelScan(db, info) != nil
    }

    /// The ids of `rows` passing `test`, sorted by `value` (nil first ascending, last
    /// descending, before and after every number) with ties in id order.
    static func sortedIDs(
        _ rows: [Row], by value: (Row) -> Double? = \.score, ascending: Bool, _ test: (Row) -> Bool = { _ in true }
    ) -> [Int] {
        let matches = rows.filter(test)
        return matches.sorted { a, b in
            switch (value(a), value(b)) {
            case (nil, nil): return a.id < b.id
            case (nil, _): return ascending
            case (_, nil): return !ascending
            case let (x?, y?): return x == y ? a.id < b.id : (x < y) == ascending
            }
        }.map(\.id)
    }

    @Test func splitScansGiveWhatOneThreadAndTheDataGive() throws {
        let directory = TemporaryDirectory()
        let rows = Self.makeRows()
        var config = try Self.makeFile(directory, rows, deleted: 1...10_000, threads: 4)
        let kept = Array(rows.dropFirst(10_000))
        let split = try Database(configuration: config)
        config.maximumQueryThreads = 1
        let single = try Database(configuration: config)
        // 40,000 rows: two parts of keys 1…25,000 (15,000 rows) and 25,001…50,000.
        #expect(try Self.splits(split))
        #expect(try !Self.splits(single))

        // Each filter, whether its scan splits, and what it finds.
        let filters: [(String, Bool, (Row) -> Bool)] = [
            ("group == 3", true, { $0.group == 3 }),
            ("group > 6 AND score < 0.5", true, { $0.group > 6 && ($0.score.map { $0 < 0.5 } ?? false) }),
            ("NOT (group < 5) OR flag == true", true, { $0.group >= 5 || $0.flag }),
            ("name == 'Åsa' OR name != 'Bob' AND score >= 0.9", true, { $0.name == "Åsa" || $0.name != "Bob" && ($0.score ?? 0) >= 0.9 }),
            ("group == 99", true, { _ in false }),
            ("name == 'Åsa'", true, { $0.name == "Åsa" }),
            // Two number comparisons, each pair of kinds a loop of its own.
            ("group > 2 AND group < 7", true, { $0.group > 2 && $0.group < 7 }),
            ("score > 0.2 AND score <= 0.5", true, { ($0.score ?? -1) > 0.2 && ($0.score ?? 9) <= 0.5 }),
            ("score >= 0.5 AND group == 1", true, { ($0.score ?? -1) >= 0.5 && $0.group == 1 }),
            ("group == 1 AND score < 0.5", true, { $0.group == 1 && ($0.score ?? 9) < 0.5 }),
            ("score != 0.25", true, { $0.score != 0.25 }),
            ("name != 'Bob'", true, { $0.name != "Bob" }),
            // No row-only form (nil, IN, string options): one thread.
            ("score == nil", false, { $0.score == nil }),
            ("group IN {1, 2}", false, { $0.group == 1 || $0.group == 2 }),
            ("name ==[c] 'ann'", false, { $0.name == "Ann" }),
            // The primary key answers it: no table scan at all.
            ("id > 49990", false, { $0.id > 49_990 }),
        ]
        for (text, splits, test) in filters {
            let expected = kept.filter(test).map(\.id)
            let before = split.splitScanCount
            #expect(try split.objects(ScanSample.self).filter(text).map(\.id) == expected, "\(text)")
            #expect(split.splitScanCount == before + (splits ? 1 : 0), "\(text)")
            #expect(try single.objects(ScanSample.self).filter(text).map(\.id) == expected, "\(text)")
            #expect(try split.objects(ScanSample.self).filter(text).count == expected.count, "\(text)")
        }
        #expect(single.splitScanCount == 0)

        // An unsorted distinct needs every match first: it splits.
        let before = split.splitScanCount
        var seen = Set<Int>()
        let firstOfEachGroup = kept.filter { seen.insert($0.group).inserted }.map(\.id)
        #expect(split.objects(ScanSample.self).where { $0.score != 2 }.distinct(by: ["group"]).map(\.id) == firstOfEachGroup)
        #expect(split.splitScanCount == before + 1)

        for ascending in [true, false] {
            let all = Self.sortedIDs(kept, ascending: ascending)
            let grouped = Self.sortedIDs(kept, ascending: ascending) { $0.group < 2 }
            for limit in [0, 1, 7, 100, 40_001] {
                let sorted = split.objects(ScanSample.self).sorted(byKeyPath: "score", ascending: ascending)
                #expect(sorted.prefix(limit).map(\.id) == Array(all.prefix(limit)), "ascending \(ascending), limit \(limit)")
                let filtered = try split.objects(ScanSample.self).filter("group < 2").sorted(byKeyPath: "score", ascending: ascending)
                #expect(filtered.prefix(limit).map(\.id) == Array(grouped.prefix(limit)), "group < 2, ascending \(ascending), limit \(limit)")
            }
            // `first` of sorted results keeps the best one while it scans, and a full sort by
            // one number gathers each part's order words: both split.
            let count = split.splitScanCount
            #expect(split.objects(ScanSample.self).sorted(byKeyPath: "score", ascending: ascending).first?.id == all.first)
            #expect(split.objects(ScanSample.self).sorted(byKeyPath: "score", ascending: ascending).map(\.id) == all)
            #expect(try split.objects(ScanSample.self).filter("group < 2").sorted(byKeyPath: "score", ascending: ascending).map(\.id) == grouped)
            #expect(split.splitScanCount == count + 3)
            // A sort by strings compares values read from the rows: one thread.
            let byName = kept.sorted { a, b in a.name != b.name ? Array(a.name.utf8).lexicographicallyPrecedes(Array(b.name.utf8)) == ascending : a.id < b.id }
            #expect(split.objects(ScanSample.self).sorted(byKeyPath: "name", ascending: ascending).map(\.id) == byName.map(\.id))
            #expect(split.splitScanCount == count + 3)
        }
    }

    @Test func threePartsWithAnEmptyOneAndTiesAcrossThem() throws {
        let directory = TemporaryDirectory()
        let rows = Self.makeRows(75_000)
        // Keys 1…75,000 without 25,000…50,000: 49,999 rows, three parts of keys 1…24,999,
        // 25,000…49,998 (empty) and 49,999… .
        let deleted = 25_000...50_000
        let db = try Database(configuration: try Self.makeFile(directory, rows, deleted: deleted, threads: 3))
        let kept = rows.filter { !deleted.contains($0.id) }
        #expect(try Self.splits(db))

        let before = db.splitScanCount
        #expect(db.objects(ScanSample.self).where { $0.group == 4 }.map(\.id) == kept.filter { $0.group == 4 }.map(\.id))
        #expect(db.splitScanCount == before + 1)
        // Bools tie nearly always, and nil ties with Int.min on the word: the key decides.
        let columns: [(String, (Row) -> Double?)] = [
            ("flag", { $0.flag ? 1 : 0 }), ("level", { $0.level.map(Double.init) }), ("score", \.score),
        ]
        for (name, value) in columns {
            for ascending in [true, false] {
                let expected = Self.sortedIDs(kept, by: value, ascending: ascending)
                let sorted = db.objects(ScanSample.self).sorted(byKeyPath: name, ascending: ascending)
                for limit in [1, 100, 2_000] {
                    #expect(sorted.prefix(limit).map(\.id) == Array(expected.prefix(limit)), "\(name) \(ascending) \(limit)")
                }
            }
        }
        #expect(db.splitScanCount == before + 1 + columns.count * 2 * 3)
    }

    @Test func morePartsThanThreadsAreEachScannedOnceAndJoinedInKeyOrder() throws {
        let directory = TemporaryDirectory()
        let rows = Self.makeRows(70_000)
        let db = try Database(configuration: try Self.makeFile(directory, rows, threads: 2))
        let info = try #require(db.classInfo(named: "ScanSample"))
        _ = db.readableTxn()
        // 70,000 rows: four parts (one per 16,384 rows, at most eight per thread) on two threads.
        let scan = try #require(ParallelScan(db, info))
        #expect(scan.threads == 2 && scan.parts == 4)
        let parts = try #require(scan.map { first, cursor, last -> [UInt64] in
            var keys: [UInt64] = []
            cursor.forEachRow(from: first, through: last) { key, _ in
                keys.append(key)
                return true
            }
            return keys
        })
        // Four even key ranges of 1…70,000 (17,499 keys each, the last one the rest), every key once.
        #expect(parts.map(\.count) == [17_499, 17_499, 17_499, 17_503])
        #expect(parts.joined().elementsEqual(db.objects(ScanSample.self).map { $0._objdbKey }))
        #expect(db.objects(ScanSample.self).where { $0.group == 2 }.map(\.id) == rows.filter { $0.group == 2 }.map(\.id))

        // More threads than parts: one per part.
        var config = db.configuration
        config.maximumQueryThreads = 8
        let wide = try Database(configuration: config)
        _ = wide.readableTxn()
        let wideScan = try #require(ParallelScan(wide, info))
        #expect(wideScan.threads == 4 && wideScan.parts == 4)
    }

    @Test func aCommitSinceTheSnapshotKeepsTheScanOnOneThread() throws {
        let directory = TemporaryDirectory()
        let rows = Self.makeRows()
        let config = try Self.makeFile(directory, rows, threads: 2)
        let reader = try Database(configuration: config)
        let writer = try Database(configuration: config)
        let fives = reader.objects(ScanSample.self).where { $0.group == 5 }
        let expected = rows.filter { $0.group == 5 }.map(\.id)
        #expect(fives.count == expected.count)
        #expect(try Self.splits(reader))

        // Another instance deletes 1,000 rows: the reader's snapshot still holds them, and a
        // transaction begun now would not, so the scan must not split.
        try writer.write { writer.delete(writer.objects(ScanSample.self).where { $0.id <= 1_000 }) }
        #expect(try !Self.splits(reader))
        let stale = reader.objects(ScanSample.self).where { $0.group == 5 }
        #expect(stale.map(\.id) == expected)

        // Refreshed, it reads the new version, split again.
        #expect(reader.refresh())
        #expect(try Self.splits(reader))
        #expect(reader.objects(ScanSample.self).where { $0.group == 5 }.map(\.id) == expected.filter { $0 > 1_000 })
    }

    @Test func writeTransactionsScanOnOneThreadAndSeeTheirOwnRows() throws {
        let directory = TemporaryDirectory()
        let rows = Self.makeRows()
        let db = try Database(configuration: try Self.makeFile(directory, rows, threads: 8))
        let expected = rows.filter { $0.group == 5 }.count
        #expect(db.objects(ScanSample.self).where { $0.group == 5 }.count == expected)
        try db.write {
            let extra = ScanSample()
            (extra.id, extra.group, extra.score) = (60_000, 5, 2)
            try db.add(extra)
            #expect(try !Self.splits(db))
            #expect(db.objects(ScanSample.self).where { $0.group == 5 }.count == expected + 1)
            let top = db.objects(ScanSample.self).where { $0.group == 5 }.sorted(byKeyPath: "score", ascending: false).prefix(1)
            #expect(top.map(\.id) == [60_000])
        }
    }

    @Test func extraReadTransactionsTakeAtMostAQuarterOfTheReaderSlots() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open([ScanSample.self])
        let environment = db.lease.environment
        let quota = environment.options.maxReaders / 4
        _ = db.readableTxn()
        let snapshot = try #require(db.snapshot)
        var extra = [try #require(snapshot.sameVersion())]
        for _ in 1..<quota { #expect(environment.reserveExtraReader()) }
        // The quota is spent: no more extra transactions, however many a query would want.
        #expect(!environment.reserveExtraReader())
        #expect(snapshot.sameVersion() == nil)
        // Ending one gives its slot back.
        extra.removeAll()
        #expect(snapshot.sameVersion() != nil)
        for _ in 1..<quota { environment.releaseExtraReader() }
    }

    @Test func smallTablesAndOneThreadNeverSplit() throws {
        let directory = TemporaryDirectory()
        let rows = Array(Self.makeRows().prefix(2 * ParallelScan.minimumRowsPerPart - 1))
        let db = try Database(configuration: try Self.makeFile(directory, rows, threads: 8))
        #expect(try !Self.splits(db))
        #expect(db.objects(ScanSample.self).where { $0.group == 5 }.map(\.id) == rows.filter { $0.group == 5 }.map(\.id))
        #expect(Configuration.defaultMaximumQueryThreads == min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 8))
        #expect(Configuration().maximumQueryThreads == Configuration.defaultMaximumQueryThreads)
    }
}
