import Foundation

/// A result that differs from what the data says it must be.
struct CheckFailure: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String
}

/// Runs scenarios on fresh databases and collects the timings.
enum Runner {
    /// Runs `scenario` once for `system` in a fresh temporary directory: untimed setup, the timed
    /// part (after one untimed run of it for read-only scenarios, see `timedAfterWarmUp`), then
    /// (when `verify`) an untimed check of the result against the data.
    static func runOnce(
        _ scenario: Scenario, _ system: any BenchSystem.Type, _ work: Workload, verify: Bool
    ) throws -> UInt64 {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let db = try system.init(directory: directory.path, create: true)
        defer { db.close() }
        if scenario.needsData {
            try db.insert(work.people)
            try db.warmUp()
        }
        settleDisk()
        var result = ""
        let nanoseconds: UInt64
        switch scenario {
        case .insert:
            nanoseconds = try timedRegion { try db.insert(work.people) }
            if verify { result = "\(try db.readAll())" }
        case .readAll:
            var sum = Checksum()
            nanoseconds = try timedAfterWarmUp { sum = try db.readAll() }
            result = "\(sum)"
        case .lookup:
            var total = 0
            nanoseconds = try timedAfterWarmUp { total = try db.lookup(work.lookupIDs) }
            result = "\(total)"
        case .lookupStatement:
            var total = 0
            nanoseconds = try timedAfterWarmUp { total = try db.lookupPrepared(work.lookupIDs) }
            result = "\(total)"
        case .count:
            var count = 0
            nanoseconds = try timedAfterWarmUp { count = try db.countAgeOver50() }
            result = "\(count)"
        case .countIndex:
            var count = 0
            nanoseconds = try timedAfterWarmUp { count = try db.countAgeOver50Indexed() }
            result = "\(count)"
        case .update:
            nanoseconds = try timedRegion { try db.incrementAllAges() }
            if verify { result = "\(try db.readAll())" }
        case .updateSQL:
            nanoseconds = try timedRegion { try db.incrementAllAgesSetBased() }
            if verify { result = "\(try db.readAll())" }
        case .delete:
            nanoseconds = try timedRegion { try db.deleteAll() }
            if verify { result = "\(try db.readAll())" }
        case .singleWrites:
            nanoseconds = try timedRegion { try db.insertEach(work.singles[...]) }
            if verify { result = "\(try db.readAll())" }
        case .coldStart:
            db.close()
            var reopened: (any BenchSystem)?
            var age = 0
            nanoseconds = try timedRegion {
                let fresh = try system.init(directory: directory.path, create: false)
                reopened = fresh
                age = try fresh.lookup([work.coldID])
            }
            reopened?.close()
            result = "\(age)"
        }
        if verify || !result.isEmpty {
            let expected = work.expected(scenario)
            guard result == expected else {
                throw CheckFailure(description: "\(system.name) \(scenario.rawValue): got \(result), expected \(expected)")
            }
        }
        return nanoseconds
    }

    /// Runs every scenario `repetitions` times, the systems interleaved within each
    /// repetition, and returns the samples by scenario and system name.
    static func run(
        _ scenarios: [Scenario], systems: [any BenchSystem.Type], work: Workload, repetitions: Int
    ) throws -> [Scenario: [String: [UInt64]]] {
        var samples: [Scenario: [String: [UInt64]]] = [:]
        for scenario in scenarios {
            for repetition in 0..<repetitions {
                for system in systems {
                    let ns = try runOnce(scenario, system, work, verify: repetition == 0)
                    samples[scenario, default: [:]][system.name, default: []].append(ns)
                }
            }
            let summary = systems.map { "\($0.name) \(fixed(median(samples[scenario]?[$0.name] ?? []) / 1e6, 2)) ms" }
            progress("\(scenario.rawValue): " + summary.joined(separator: ", "))
        }
        return samples
    }
}
