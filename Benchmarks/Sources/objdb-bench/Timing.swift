import CallgrindToggle
import Foundation

/// Nanoseconds on the monotonic clock.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Times `body`. Under `valgrind --tool=callgrind --collect-atstart=no` only `body` is counted.
@inline(never)
func timedRegion(_ body: () throws -> Void) rethrows -> UInt64 {
    objdb_bench_callgrind_toggle_collect()
    defer { objdb_bench_callgrind_toggle_collect() }
    let start = monotonicNanoseconds()
    try body()
    return monotonicNanoseconds() - start
}

/// The median of `values` (the mean of the middle two for an even count).
func median(_ values: [UInt64]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    if sorted.count % 2 == 1 { return Double(sorted[middle]) }
    return (Double(sorted[middle - 1]) + Double(sorted[middle])) / 2
}

/// A new empty directory under the system's temporary directory, removed by ``remove()``.
struct TempDirectory {
    /// The directory's path.
    let path: String

    /// Creates `objdb-bench-<pid>-<random>` in the temporary directory.
    init() throws {
        let name = "objdb-bench-\(getpid())-\(UInt64.random(in: 0..<UInt64.max))"
        path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Deletes the directory and everything in it.
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Writes a progress line to standard error, keeping standard output for the tables.
func progress(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// `value` with `digits` decimals.
func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
