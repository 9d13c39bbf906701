import Foundation
import ObjDB

/// The hidden commands `objdb-reliability` runs in its child processes. Each attack starts the
/// executable again with one of them, so that a crash, a kill or a trap ends the child, never
/// the run.
public enum WorkerCommands {
    /// The names of the hidden commands.
    public static let names: Set<String> = [
        "_crash-worker", "_crash-check", "_verify-file", "_dump-file", "_fuzz-chunk", "_fuzz-show", "_fuzz-db", "_misuse", "_writer",
        "_writers-check",
    ]

    /// Runs hidden command `arguments[0]` with the rest of `arguments`; returns the exit status.
    public static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else { return 64 }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "_crash-worker":
                guard rest.count == 6, let seed = UInt64(rest[1]), let low = Int(rest[3]), let high = Int(rest[4]),
                    let cap = Int(rest[5]), low <= high
                else { return usage("_crash-worker <file> <seed> full|nosync <batch-min> <batch-max> <max-items>") }
                let plan = CrashPlan(seed: seed, batchSizes: low...high, maximumItems: cap)
                try CrashWorker.run(file: rest[0], plan: plan, durability: rest[2] == "nosync" ? .noSync : .full)
            case "_crash-check":
                guard rest.count == 1 else { return usage("_crash-check <file>") }
                CrashCheck.run(file: rest[0])
            case "_verify-file":
                guard rest.count == 1 else { return usage("_verify-file <file>") }
                DamageWorkers.verify(file: rest[0])
            case "_dump-file":
                guard rest.count == 2 else { return usage("_dump-file <file> plain|verifying") }
                DamageWorkers.dump(file: rest[0], verifying: rest[1] == "verifying")
            case "_fuzz-chunk":
                guard rest.count == 6, let seed = UInt64(rest[1]), let start = Int(rest[2]), let count = Int(rest[3]),
                    let avoiding = Int(rest[5])
                else { return usage("_fuzz-chunk <file> <seed> <start> <count> <current-input-file> <avoidance bits>") }
                try FuzzWorker.run(
                    file: rest[0], seed: seed, start: start, count: count, current: rest[4], avoiding: FuzzAvoidance(rawValue: avoiding))
            case "_fuzz-db":
                guard rest.count == 2, let seed = UInt64(rest[1]) else { return usage("_fuzz-db <file> <seed>") }
                try PredicateFuzz.buildDatabase(URL(fileURLWithPath: rest[0]), seed: seed)
            case "_fuzz-show":
                guard rest.count >= 4, let seed = UInt64(rest[1]), let start = Int(rest[2]), let count = Int(rest[3]) else {
                    return usage("_fuzz-show <file> <seed> <start> <count> [<avoidance bits>]")
                }
                let avoiding = FuzzAvoidance(rawValue: rest.count > 4 ? Int(rest[4]) ?? 0 : 0)
                try FuzzWorker.show(file: rest[0], seed: seed, start: start, count: count, avoiding: avoiding)
            case "_misuse":
                guard rest.count == 2, let misuse = MisuseCase(rawValue: rest[0]) else {
                    return usage("_misuse <\(MisuseCase.allCases.map(\.rawValue).joined(separator: "|"))> <directory>")
                }
                try misuse.trigger(in: URL(fileURLWithPath: rest[1]))
                Output.error("objdb-reliability: the misuse '\(misuse.rawValue)' did not stop the process")
            case "_writer", "_writers-check":
                guard rest.count == 5, let number = Int(rest[1]), let commits = Int(rest[2]), let every = Int(rest[3]),
                    let size = Int(rest[4])
                else { return usage("\(command) <file> <process|processes> <commits> <batch-every> <batch-size>") }
                if command == "_writer" {
                    try WriterWorker.run(file: rest[0], process: number, commits: commits, batchEvery: every, batchSize: size)
                } else {
                    try WriterWorker.check(file: rest[0], processes: number, commits: commits, batchEvery: every, batchSize: size)
                }
            default:
                return usage("unknown worker command \(command)")
            }
        } catch {
            Output.error("objdb-reliability \(command): \(error)")
            return 1
        }
        return 0
    }

    private static func usage(_ text: String) -> Int32 {
        Output.error("usage: objdb-reliability \(text)")
        return 64
    }
}
