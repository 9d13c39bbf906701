import Foundation
import ObjDB
import ObjDBTestModels

/// The predicate fuzzer: predicates generated from the grammar and mutated, run against a
/// small database with links, lists, sets, maps, linking objects and embedded objects, in child
/// processes of a few thousand cases each. 0 crashes (and 0 hangs) is the requirement; a crash
/// is reported with its input, and the run goes on after it.
public enum PredicateFuzz {
    /// What to run.
    public struct Options: Sendable {
        /// Predicates to try.
        public var count: Int
        /// The seed.
        public var seed: UInt64
        /// Predicates per child process.
        public var chunk: Int
        /// Seconds a child may run before it counts as hung.
        public var chunkTimeout: Double
        /// Known crashes not to provoke (none by default: a run reports everything it finds).
        public var avoiding: FuzzAvoidance
        /// The `objdb-reliability` executable.
        public var worker: URL
        /// A directory for the database and the children's output.
        public var directory: URL

        /// Options with 5,000 predicates per child.
        public init(
            count: Int, seed: UInt64 = 1, chunk: Int = 5_000, chunkTimeout: Double = 900, avoiding: FuzzAvoidance = [], worker: URL,
            directory: URL
        ) {
            self.count = count
            self.avoiding = avoiding
            self.seed = seed
            self.chunk = chunk
            self.chunkTimeout = chunkTimeout
            self.worker = worker
            self.directory = directory
        }
    }

    /// The figures of a run.
    public struct Result: AttackResult {
        /// Parameters, for the title.
        public var options = ""
        /// Predicates run.
        public var predicates = 0
        /// Outcomes: syntax errors, binding errors, other errors, evaluated (no match), evaluated
        /// (matches).
        public var syntaxErrors = 0, bindErrors = 0, otherErrors = 0, evaluatedEmpty = 0, evaluatedMatching = 0
        /// Evaluated predicates that had been mutated.
        public var mutatedEvaluated = 0
        /// Read failures reported while evaluating (a healthy file: expected 0).
        public var readFailures = 0
        /// Child processes that crashed, and that hung.
        public var crashes = 0, hangs = 0
        /// Child processes run.
        public var processes = 0
        /// Per crash site (the innermost ObjDB frame of the backtrace), how many crashes.
        public var crashSites: [String: Int] = [:]
        /// Examples of errors other than `invalidQuery`.
        public var otherExamples: [String] = []
        /// Wall-clock time.
        public var time = ""
        /// Every violation found.
        public var violationList: [String] = []

        /// Predicates that parsed.
        public var parsed: Int { predicates - syntaxErrors }
        /// Predicates that were bound and evaluated.
        public var evaluated: Int { evaluatedEmpty + evaluatedMatching }

        /// The figures.
        public var table: FigureTable {
            var table = FigureTable(title: "fuzz: predicate strings (\(options))")
            table.add("predicates", predicates)
            table.add("  parsed", parsed)
            table.add("  bound and evaluated", evaluated)
            table.add("    matching objects", evaluatedMatching)
            table.add("    of them mutated", mutatedEvaluated)
            table.add("  rejected: syntax / binding", "\(syntaxErrors) / \(bindErrors)")
            table.add("  other errors", otherErrors)
            table.add("read failures reported", readFailures)
            table.add("crashes", crashes)
            table.add("hangs", hangs)
            table.add("child processes", processes)
            table.add("wall-clock time", time)
            table.notes = otherExamples.prefix(5).map { "other error: \($0)" }
            for (site, count) in crashSites.sorted(by: { $0.key < $1.key }) { table.notes.append("\(count) crash(es) at \(site)") }
            table.violations = violationList
            return table
        }
    }

    /// Builds the fuzz database in `directory`: people, every value type, owners with pets,
    /// lists, sets, maps, embedded addresses.
    static func buildDatabase(_ url: URL, seed: UInt64) throws {
        try? FileManager.default.removeItem(at: url)
        try? FileManager.default.removeItem(atPath: url.path + "-lock")
        var rng = SeededRandom(seed: seed ^ 0xF0DB)
        let db = try Database(configuration: Configuration(fileURL: url, objectTypes: damageModelTypes))
        try db.write {
            for id in 1...150 { try db.add(DamageBase.makePerson(id, &rng)) }
            for id in 1...40 { try db.add(DamageBase.makeAllTypes(id, &rng)) }
            var owners: [Owner] = []
            for id in 1...30 { owners.append(DamageBase.makeOwner(id, &rng, friends: owners)) }
            try db.add(owners)
        }
    }

    /// Runs the fuzzer.
    public static func run(_ options: Options, progress: (String) -> Void = { _ in }) throws -> Result {
        let clock = Stopwatch()
        var result = Result()
        result.options = "seed \(options.seed), \(options.chunk) per process\(options.avoiding.isEmpty ? "" : ", known crashes avoided")"
        let file = options.directory.appendingPathComponent("fuzz.objdb")
        try buildDatabase(file, seed: options.seed)
        let current = options.directory.appendingPathComponent("current-input.txt")
        var next = 0
        while next < options.count {
            let count = min(options.chunk, options.count - next)
            let child = try ChildProcess(
                options.worker,
                ["_fuzz-chunk", file.path, String(options.seed), String(next), String(count), current.path, String(options.avoiding.rawValue)],
                directory: options.directory)
            let termination = child.wait(timeout: options.chunkTimeout)
            result.processes += 1
            let output = child.output()
            let last = output.split(separator: "\n").compactMap { OutputFields($0) }.last { $0.tag == "progress" }
            result.syntaxErrors += last?.int(FuzzOutcome.syntaxError.rawValue) ?? 0
            result.bindErrors += last?.int(FuzzOutcome.bindError.rawValue) ?? 0
            result.otherErrors += last?.int(FuzzOutcome.otherError.rawValue) ?? 0
            result.evaluatedEmpty += last?.int(FuzzOutcome.evaluatedEmpty.rawValue) ?? 0
            result.evaluatedMatching += last?.int(FuzzOutcome.evaluatedMatching.rawValue) ?? 0
            result.mutatedEvaluated += last?.int("mutatedEvaluated") ?? 0
            result.readFailures += last?.int("readFailures") ?? 0
            for line in output.split(separator: "\n") where line.hasPrefix("other ") && result.otherExamples.count < 20 {
                result.otherExamples.append(String(line.dropFirst(6)))
            }
            if termination.succeeded {
                result.predicates += count
                next += count
            } else {
                // The input the child was on when it crashed or hung.
                let input = (try? String(contentsOf: current, encoding: .utf8)) ?? ""
                let index = input.split(separator: "\n", maxSplits: 1).first.flatMap { Int($0) } ?? next
                let what = termination == .timedOut ? "hung for \(Int(options.chunkTimeout)) s" : "crashed (\(termination))"
                if termination == .timedOut { result.hangs += 1 } else { result.crashes += 1 }
                let site = termination == .timedOut ? "hang" : Backtrace.site(child.errorOutput())
                result.crashSites[site, default: 0] += 1
                if result.crashSites[site] == 1 {
                    result.violationList.append("predicate \(what) at \(site): \(input.split(separator: "\n", maxSplits: 1).last ?? "")")
                }
                try FileManager.default.createDirectory(at: findingsDirectory, withIntermediateDirectories: true)
                try Data((input + "\n\n" + child.errorOutput()).utf8).write(
                    to: findingsDirectory.appendingPathComponent("fuzz-seed\(options.seed)-case\(index).txt"))
                result.predicates += index + 1 - next
                next = index + 1
            }
            progress("predicates \(next)/\(options.count)")
        }
        if result.readFailures > 0 {
            result.violationList.append("\(result.readFailures) read failures were reported while evaluating predicates on a healthy file")
        }
        result.time = clock.elapsed
        return result
    }
}
