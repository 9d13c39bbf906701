import Foundation
import ObjDB

/// The check after a crash cycle, run in a fresh process: the file must open, `verify()` must
/// call it healthy, the markers must run 1, 2, … without gaps, and every item must hold exactly
/// what its id and version say.
///
/// Output, one line each: `open ok=<true|false> error=<…>`, `verify healthy=<bool>
/// problems=<n> first=<…>`, `check last=<sequence> markers=<n> items=<n> parts=<n>
/// problems=<n> first=<…> digest=<items' digest> markers-digest=<markers' digest>`.
enum CrashCheck {
    /// The state a database holds: the last marker's sequence and next item, and every item.
    static func state(of db: Database) -> CrashState {
        let last = db.objects(CrashMarker.self).sorted(byKeyPath: "sequence", ascending: false).first
        let items = db.objects(CrashItem.self).map { (id: $0.id, version: $0.version, writtenBy: $0.writtenBy) }
        return CrashState(sequence: last?.sequence ?? 0, nextItem: last?.nextItem ?? 1, items: items)
    }

    /// The line of one marker in the markers' digest.
    static func markerLine(_ sequence: Int, _ operation: String, _ liveItems: Int, _ nextItem: Int) -> String {
        "\(sequence) \(operation) \(liveItems) \(nextItem)"
    }

    static func run(file: String) {
        let failures = FailureCollector()
        var config = Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: crashModelTypes)
        config.readFailureHandler = failures.handler
        config.encryptionKey = HarnessKey.current
        let db: Database
        do {
            db = try Database(configuration: config)
            Output.line("open ok=true")
        } catch {
            Output.line("open ok=false error=\(fieldText("\(error)"))")
            return
        }
        do {
            let report = try db.verify()
            Output.line(
                "verify healthy=\(report.isHealthy) problems=\(report.problems.count + report.omittedProblems) first=\(fieldText(report.problems.first?.description ?? "-"))"
            )
        } catch {
            Output.line("verify healthy=false problems=1 first=\(fieldText("threw: \(error)"))")
        }
        let result = contents(of: db, readFailures: failures)
        Output.line(
            "check last=\(result.state.sequence) markers=\(result.markers) items=\(result.state.ids.count) parts=\(result.parts) problems=\(result.problems.count) first=\(fieldText(result.problems.first ?? "-")) digest=\(result.state.digest) markers-digest=\(result.markersDigest)"
        )
    }

    /// What a crash database holds, and every inconsistency in it.
    struct Contents {
        /// The state: last sequence, next item, items.
        var state: CrashState
        /// The number of markers and parts.
        var markers: Int, parts: Int
        /// The digest of the markers, in sequence order.
        var markersDigest: Digest
        /// Gaps in the markers, items whose content does not match their version, orphan
        /// parts, read failures.
        var problems: [String]
    }

    /// Reads everything in `db` and checks it.
    static func contents(of db: Database, readFailures failures: FailureCollector) -> Contents {
        var problems: [String] = []
        let markers = db.objects(CrashMarker.self).sorted(byKeyPath: "sequence")
        var expected = 1
        var markersDigest = Digest()
        for marker in markers {
            markersDigest.line(markerLine(marker.sequence, marker.operation, marker.liveItems, marker.nextItem))
            if marker.sequence != expected {
                problems.append("marker \(marker.sequence) where \(expected) was expected")
                expected = marker.sequence
            }
            expected += 1
        }
        let state = state(of: db)
        if let last = markers.last, last.liveItems != state.ids.count {
            problems.append("marker \(last.sequence) says \(last.liveItems) items, the file has \(state.ids.count)")
        }
        var expectedParts = 0
        for item in db.objects(CrashItem.self) {
            let stored = (version: item.version, writtenBy: item.writtenBy)
            problems += CrashContent.problems(item, expected: stored)
            expectedParts += CrashContent.parts(item.id).count
        }
        let parts = db.objects(CrashPart.self)
        if parts.count != expectedParts { problems.append("\(parts.count) parts, \(expectedParts) expected") }
        for part in parts where part.items.count != 1 {
            problems.append("part \(part.id) is listed by \(part.items.count) items")
        }
        if failures.count > 0 {
            problems.append("\(failures.count) read failures, first: \(failures.errors.first.map { "\($0)" } ?? "")")
        }
        return Contents(state: state, markers: markers.count, parts: parts.count, markersDigest: markersDigest, problems: problems)
    }
}
