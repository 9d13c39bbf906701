import Foundation
import ObjDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The child process of the fuzzer: runs cases `start..<start + count`, writing each case to
/// `current` before it runs, so that the parent can name the input of a crash.
///
/// Output: `progress next=<i> <outcome>=<n> … readFailures=<n>` every 256 cases and at the end,
/// and `other index=<i> error=<…>` for the first errors that are not `invalidQuery`.
enum FuzzWorker {
    static func run(file: String, seed: UInt64, start: Int, count: Int, current: String, avoiding: FuzzAvoidance) throws {
        let failures = FailureCollector()
        var config = Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: damageModelTypes)
        config.readFailureHandler = failures.handler
        let db = try Database(configuration: config)
        let schema = FuzzSchema(db.schema)
        let evaluator = FuzzEvaluator(db: db, schema: schema)
        let descriptor = open(current, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw HarnessError("cannot open \(current)") }
        defer { close(descriptor) }
        var counts: [FuzzOutcome: Int] = [:]
        var others = 0
        var mutatedEvaluated = 0
        func progress(_ next: Int) {
            let fields = FuzzOutcome.allCases.map { "\($0.rawValue)=\(counts[$0] ?? 0)" }.joined(separator: " ")
            Output.line("progress next=\(next) \(fields) mutatedEvaluated=\(mutatedEvaluated) readFailures=\(failures.count)")
        }
        for index in start..<(start + count) {
            let fuzzCase = PredicateGenerator.generate(schema: schema, seed: seed, index: index, avoiding: avoiding)
            let record = Array("\(index)\n\(fuzzCase.report)".utf8)
            _ = record.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            _ = ftruncate(descriptor, off_t(record.count))
            let (outcome, error) = evaluator.run(fuzzCase, seed: seed)
            counts[outcome, default: 0] += 1
            if !fuzzCase.mutations.isEmpty, outcome == .evaluatedEmpty || outcome == .evaluatedMatching { mutatedEvaluated += 1 }
            if let error, outcome == .otherError, others < 20 {
                others += 1
                Output.line("other index=\(index) error=\(fieldText(error)) case=\(fieldText(fuzzCase.report))")
            }
            if (index - start + 1) % 256 == 0 { progress(index + 1) }
        }
        progress(start + count)
    }

    /// Prints cases `start..<start + count` with their outcome and error, without running them
    /// in a separate process: for replaying a reported case (`objdb-reliability _fuzz-show …`).
    static func show(file: String, seed: UInt64, start: Int, count: Int, avoiding: FuzzAvoidance) throws {
        let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: damageModelTypes))
        let schema = FuzzSchema(db.schema)
        let evaluator = FuzzEvaluator(db: db, schema: schema)
        for index in start..<(start + count) {
            let fuzzCase = PredicateGenerator.generate(schema: schema, seed: seed, index: index, avoiding: avoiding)
            Output.line(fuzzCase.report)
            let started = ContinuousClock.now
            let (outcome, error) = evaluator.run(fuzzCase, seed: seed)
            let elapsed = ContinuousClock.now - started
            let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3
            Output.line("  → \(outcome.rawValue) (\(String(format: "%.2f", milliseconds)) ms)\(error.map { ": \($0)" } ?? "")")
        }
    }
}
