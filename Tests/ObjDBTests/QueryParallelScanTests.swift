import Foundation
import Testing
@testable import ObjDB

/// A model for scans large enough to split among threads.
final class ScanSample: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var group: Int = 0
    @Persisted var score: Double? = nil
    @Persisted var name: String = ""
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
    }

    /// 50,000 rows with ids 1…50,000; ties in `score` are common (two decimals in 0..<1), and
    /// one in 20 has none.
    static func makeRows() -> [Row] {
        var rng = SeededRandom(seed: 0x5CA7)
        return (1...50_000).map { id in
            Row(
                id: id, group: rng.below(10), score: rng.percent(5) ? nil : Double(rng.below(100)) / 100,
                name: rng.pick(["Ann", "Bob", "Cy", "Åsa"]))
        }
    }

    /// A file holding `rows`, then without ids 1…`deleted` (which leaves the first key range
    /// sparse); its configuration with `threads` query threads.
    static func makeFile(_ directory: TemporaryDirectory, _ rows: [Row], deleted: Int, threads: Int) throws -> Configuration {
        var config = directory.configuration([ScanSample.self])
        config.durability = .noSync
        config.maximumQueryThreads = threads
        let db = try Database(configuration: config)
        try db.write {
            for row in rows {
                let sample = ScanSample()
                (sample.id, sample.group, sample.score, sample.name) = (row.id, row.group, row.score, row.name)
                try db.add(sample)
            }
        }
        try db.write { db.delete(db.objects(ScanSample.self).where { $0.id <= deleted }) }
        return config
    }

    /// Whether a query on `ScanSample` in `db`'s current version would split its table scan.
    static func splits(_ db: Database) throws -> Bool {
        let info = try #require(db.classInfo(named: "ScanSample"))
        _ = db.readableTxn()
        return ParallelScan(db, info) != nil
    }

    /// The ids of `rows` passing `test`, sorted by score (nil first) with ties in id order.
    static func sortedIDs(_ rows: [Row], ascending: Bool, _ test: (Row) -> Bool = { _ in true }) -> [Int] {
        let matches = rows.filter(test)
        return matches.sorted { a, b in
            switch (a.score, b.score) {
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
        var config = try Self.makeFile(directory, rows, deleted: 10_000, threads: 4)
        let kept = Array(rows.dropFirst(10_000))
        let split = try Database(configuration: config)
        config.maximumQueryThreads = 1
        let single = try Database(configuration: config)
        // 40,000 rows: two parts of keys 1…25,000 (15,000 rows) and 25,001…50,000.
        #expect(try Self.splits(split))
        #expect(try !Self.splits(single))

        let filters: [(String, (Row) -> Bool)] = [
            ("group == 3", { $0.group == 3 }),
            ("group > 6 AND score < 0.5", { $0.group > 6 && ($0.score.map { $0 < 0.5 } ?? false) }),
            ("score == nil", { $0.score == nil }),
            ("name == 'Åsa' OR id > 49990", { $0.name == "Åsa" || $0.id > 49_990 }),
            ("id > 0", { _ in true }),
            ("group == 99", { _ in false }),
        ]
        for (text, test) in filters {
            let expected = kept.filter(test).map(\.id)
            let splitIDs = try split.objects(ScanSample.self).filter(text).map(\.id)
            #expect(splitIDs == expected, "\(text)")
            #expect(try single.objects(ScanSample.self).filter(text).map(\.id) == expected, "\(text)")
            #expect(try split.objects(ScanSample.self).filter(text).count == expected.count, "\(text)")
        }

        for ascending in [true, false] {
            let all = Self.sortedIDs(kept, ascending: ascending)
            let grouped = Self.sortedIDs(kept, ascending: ascending) { $0.group < 2 }
            for limit in [0, 1, 7, 100, 40_001] {
                let sorted = split.objects(ScanSample.self).sorted(byKeyPath: "score", ascending: ascending)
                #expect(sorted.prefix(limit).map(\.id) == Array(all.prefix(limit)), "ascending \(ascending), limit \(limit)")
                let filtered = try split.objects(ScanSample.self).filter("group < 2").sorted(byKeyPath: "score", ascending: ascending)
                #expect(filtered.prefix(limit).map(\.id) == Array(grouped.prefix(limit)), "group < 2, ascending \(ascending), limit \(limit)")
            }
        }
    }

    @Test func aCommitSinceTheSnapshotKeepsTheScanOnOneThread() throws {
        let directory = TemporaryDirectory()
        let rows = Self.makeRows()
        let config = try Self.makeFile(directory, rows, deleted: 0, threads: 2)
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
        let db = try Database(configuration: try Self.makeFile(directory, rows, deleted: 0, threads: 8))
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

    @Test func smallTablesAndOneThreadNeverSplit() throws {
        let directory = TemporaryDirectory()
        let rows = Array(Self.makeRows().prefix(2 * ParallelScan.minimumRowsPerPart - 1))
        let db = try Database(configuration: try Self.makeFile(directory, rows, deleted: 0, threads: 8))
        #expect(try !Self.splits(db))
        #expect(db.objects(ScanSample.self).where { $0.group == 5 }.map(\.id) == rows.filter { $0.group == 5 }.map(\.id))
        #expect(Configuration.defaultMaximumQueryThreads == min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 8))
        #expect(Configuration().maximumQueryThreads == Configuration.defaultMaximumQueryThreads)
    }
}
