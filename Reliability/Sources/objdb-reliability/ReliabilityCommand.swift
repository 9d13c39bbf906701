import Foundation
import ObjDBReliability

/// The public commands of `objdb-reliability` and their arguments.
enum ReliabilityCommand {
    static let usage = """
        usage: objdb-reliability <command> [options]

        commands:
          crash   [--cycles N] [--batch MIN-MAX] [--max-items N] [--max-delay MS]
                  SIGKILL crash cycles: every acknowledged commit survives, verify() clean
          damage  [--files N] [--base-objects N] [--verifying-every N]
                  damaged and foreign files: verify() never crashes nor calls a changed file healthy
          all     every attack at its short size, or with --full at the acceptance size

        common options:
          --seed N        the seed (default 1); a run replays exactly from its seed
          --dir PATH      the working directory (default: a new one under the temporary directory)
          --keep          keep the working directory
          --quiet         no progress lines

        The exit status is 0 when no attack found a violation, 1 if one did, 64 on a usage error.
        """

    /// Runs the command in `arguments`; returns the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first, !["help", "--help", "-h"].contains(command) else {
            print(usage)
            return arguments.isEmpty ? 64 : 0
        }
        do {
            var options = try Arguments(Array(arguments.dropFirst()))
            let context = try RunContext(&options)
            defer { context.finish() }
            let results: [any AttackResult]
            switch command {
            case "crash":
                results = [try crash(&options, context, full: false)]
            case "damage":
                results = [try damage(&options, context, full: false)]
            case "all":
                let full = options.flag("full")
                results = [try crash(&options, context, full: full), try damage(&options, context, full: full)]
            default:
                print("unknown command \(command)\n\n\(usage)")
                return 64
            }
            for result in results { print(result.table) }
            return results.allSatisfy(\.passed) ? 0 : 1
        } catch let error as Arguments.UsageError {
            print("\(error)\n\n\(usage)")
            return 64
        } catch {
            print("objdb-reliability: \(error)")
            return 64
        }
    }

    static func crash(_ options: inout Arguments, _ context: RunContext, full: Bool) throws -> CrashCycles.Result {
        var crash = CrashCycles.Options(
            cycles: try options.int("cycles") ?? (full ? 1_000 : 100), seed: context.seed,
            worker: context.worker, directory: try context.subdirectory("crash"))
        if let batch = try options.range("batch") { crash.batchSizes = batch }
        if let cap = try options.int("max-items") { crash.maximumItems = cap }
        if let delay = try options.int("max-delay") { crash.maximumKillDelay = delay }
        try options.checkAllUsed()
        return try CrashCycles.run(crash, progress: context.progress)
    }

    static func damage(_ options: inout Arguments, _ context: RunContext, full: Bool) throws -> DamagedFiles.Result {
        var damage = DamagedFiles.Options(
            files: try options.int("files") ?? (full ? 1_000 : 100), seed: context.seed,
            worker: context.worker, directory: try context.subdirectory("damage"))
        if let objects = try options.int("base-objects") { damage.baseObjects = objects }
        if let every = try options.int("verifying-every") { damage.verifyingOpenEvery = every }
        try options.checkAllUsed()
        return try DamagedFiles.run(damage, progress: context.progress)
    }
}
