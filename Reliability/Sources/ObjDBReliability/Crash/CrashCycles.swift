import Foundation
import ObjDB

/// SIGKILL crash cycles: a worker process commits transactions (single objects and batches with
/// lists, inserts, updates, cascading deletes) and is killed at a random moment; a fresh process
/// then opens the file, verifies it, and compares it with the plan.
///
/// Guarantees checked per cycle: the file opens and `verify()` calls it healthy (0 healthy files
/// refused); every acknowledged commit is there with exactly what it wrote; nothing of an
/// unacknowledged commit is visible except possibly the one in flight (its `commitWrite`
/// returned, or was returning, when the kill came).
public enum CrashCycles {
    /// What to run.
    public struct Options: Sendable {
        /// Kill cycles.
        public var cycles: Int
        /// The seed of the plan and of the kill times.
        public var seed: UInt64
        /// Items per batch transaction.
        public var batchSizes: ClosedRange<Int>
        /// Above this many living items, transactions delete batches.
        public var maximumItems: Int
        /// The longest wait, in milliseconds, between the worker's `ready` and the kill.
        public var maximumKillDelay: Int
        /// The `objdb-reliability` executable (its hidden worker commands).
        public var worker: URL
        /// A directory for the database file and the children's output.
        public var directory: URL
        /// The key the file is encrypted with, `nil` for a plain file.
        public var encryptionKey: Data?

        /// Options with the full run's batch sizes (500–5,000) and item cap (20,000).
        public init(
            cycles: Int, seed: UInt64 = 1, batchSizes: ClosedRange<Int> = 500...5_000, maximumItems: Int = 20_000,
            maximumKillDelay: Int = 1_500, worker: URL, directory: URL, encryptionKey: Data? = nil
        ) {
            self.encryptionKey = encryptionKey
            self.cycles = cycles
            self.seed = seed
            self.batchSizes = batchSizes
            self.maximumItems = maximumItems
            self.maximumKillDelay = maximumKillDelay
            self.worker = worker
            self.directory = directory
        }
    }

    /// The figures of a run.
    public struct Result: AttackResult {
        /// Parameters, for the title.
        public var options: String = ""
        /// Cycles run.
        public var cycles = 0
        /// Cycles whose worker ran with `.full` durability, and with `.noSync`.
        public var fullCycles = 0, noSyncCycles = 0
        /// Kills before the worker reported that the file was open (during open).
        public var killsDuringOpen = 0
        /// Kills with a batch transaction next in line or running, and with a single-object one.
        public var killsWithBatchInFlight = 0, killsWithSingleInFlight = 0
        /// Commits acknowledged by workers.
        public var acknowledgedCommits = 0
        /// Acknowledged commits that wrote one item, and batches.
        public var singleCommits = 0, batchCommits = 0
        /// Items written by acknowledged commits.
        public var itemsWritten = 0
        /// Cycles where the commit in flight (not acknowledged) turned out committed.
        public var inFlightCommitsPresent = 0
        /// Acknowledged commits missing after a cycle (must be 0).
        public var acknowledgedCommitsLost = 0
        /// Cycles where commits beyond the one in flight were visible (must be 0).
        public var unacknowledgedCommitsVisible = 0
        /// Files refused at open after a kill (must be 0).
        public var healthyFilesRefused = 0
        /// Files `verify()` did not call healthy (must be 0).
        public var verifyProblems = 0
        /// Files whose content differed from the plan (must be 0).
        public var contentMismatches = 0
        /// Checker or worker processes that crashed, failed or hung (must be 0).
        public var processFailures = 0
        /// Living items and markers in the file at the end.
        public var finalItems = 0, finalMarkers = 0
        /// Wall-clock time.
        public var time = ""
        /// Every violation found.
        public var violationList: [String] = []

        /// The figures.
        public var table: FigureTable {
            var table = FigureTable(title: "crash: SIGKILL cycles (\(options))")
            table.add("kill cycles", cycles)
            table.add("  with durability .full / .noSync", "\(fullCycles) / \(noSyncCycles)")
            table.add("  killed during open", killsDuringOpen)
            table.add("  killed with a batch / single object in flight", "\(killsWithBatchInFlight) / \(killsWithSingleInFlight)")
            table.add("acknowledged commits", acknowledgedCommits)
            table.add("  single-object / batch", "\(singleCommits) / \(batchCommits)")
            table.add("  items written", itemsWritten)
            table.add("in-flight commits found committed", inFlightCommitsPresent)
            table.add("acknowledged commits lost", acknowledgedCommitsLost)
            table.add("unacknowledged commits visible", unacknowledgedCommitsVisible)
            table.add("healthy files refused", healthyFilesRefused)
            table.add("verify() not healthy", verifyProblems)
            table.add("content differing from the plan", contentMismatches)
            table.add("worker/checker failures", processFailures)
            table.add("final items / markers", "\(finalItems) / \(finalMarkers)")
            table.add("wall-clock time", time)
            table.violations = violationList
            return table
        }
    }

    /// Runs the cycles.
    public static func run(_ options: Options, progress: (String) -> Void = { _ in }) throws -> Result {
        let clock = Stopwatch()
        var result = Result()
        result.options = "seed \(options.seed), batches \(options.batchSizes.lowerBound)-\(options.batchSizes.upperBound), cap \(options.maximumItems) items\(options.encryptionKey == nil ? "" : ", encrypted")"
        let file = options.directory.appendingPathComponent("crash.objdb")
        for url in [file, URL(fileURLWithPath: file.path + "-lock")] { try? FileManager.default.removeItem(at: url) }
        let plan = CrashPlan(seed: options.seed, batchSizes: options.batchSizes, maximumItems: options.maximumItems)
        var model = CrashState()
        // The digest of the markers transactions 1...model.sequence must have written.
        var markers = Digest()
        for cycle in 0..<options.cycles {
            var rng = SeededRandom(seed: options.seed ^ 0xC7C1E, index: UInt64(cycle))
            let noSync = rng.percent(50)
            if noSync { result.noSyncCycles += 1 } else { result.fullCycles += 1 }
            let arguments = [
                "_crash-worker", file.path, String(options.seed), noSync ? "nosync" : "full",
                String(options.batchSizes.lowerBound), String(options.batchSizes.upperBound), String(options.maximumItems),
            ]
            let worker = try ChildProcess(options.worker, arguments, directory: options.directory, environment: HarnessKey.environment(options.encryptionKey))
            if rng.percent(10) {
                // During open: process start, LMDB open, schema check, the first state read.
                usleep(useconds_t(rng.below(60_000)))
            } else {
                let deadline = Date().addingTimeInterval(120)
                while !worker.output().contains("ready"), worker.poll() == nil, Date() < deadline { usleep(2_000) }
                if rng.percent(30) {
                    // Right after the k-th acknowledgement: the next commit has just begun (most
                    // are single-object ones), or is returning.
                    let acknowledgements = rng.inRange(1...20)
                    while worker.output().components(separatedBy: "\nack ").count - 1 < acknowledgements, worker.poll() == nil,
                        Date() < deadline
                    {
                        usleep(500)
                    }
                    usleep(useconds_t(rng.below(3_000)))
                } else {
                    // Mostly short waits (single commits, the start of a batch), some long ones.
                    let delay = rng.percent(40) ? rng.below(30) : rng.below(max(options.maximumKillDelay, 1))
                    usleep(useconds_t(delay * 1_000))
                }
            }
            worker.kill()
            let termination = worker.wait(timeout: 60)
            let output = worker.output()
            let cycleName = "cycle \(cycle)"
            if termination != .signaled(SIGKILL) {
                result.processFailures += 1
                result.violationList.append("\(cycleName): the worker ended with \(termination) before the kill: \(worker.errorOutput().prefix(300))")
            }
            var acknowledged = model.sequence
            var sawReady = false
            for line in output.split(separator: "\n") {
                guard let fields = OutputFields(line) else { continue }
                if fields.tag == "ready" {
                    sawReady = true
                    if fields.int("sequence") != model.sequence {
                        result.violationList.append("\(cycleName): the worker read sequence \(fields["sequence"] ?? "?") from the file, the plan is at \(model.sequence)")
                    }
                } else if fields.tag == "ack", let sequence = fields.int("sequence") {
                    if sequence != acknowledged + 1 {
                        result.violationList.append("\(cycleName): acknowledgement \(sequence) after \(acknowledged)")
                    }
                    acknowledged = sequence
                }
            }
            if !sawReady { result.killsDuringOpen += 1 }

            let check = try ChildProcess.run(
                options.worker, ["_crash-check", file.path], directory: options.directory, timeout: 600,
                environment: HarnessKey.environment(options.encryptionKey))
            guard check.termination.succeeded, let opened = OutputFields.first("open", in: check.output) else {
                result.processFailures += 1
                result.violationList.append("\(cycleName): the checker ended with \(check.termination): \(check.error.prefix(500))")
                try keepFinding(file, name: "crash-\(cycle)")
                break
            }
            if opened["ok"] != "true" {
                result.healthyFilesRefused += 1
                result.violationList.append("\(cycleName): the file was refused after a kill: \(opened["error"] ?? "")")
                try keepFinding(file, name: "crash-\(cycle)")
                break
            }
            if let verify = OutputFields.first("verify", in: check.output), verify["healthy"] != "true" {
                result.verifyProblems += 1
                result.violationList.append("\(cycleName): verify() found \(verify["problems"] ?? "?") problem(s): \(verify["first"] ?? "")")
                try keepFinding(file, name: "crash-\(cycle)")
            }
            guard let checked = OutputFields.first("check", in: check.output), let last = checked.int("last") else {
                result.processFailures += 1
                result.violationList.append("\(cycleName): the checker printed no result: \(check.output.suffix(300))")
                break
            }
            if checked.int("problems") != 0 {
                result.contentMismatches += 1
                result.violationList.append("\(cycleName): \(checked["problems"] ?? "?") content problem(s): \(checked["first"] ?? "")")
            }
            if last < acknowledged {
                result.acknowledgedCommitsLost += acknowledged - last
                result.violationList.append("\(cycleName): commits \(last + 1)...\(acknowledged) were acknowledged but are missing")
                try keepFinding(file, name: "crash-\(cycle)")
            } else if last > acknowledged + 1 {
                result.unacknowledgedCommitsVisible += 1
                result.violationList.append("\(cycleName): commits up to \(last) are visible, only \(acknowledged) were acknowledged")
            } else if last == acknowledged + 1 {
                result.inFlightCommitsPresent += 1
            }
            // The transaction that was next when the kill came.
            if !sawReady {
                // Killed while opening.
            } else if plan.operation(acknowledged + 1, after: advanced(model, to: acknowledged, plan: plan)).isBatch {
                result.killsWithBatchInFlight += 1
            } else {
                result.killsWithSingleInFlight += 1
            }
            // Bring the plan's state to what the file holds and compare.
            if last < model.sequence {
                model = CrashState()
                markers = Digest()
            }
            while model.sequence < last {
                let sequence = model.sequence + 1
                let operation = plan.operation(sequence, after: model)
                if sequence <= acknowledged {
                    result.acknowledgedCommits += 1
                    if operation.isBatch { result.batchCommits += 1 } else { result.singleCommits += 1 }
                    switch operation {
                    case .insert(_, let count): result.itemsWritten += count
                    case .update(let ids), .delete(let ids): result.itemsWritten += ids.count
                    }
                }
                model.apply(operation, sequence: sequence)
                markers.line(CrashCheck.markerLine(sequence, operation.name, model.ids.count, model.nextItem))
            }
            if checked["markers-digest"] != markers.description {
                result.contentMismatches += 1
                result.violationList.append("\(cycleName): the file's markers differ from what transactions 1...\(last) wrote")
                try keepFinding(file, name: "crash-\(cycle)")
                break
            }
            if checked["digest"] != model.digest.description {
                result.contentMismatches += 1
                result.violationList.append("\(cycleName): the file's items differ from the plan at sequence \(last)")
                try keepFinding(file, name: "crash-\(cycle)")
                break
            }
            result.finalItems = checked.int("items") ?? 0
            result.finalMarkers = checked.int("markers") ?? 0
            result.cycles += 1
            progress("cycle \(cycle + 1)/\(options.cycles): sequence \(last), \(result.finalItems) items")
        }
        result.time = clock.elapsed
        return result
    }

    /// `state` advanced along the plan to `sequence` (unchanged if it is there already).
    static func advanced(_ state: CrashState, to sequence: Int, plan: CrashPlan) -> CrashState {
        var state = state
        while state.sequence < sequence {
            state.apply(plan.operation(state.sequence + 1, after: state), sequence: state.sequence + 1)
        }
        return state
    }
}

/// Where files that show a finding are kept.
public let findingsDirectory = URL(fileURLWithPath: "/tmp/objdb-harness-findings")

/// Copies `file` to ``findingsDirectory`` as `name`, for a report.
func keepFinding(_ file: URL, name: String) throws {
    try FileManager.default.createDirectory(at: findingsDirectory, withIntermediateDirectories: true)
    let target = findingsDirectory.appendingPathComponent(name + ".objdb")
    try? FileManager.default.removeItem(at: target)
    try FileManager.default.copyItem(at: file, to: target)
}
