import Foundation
import ObjDB
import ObjDBTestModels

/// Multi-process writers: `processes` processes commit at once to one file, single objects and
/// batches, each commit also incrementing one shared counter. Afterwards every object must be
/// there exactly once, the counter must equal the number of commits (no lost update), and
/// `verify()` must call the file healthy.
public enum MultiProcessWriters {
    /// What to run.
    public struct Options: Sendable {
        /// Writer processes.
        public var processes: Int
        /// Commits per process.
        public var commits: Int
        /// Every this many commits, a batch (0: none).
        public var batchEvery: Int
        /// Owners per batch (each with two pets).
        public var batchSize: Int
        /// Rounds: the writers are started this many times, on fresh files.
        public var rounds: Int
        /// The `objdb-reliability` executable.
        public var worker: URL
        /// A directory for the file and the children's output.
        public var directory: URL

        /// Options with a batch of 200 owners every 25 commits.
        public init(
            processes: Int, commits: Int, batchEvery: Int = 25, batchSize: Int = 200, rounds: Int = 1, worker: URL, directory: URL
        ) {
            self.processes = processes
            self.commits = commits
            self.batchEvery = batchEvery
            self.batchSize = batchSize
            self.rounds = rounds
            self.worker = worker
            self.directory = directory
        }
    }

    /// The figures of a run.
    public struct Result: AttackResult {
        /// Parameters, for the title.
        public var options = ""
        /// Rounds run, and commits acknowledged in all of them.
        public var rounds = 0, commits = 0
        /// People, owners and pets expected and found (last round).
        public var expectedPeople = 0, people = 0, expectedOwners = 0, owners = 0, pets = 0
        /// The shared counter (last round) and the commits it must equal.
        public var counter = 0, expectedCounter = 0
        /// Rounds whose file `verify()` did not call healthy.
        public var unhealthy = 0
        /// Wall-clock time.
        public var time = ""
        /// Every violation found.
        public var violationList: [String] = []

        /// The figures.
        public var table: FigureTable {
            var table = FigureTable(title: "writers: processes committing to one file (\(options))")
            table.add("rounds", rounds)
            table.add("commits", commits)
            table.add("people (expected)", "\(people) (\(expectedPeople))")
            table.add("owners (expected), pets", "\(owners) (\(expectedOwners)), \(pets)")
            table.add("shared counter (expected)", "\(counter) (\(expectedCounter))")
            table.add("verify() not healthy", unhealthy)
            table.add("wall-clock time", time)
            table.violations = violationList
            return table
        }
    }

    /// Runs the writers.
    public static func run(_ options: Options, progress: (String) -> Void = { _ in }) throws -> Result {
        let clock = Stopwatch()
        var result = Result()
        result.options = "\(options.processes) processes × \(options.commits) commits, a batch of \(options.batchSize) owners every \(options.batchEvery)"
        let file = options.directory.appendingPathComponent("writers.objdb")
        let batches = options.batchEvery > 0 ? options.commits / options.batchEvery : 0
        for round in 0..<options.rounds {
            for url in [file, URL(fileURLWithPath: file.path + "-lock")] { try? FileManager.default.removeItem(at: url) }
            do {
                let db = try Database(configuration: Configuration(fileURL: file, objectTypes: WriterWorker.types))
                try db.write {
                    let counter = Person()
                    counter.id = 0
                    counter.name = "counter"
                    counter.age = 0
                    try db.add(counter)
                }
            }
            let shared = [String(options.commits), String(options.batchEvery), String(options.batchSize)]
            let writers = try (0..<options.processes).map { p in
                try ChildProcess(options.worker, ["_writer", file.path, String(p)] + shared, directory: options.directory)
            }
            for (p, writer) in writers.enumerated() {
                let termination = writer.wait(timeout: 1_800)
                if !termination.succeeded {
                    result.violationList.append("round \(round): writer \(p) ended with \(termination): \(writer.errorOutput().suffix(400))")
                } else {
                    result.commits += options.commits
                }
            }
            let check = try ChildProcess.run(
                options.worker, ["_writers-check", file.path, String(options.processes)] + shared, directory: options.directory,
                timeout: 1_800)
            guard check.termination.succeeded, let fields = OutputFields.first("writers", in: check.output) else {
                result.violationList.append("round \(round): the check ended with \(check.termination): \(check.error.suffix(400))")
                continue
            }
            result.rounds += 1
            result.expectedPeople = options.processes * options.commits + 1
            result.expectedOwners = options.processes * batches * options.batchSize
            result.expectedCounter = options.processes * options.commits
            result.people = fields.int("people") ?? -1
            result.owners = fields.int("owners") ?? -1
            result.pets = fields.int("pets") ?? -1
            result.counter = fields.int("counter") ?? -1
            if fields["healthy"] != "true" { result.unhealthy += 1 }
            if fields.int("problems") != 0 {
                result.violationList.append("round \(round): \(fields["problems"] ?? "?") problem(s): \(fields["first"] ?? "")")
                try keepFinding(file, name: "writers-round-\(round)")
            }
            progress("writers round \(round + 1)/\(options.rounds)")
        }
        result.time = clock.elapsed
        return result
    }
}
