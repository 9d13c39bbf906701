import Foundation
import ObjDB
import ObjDBSyncProtocol

/// `--breakdown`: where the initial download's time goes, piece by piece on one thread — the
/// JSON coding of the download messages (done by the service and by the client) and the
/// PostgreSQL read as the service does it (every column `::text`).
enum Breakdown {
    /// The rows as the service sends them.
    static func states(_ rows: [ItemRow]) -> [SyncObjectState] {
        rows.map { row in
            SyncObjectState(
                className: "BenchItem", primaryKey: .string(row.id),
                values: [
                    "id": .string(row.id), "name": .string(row.name), "count": .int(Int64(row.count)), "score": .double(row.score),
                    "created": .date(Date(timeIntervalSince1970: row.created)), "flag": .bool(row.flag),
                ])
        }
    }

    /// Times in seconds: each change encoded alone (how the service sized its parts before it
    /// encoded the parts themselves), the download messages encoded, and decoded.
    static func coding(_ rows: [ItemRow]) throws -> [(String, Double)] {
        let states = states(rows)
        var start = monotonicNanoseconds()
        var bytes = 0
        for state in states {
            bytes += try SyncMessageCoding.encode(
                .download(.init(isReset: false, changes: [state], isFinal: false, checkpoint: nil, includesSequence: nil))
            ).utf8.count
        }
        let single = seconds(since: start)
        start = monotonicNanoseconds()
        var messages: [String] = []
        for chunk in stride(from: 0, to: states.count, by: SyncLimits.maxChangesPerMessage) {
            let part = Array(states[chunk..<min(states.count, chunk + SyncLimits.maxChangesPerMessage)])
            messages.append(try SyncMessageCoding.encode(.download(.init(isReset: true, changes: part, isFinal: false, checkpoint: nil, includesSequence: nil))))
        }
        let encode = seconds(since: start)
        start = monotonicNanoseconds()
        var decoded = 0
        for message in messages {
            guard case .download(let part) = try SyncMessageCoding.decodeServer(message) else { throw BenchFailure("not a download") }
            decoded += part.changes.count
        }
        let decode = seconds(since: start)
        guard decoded == states.count, bytes > 0 else { throw BenchFailure("decoded \(decoded) of \(states.count)") }
        let total = messages.reduce(0) { $0 + $1.utf8.count }
        return [
            ("each change encoded alone (\(grouped(bytes / 1024)) KiB)", single),
            ("\(messages.count) download messages encoded (\(grouped(total / 1024)) KiB)", encode),
            ("the same messages decoded", decode),
        ]
    }
}
