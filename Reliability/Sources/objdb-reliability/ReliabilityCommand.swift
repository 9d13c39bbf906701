import Foundation
import ObjDBReliability

/// The public commands of `objdb-reliability` and their arguments.
enum ReliabilityCommand {
    static let usage = """
        usage: objdb-reliability <command> [--full] [options]

        Each command runs one attack at its short size, or with --full at the size of the
        acceptance figures; options set sizes explicitly. The exit status is 0 when no attack
        found a violation, 1 if one did, 64 on a usage error.

        commands:
          crash    [--cycles N] [--batch MIN-MAX] [--max-items N] [--max-delay MS] [--encrypted]
                   SIGKILL crash cycles: every acknowledged commit survives, nothing beyond the
                   one in flight appears, the file opens and verify() calls it healthy
                   (short: 20 cycles, batches 50-400; full: 1,000 cycles, batches 500-5,000)
          damage   [--files N] [--base-objects N] [--verifying-every N] [--encrypted]
                   damaged and foreign files: verify() never crashes, and never calls a file
                   healthy whose reads changed (short: 60 files; full: 1,000)
          fuzz     [--count N] [--chunk N] [--avoid-known]
                   generated and mutated predicates through parsing, binding and evaluation:
                   0 crashes (short: 20,000; full: 1,000,000)
          writers  [--processes P] [--commits M] [--batch-every N] [--batch-size N] [--rounds N]
                   processes writing one file at once: exact counts, no lost update, verify()
                   healthy (short: 3 × 100 commits; full: 6 × 1,000, 3 rounds)
          misuse   programmer errors stop the process with a message naming the call, class or
                   property (build with -c release to check what apps see)
          all      every attack above

        common options:
          --full          the acceptance sizes
          --seed N        the seed (default 1); a run replays exactly from its seed
          --dir PATH      the working directory (default: a new one under the temporary directory)
          --keep          keep the working directory
          --quiet         no progress lines
        """

    /// Runs the command in `arguments`; returns the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first, !["help", "--help", "-h"].contains(command) else {
            print(usage)
            return arguments.isEmpty ? 64 : 0
        }
        let attacks = ["crash", "damage", "fuzz", "writers", "misuse"]
        guard attacks.contains(command) || command == "all" else {
            print("unknown command \(command)\n\n\(usage)")
            return 64
        }
        do {
            var options = try Arguments(Array(arguments.dropFirst()))
            let full = options.flag("full")
            let context = try RunContext(&options)
            defer { context.finish() }
            let selected = command == "all" ? attacks : [command]
            // Every option is read before anything runs, so that a typo fails at once.
            var runs: [() throws -> any AttackResult] = []
            for attack in selected {
                let explicit = command != "all"
                switch attack {
                case "crash": runs.append(try crash(&options, context, full: full, explicit: explicit))
                case "damage": runs.append(try damage(&options, context, full: full, explicit: explicit))
                case "fuzz": runs.append(try fuzz(&options, context, full: full, explicit: explicit))
                case "writers": runs.append(try writers(&options, context, full: full, explicit: explicit))
                default: runs.append(try misuse(context))
                }
            }
            try options.checkAllUsed()
            var passed = true
            for run in runs {
                let result = try run()
                context.progress("")
                print(result.table)
                print("")
                passed = passed && result.passed
            }
            return passed ? 0 : 1
        } catch let error as Arguments.UsageError {
            print("\(error)\n\n\(usage)")
            return 64
        } catch {
            print("objdb-reliability: \(error)")
            return 64
        }
    }

    static func crash(_ options: inout Arguments, _ context: RunContext, full: Bool, explicit: Bool) throws -> () throws -> any AttackResult {
        var crash = CrashCycles.Options(
            cycles: full ? 1_000 : 20, seed: context.seed, batchSizes: full ? 500...5_000 : 50...400,
            maximumItems: full ? 20_000 : 2_000, worker: context.worker, directory: context.directory)
        if explicit {
            if let cycles = try options.int("cycles") { crash.cycles = cycles }
            if let batch = try options.range("batch") { crash.batchSizes = batch }
            if let cap = try options.int("max-items") { crash.maximumItems = cap }
            if let delay = try options.int("max-delay") { crash.maximumKillDelay = delay }
            if options.flag("encrypted") { crash.encryptionKey = HarnessKey.fixed }
        }
        return {
            crash.directory = try context.subdirectory("crash")
            return try CrashCycles.run(crash, progress: context.progress)
        }
    }

    static func damage(_ options: inout Arguments, _ context: RunContext, full: Bool, explicit: Bool) throws -> () throws -> any AttackResult {
        var damage = DamagedFiles.Options(
            files: full ? 1_000 : 60, seed: context.seed, baseObjects: full ? 3_000 : 600, worker: context.worker,
            directory: context.directory)
        if explicit {
            if let files = try options.int("files") { damage.files = files }
            if let objects = try options.int("base-objects") { damage.baseObjects = objects }
            if let every = try options.int("verifying-every") { damage.verifyingOpenEvery = every }
            if options.flag("encrypted") { damage.encryptionKey = HarnessKey.fixed }
        }
        return {
            damage.directory = try context.subdirectory("damage")
            return try DamagedFiles.run(damage, progress: context.progress)
        }
    }

    static func fuzz(_ options: inout Arguments, _ context: RunContext, full: Bool, explicit: Bool) throws -> () throws -> any AttackResult {
        var fuzz = PredicateFuzz.Options(
            count: full ? 1_000_000 : 20_000, seed: context.seed, worker: context.worker, directory: context.directory)
        if explicit {
            if let count = try options.int("count") { fuzz.count = count }
            if let chunk = try options.int("chunk"), chunk > 0 { fuzz.chunk = chunk }
            if options.flag("avoid-known") { fuzz.avoiding = .known }
        }
        return {
            fuzz.directory = try context.subdirectory("fuzz")
            return try PredicateFuzz.run(fuzz, progress: context.progress)
        }
    }

    static func writers(_ options: inout Arguments, _ context: RunContext, full: Bool, explicit: Bool) throws -> () throws -> any AttackResult {
        var writers = MultiProcessWriters.Options(
            processes: full ? 6 : 3, commits: full ? 1_000 : 100, rounds: full ? 3 : 1, worker: context.worker,
            directory: context.directory)
        if explicit {
            if let processes = try options.int("processes"), processes > 0 { writers.processes = processes }
            if let commits = try options.int("commits") { writers.commits = commits }
            if let every = try options.int("batch-every") { writers.batchEvery = every }
            if let size = try options.int("batch-size") { writers.batchSize = size }
            if let rounds = try options.int("rounds") { writers.rounds = rounds }
        }
        return {
            writers.directory = try context.subdirectory("writers")
            return try MultiProcessWriters.run(writers, progress: context.progress)
        }
    }

    static func misuse(_ context: RunContext) throws -> () throws -> any AttackResult {
        { try MisuseChecks.run(worker: context.worker, directory: try context.subdirectory("misuse")) }
    }
}
