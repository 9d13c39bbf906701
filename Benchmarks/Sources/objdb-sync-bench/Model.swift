import Foundation
import ObjDB

/// The synced class of the benchmark: a `String` primary key and five properties.
final class BenchItem: Object {
    @Persisted(primaryKey: true) var id: String = ""
    @Persisted var name: String = ""
    @Persisted var count: Int = 0
    @Persisted var score: Double = 0
    @Persisted var created: Date = Date(timeIntervalSince1970: 0)
    @Persisted var flag: Bool = false
}

/// One row as plain values: what the floors read from and write to PostgreSQL.
struct ItemRow: Sendable, Equatable {
    var id: String
    var name: String
    var count: Int
    var score: Double
    var created: Double
    var flag: Bool

    /// `n` rows with ids `prefix-000001`…, deterministic values, dates in whole seconds.
    static func make(_ n: Int, prefix: String) -> [ItemRow] {
        (0..<n).map { k in
            let i = k + 1
            return ItemRow(
                id: "\(prefix)-\(String(format: "%07d", i))", name: "Item \(i)", count: (i &* 7919) % 1000,
                score: Double((i &* 104_729) % 10_000) / 100, created: 1_700_000_000 + Double(i), flag: i % 2 == 0)
        }
    }

    func object() -> BenchItem {
        let item = BenchItem()
        item.id = id
        item.name = name
        item.count = count
        item.score = score
        item.created = Date(timeIntervalSince1970: created)
        item.flag = flag
        return item
    }
}

/// Writes every dirty page of the machine to disk (`sync`), then reads the clock
/// (``monotonicNanoseconds()``): each timed row and floor starts on a settled disk, as
/// objdb-bench's regions do, so that it does not pay for the write-back of what the rows and the
/// runs before it wrote and deleted (a temporary PostgreSQL cluster, ObjDB files synced at every
/// commit).
func settledStart() -> UInt64 {
    sync()
    return monotonicNanoseconds()
}

/// The monotonic clock in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Seconds since `start`.
func seconds(since start: UInt64) -> Double { Double(monotonicNanoseconds() - start) / 1e9 }

/// A failed check or a bad argument.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Progress on standard error, so that standard output is the report.
func progress(_ text: String) {
    FileHandle.standardError.write(Data("[objdb-sync-bench] \(text)\n".utf8))
}

/// The `p` quantile (0…1) of `values`, nearest rank.
func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let index = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
    return sorted[max(0, index)]
}

/// `n` with thousands separators: 100,000.
func grouped(_ n: Int) -> String {
    var digits = String(n)
    var i = digits.count - 3
    while i > 0 {
        digits.insert(",", at: digits.index(digits.startIndex, offsetBy: i))
        i -= 3
    }
    return digits
}
