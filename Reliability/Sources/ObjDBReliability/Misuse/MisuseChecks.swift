import Foundation

/// The misuse cases, each in a child process of the `objdb-reliability` binary it is given
/// (build it with `-c release` to check what apps see: release builds drop the messages of
/// `precondition`, not those of `fatalError`).
public enum MisuseChecks {
    /// The outcome of one case.
    public struct Outcome: Sendable {
        /// The case.
        public var misuse: MisuseCase
        /// How the child ended.
        public var termination: ChildTermination
        /// Its standard error up to the backtrace.
        public var message: String
        /// Whether it ended abnormally.
        public var stopped: Bool { !termination.succeeded && termination != .timedOut }
        /// Whether standard error names what was wrong.
        public var named: Bool { misuse.expectedWords.allSatisfy { message.contains($0) } }
    }

    /// The figures of a run.
    public struct Result: AttackResult {
        /// One outcome per case.
        public var outcomes: [Outcome] = []
        /// Wall-clock time.
        public var time = ""

        /// The figures.
        public var table: FigureTable {
            var table = FigureTable(title: "misuse: programmer errors stop the process with a message")
            for outcome in outcomes {
                let line = outcome.message.split(separator: "\n").first { $0.contains("rror") || $0.contains("ObjDB") } ?? ""
                table.add(outcome.misuse.rawValue, "\(outcome.termination), \(outcome.named ? "names" : "does NOT name") \(outcome.misuse.expectedWords.joined(separator: " + ")): \(line.prefix(110))")
            }
            table.add("stopped with a message", "\(outcomes.filter { $0.stopped && $0.named }.count) of \(outcomes.count)")
            table.add("wall-clock time", time)
            for outcome in outcomes where !outcome.stopped {
                table.violations.append("\(outcome.misuse.rawValue): the process was not stopped (\(outcome.termination))")
            }
            for outcome in outcomes where outcome.stopped && !outcome.named {
                table.violations.append(
                    "\(outcome.misuse.rawValue): standard error does not name \(outcome.misuse.expectedWords.joined(separator: " and ")): \(outcome.message.suffix(200))")
            }
            return table
        }
    }

    /// Standard error without a backtrace or stack dump that may follow the message.
    public static func message(_ error: String) -> String {
        var text = error
        for marker in ["\n*** ", "*** Signal", "Current stack trace", "Stack dump:", "💣"] {
            if let range = text.range(of: marker) { text = String(text[..<range.lowerBound]) }
        }
        return text
    }

    /// Runs every case.
    public static func run(worker: URL, directory: URL) throws -> Result {
        let clock = Stopwatch()
        var result = Result()
        for misuse in MisuseCase.allCases {
            // No backtrace: it would name the functions that were running, not what was wrong.
            let child = try ChildProcess.run(
                worker, ["_misuse", misuse.rawValue, directory.path], directory: directory, timeout: 120,
                environment: ["SWIFT_BACKTRACE": "enable=no"])
            result.outcomes.append(Outcome(misuse: misuse, termination: child.termination, message: message(child.error)))
        }
        result.time = clock.elapsed
        return result
    }
}
