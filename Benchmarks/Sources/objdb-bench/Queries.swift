/// The `--queries` run: equality lookups with and without an index (at several sizes with one),
/// an `IN` query, counts with and without an index, and a sort; systems interleaved, every
/// result checked.
enum QueryRun {
    /// One timed run of `scenario` for `system` on a fresh database holding `work.people`
    /// (inserted and warmed up untimed), checked against `work`. The timed run follows one
    /// untimed run of the same query, so that it measures the query, not the first touch of the
    /// file's pages by the process (see `timedAfterWarmUp`).
    private static func runOnce(_ scenario: QueryScenario, _ system: any QuerySystem.Type, _ work: QueryWorkload, _ expected: Expected) throws -> UInt64 {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let db = try system.init(directory: directory.path, indexed: scenario.indexed)
        defer { db.close() }
        try db.insert(work.people)
        try db.warmUp()
        settleDisk()
        var result = QueryResult.count(-1)
        let nanoseconds: UInt64
        switch scenario {
        case .indexedLookup:
            nanoseconds = try timedAfterWarmUp { result = .found(try db.lookupFirst(names: work.lookupNames)) }
        case .indexedLookupStatement:
            nanoseconds = try timedAfterWarmUp { result = .found(try db.lookupFirstPrepared(names: work.lookupNames)) }
        case .scanLookup:
            let names = work.scanLookupNames
            nanoseconds = try timedAfterWarmUp { result = .found(try db.lookupFirst(names: names)) }
        case .inQuery:
            nanoseconds = try timedAfterWarmUp { result = .found(try db.fetchAll(ids: work.inIDs)) }
        case .countScan:
            nanoseconds = try timedAfterWarmUp { result = .count(try db.countAgeOver50ScoreUnderHalf()) }
        case .countIndex:
            nanoseconds = try timedAfterWarmUp { result = .count(try db.countAgeOver50()) }
        case .sort:
            nanoseconds = try timedAfterWarmUp { result = .sorted(try db.sortedByScore(prefix: QueryWorkload.sortPrefix)) }
        case .sortLimit:
            nanoseconds = try timedAfterWarmUp { result = .sorted(try db.sortedByScoreLimited(prefix: QueryWorkload.sortPrefix)) }
        }
        let wanted = expected.result(scenario)
        guard result == wanted else {
            throw CheckFailure(description: "\(system.name) \(scenario.rawValue) at \(formatCount(work.n)): got \(result), expected \(wanted)")
        }
        return nanoseconds
    }

    /// What the scenarios must give at one size, computed once from the workload.
    private struct Expected {
        /// Indexed lookups.
        let lookups: QueryChecksum
        /// Unindexed lookups.
        let scanLookups: QueryChecksum
        /// The `IN` query.
        let inQuery: QueryChecksum
        /// `age > 50 && score < 0.5`.
        let countScan: Int
        /// `age > 50`.
        let countIndex: Int
        /// The sort.
        let sorted: SortedPrefix

        /// Computes what `scenarios` need from `work` (the others stay empty).
        init(_ work: QueryWorkload, _ scenarios: Set<QueryScenario>) throws {
            lookups = !scenarios.isDisjoint(with: [.indexedLookup, .indexedLookupStatement]) ? work.expectedLookups(work.lookupNames) : QueryChecksum()
            scanLookups = scenarios.contains(.scanLookup) ? work.expectedLookups(work.scanLookupNames) : QueryChecksum()
            inQuery = scenarios.contains(.inQuery) ? work.expectedIn : QueryChecksum()
            countScan = scenarios.contains(.countScan) ? work.expectedCountAgeAndScore : 0
            countIndex = scenarios.contains(.countIndex) ? work.expectedCountAge : 0
            sorted = scenarios.contains(.sort) || scenarios.contains(.sortLimit) ? try work.expectedSorted() : SortedPrefix()
        }

        /// The result `scenario` must report.
        func result(_ scenario: QueryScenario) -> QueryResult {
            switch scenario {
            case .indexedLookup, .indexedLookupStatement: return .found(lookups)
            case .scanLookup: return .found(scanLookups)
            case .inQuery: return .found(inQuery)
            case .countScan: return .count(countScan)
            case .countIndex: return .count(countIndex)
            case .sort, .sortLimit: return .sorted(sorted)
            }
        }
    }

    /// The size each scenario runs at: indexed lookups at every one of `lookupSizes` (and `n`),
    /// the counts at `countN`, the rest at `n`.
    static func cases(_ scenarios: [QueryScenario], n: Int, lookupSizes: [Int], countN: Int) -> [QueryCase] {
        scenarios.flatMap { scenario -> [QueryCase] in
            switch scenario {
            case .indexedLookup: return Set(lookupSizes + [n]).sorted().map { QueryCase(scenario: scenario, size: $0) }
            case .countScan, .countIndex: return [QueryCase(scenario: scenario, size: countN)]
            case .indexedLookupStatement, .scanLookup, .inQuery, .sort, .sortLimit: return [QueryCase(scenario: scenario, size: n)]
            }
        }
    }

    /// Runs every case `repetitions` times with the systems interleaved, generating each size's
    /// data once, and returns the tables.
    static func run(
        _ scenarios: [QueryScenario], n: Int, lookupSizes: [Int], countN: Int, systems: [any QuerySystem.Type], repetitions: Int
    ) throws -> String {
        let all = cases(scenarios, n: n, lookupSizes: lookupSizes, countN: countN)
        var samples = QuerySamples(n: n, countN: countN, cases: all)
        for size in Set(all.map(\.size)).sorted() {
            progress("generating \(formatCount(size)) people for the queries")
            let work = QueryWorkload(n: size)
            let here = all.filter { $0.size == size }
            let expected = try Expected(work, Set(here.map(\.scenario)))
            for queryCase in here {
                let scenario = queryCase.scenario
                let running = systems.filter { $0.runs(scenario) }
                for _ in 0..<repetitions {
                    for system in running {
                        samples.times[queryCase, default: [:]][system.name, default: []].append(try runOnce(scenario, system, work, expected))
                    }
                }
                let summary = running.map { system -> String in
                    let ns = median(samples.times[queryCase]?[system.name] ?? [])
                    return scenario.operations > 1
                        ? "\(system.name) \(fixed(ns / 1e3 / Double(scenario.operations), 2)) µs/lookup"
                        : "\(system.name) \(fixed(ns / 1e6, 2)) ms"
                }
                progress("\(scenario.rawValue) at \(formatCount(size)): " + summary.joined(separator: ", "))
            }
        }
        return samples.render()
    }
}

/// One scenario at one number of objects.
struct QueryCase: Hashable, Sendable {
    /// The scenario.
    let scenario: QueryScenario
    /// Objects in the database.
    let size: Int
}

/// What a timed query returned, compared with what the data says it must be.
enum QueryResult: Equatable, CustomStringConvertible {
    /// Objects found by lookups or an `IN` query.
    case found(QueryChecksum)
    /// A count.
    case count(Int)
    /// The count and first ids of sorted results.
    case sorted(SortedPrefix)

    /// A short form for error messages.
    var description: String {
        switch self {
        case .found(let sum): return "\(sum)"
        case .count(let count): return "\(count)"
        case .sorted(let sorted): return "\(sorted)"
        }
    }
}
