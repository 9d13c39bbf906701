import Foundation
import ObjDB

/// The child processes of the damaged-file attack, one per check, so that a crash is observed
/// rather than fatal.
enum DamageWorkers {
    /// `Database.verify(fileAt:)`: prints `verify outcome=healthy|problems|threw problems=<n>
    /// kinds=<kinds> first=<first problem>`.
    static func verify(file: String) {
        do {
            let report = try Database.verify(fileAt: URL(fileURLWithPath: file), encryptionKey: HarnessKey.current)
            let kinds = Set(report.problems.map(\.kind.rawValue)).sorted().joined(separator: ",")
            Output.line(
                "verify outcome=\(report.isHealthy ? "healthy" : "problems") problems=\(report.problems.count + report.omittedProblems) kinds=\(kinds.isEmpty ? "-" : kinds) first=\(fieldText(report.problems.first?.description ?? "-"))"
            )
        } catch {
            Output.line("verify outcome=threw error=\(fieldText("\(error)"))")
        }
    }

    /// Opens the file (checking it first if `verifying`) and reads everything
    /// (``CanonicalDump``): prints `dump opened`, then `dump outcome=read digest=<digest>
    /// objects=<n> failures=<n> first=<first read failure>`, or `dump outcome=refused
    /// code=<name> error=<message>`.
    static func dump(file: String, verifying: Bool) {
        let failures = FailureCollector()
        var config = Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: damageModelTypes)
        config.readFailureHandler = failures.handler
        config.verifiesFileOnOpen = verifying
        config.encryptionKey = HarnessKey.current
        let db: Database
        do {
            db = try Database(configuration: config)
        } catch {
            let code = (error as? ObjDBError)?.code.name ?? "other"
            Output.line("dump outcome=refused code=\(fieldText(code)) error=\(fieldText("\(error)"))")
            return
        }
        Output.line("dump opened")
        let (digest, objects) = CanonicalDump.digest(of: db)
        let first = failures.errors.first.map { "\($0)" } ?? "-"
        Output.line("dump outcome=read digest=\(digest) objects=\(objects) failures=\(failures.count) first=\(fieldText(first))")
    }
}
