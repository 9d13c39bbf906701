import Foundation
import ObjDB

/// The `--freeze` run: what frozen results cost.
///
/// - Freezing: the median time of `freeze()` on every person's results and on the people with
///   `age > 50`, at N and at N / 10: the same time at both sizes shows that freezing copies no
///   object (O(1)).
/// - Reading: the wall-clock time for threads that each read every frozen person once (one
///   iteration summing the ages), with 1 thread and with 4 at once; the same read of the live
///   results on 1 thread is the reference. Throughput is objects read per second, all threads
///   together: on a machine with c cores it can grow up to min(4, c) times.
enum FreezeRun {
    /// Reads every object of `frozen` on `threads` threads at once; the wall-clock time.
    static func read(_ frozen: FrozenResults<ObjDBPerson>, threads: Int, expected: Int) throws -> UInt64 {
        let group = DispatchGroup()
        let failures = Failures()
        let start = monotonicNanoseconds()
        for _ in 0..<threads {
            group.enter()
            Thread {
                let sum = frozen.reduce(0) { $0 + $1.age }
                if sum != expected { failures.note("a thread read an age sum of \(sum), expected \(expected)") }
                group.leave()
            }.start()
        }
        group.wait()
        let elapsed = monotonicNanoseconds() - start
        if let failure = failures.first { throw CheckFailure(description: failure) }
        return elapsed
    }

    /// The first failure any thread noted.
    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: String?
        func note(_ failure: String) { lock.withLock { if stored == nil { stored = failure } } }
        var first: String? { lock.withLock { stored } }
    }

    /// The median time of `freeze()` on `results`, over many calls.
    static func freezeTime(_ results: Results<ObjDBPerson>) -> Double {
        var samples: [UInt64] = []
        for _ in 0..<1_001 {
            let start = monotonicNanoseconds()
            let frozen = results.freeze()
            samples.append(monotonicNanoseconds() - start)
            withExtendedLifetime(frozen) {}
        }
        return median(samples)
    }

    static func run(n: Int, repetitions: Int) throws -> String {
        var freezing = MarkdownTable(headers: ["freeze()", "\(formatCount(n / 10)) people µs", "\(formatCount(n)) people µs"])
        var times: [[Double]] = [[], []]
        for size in [n / 10, n] {
            let directory = try TempDirectory()
            defer { directory.remove() }
            let db = try ObjDB.Database(configuration: NotificationRun.noSyncConfiguration(directory))
            try NotificationRun.fill(db, Dataset.people(count: size))
            let all = db.objects(ObjDBPerson.self)
            let adults = all.where { $0.age > 50 }
            _ = adults.count  // evaluated: the frozen results share the keys
            times[0].append(freezeTime(all))
            times[1].append(freezeTime(adults))
        }
        freezing.append(["every person", fixed(times[0][0] / 1_000, 2), fixed(times[0][1] / 1_000, 2)])
        freezing.append(["age > 50 (evaluated)", fixed(times[1][0] / 1_000, 2), fixed(times[1][1] / 1_000, 2)])

        let directory = try TempDirectory()
        defer { directory.remove() }
        let people = Dataset.people(count: n)
        let expected = people.reduce(0) { $0 + $1.age }
        let db = try ObjDB.Database(configuration: NotificationRun.noSyncConfiguration(directory))
        try NotificationRun.fill(db, people)
        let live = db.objects(ObjDBPerson.self)
        let frozen = live.freeze()
        var liveTimes: [UInt64] = [], one: [UInt64] = [], four: [UInt64] = []
        for repetition in 0..<repetitions {
            let start = monotonicNanoseconds()
            let sum = live.reduce(0) { $0 + $1.age }
            liveTimes.append(monotonicNanoseconds() - start)
            guard sum == expected else { throw CheckFailure(description: "the live read summed \(sum), expected \(expected)") }
            one.append(try read(frozen, threads: 1, expected: expected))
            four.append(try read(frozen, threads: 4, expected: expected))
            progress("freeze repetition \(repetition + 1)/\(repetitions)")
        }
        var reading = MarkdownTable(headers: ["read every person", "threads", "wall ms", "M objects/s", "vs 1 frozen thread"])
        let perSecond = { (objects: Int, ns: Double) in fixed(Double(objects) / ns * 1_000, 2) }
        reading.append(["live results", "1", NotificationRun.ms(median(liveTimes)), perSecond(n, median(liveTimes)), "—"])
        reading.append(["frozen results", "1", NotificationRun.ms(median(one)), perSecond(n, median(one)), "1.00×"])
        reading.append(["frozen results", "4 at once", NotificationRun.ms(median(four)), perSecond(4 * n, median(four)),
                        fixed(4 * median(one) / median(four), 2) + "× throughput"])
        return freezing.render() + "\n\n" + reading.render()
            + "\n\n\(ProcessInfo.processInfo.activeProcessorCount) cores; each frozen thread reads through a frozen `Database` view of its own, all sharing one read transaction."
    }
}
