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

/// Writes every dirty page of the machine to disk (`sync`) before a timed region, so that a run
/// does not pay for the write-back of the files the run before it wrote and deleted (with GRDB's
/// runs interleaved, ObjDB's insert of 100k objects measured 190 ms against 120 ms alone).
func settleDisk() {
    sync()
}

/// Runs `body` once untimed, then times it: for read-only scenarios, which can repeat on the
/// same database. A memory-mapped file's pages are mapped into the process on first touch (for
/// a 1M-object table, about 10 ms of page faults for ObjDB and raw LMDB alike), at a cost that
/// depends on what the kernel is doing for the runs before (GRDB's files being written back and
/// deleted made ObjDB's first read of 100k objects 70 % slower); SQLite reads the same pages into
/// its own cache with `pread`. The warm-up gives every system its steady state, as a read an
/// application repeats sees it.
func timedAfterWarmUp(_ body: () throws -> Void) rethrows -> UInt64 {
    try body()
    return try timedRegion(body)
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

    /// Deletes the directory and everything in it, unless `OBJDB_BENCH_KEEP` is set (to look
    /// at the files afterwards, say with `mdb_stat -a -n`).
    func remove() {
        if ProcessInfo.processInfo.environment["OBJDB_BENCH_KEEP"] != nil {
            progress("kept \(path)")
            return
        }
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Writes a progress line to standard error, keeping standard output for the tables.
func progress(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// `value` with `digits` decimals.
func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
