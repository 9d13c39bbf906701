import Foundation
import ObjDB
import ObjDBSyncProtocol

/// `--breakdown`: where the initial download's time goes, piece by piece on one thread — the
/// binary coding of the download frames (done by the service and by the client) and the
/// PostgreSQL read as the service does it.
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

    /// Times in seconds: the download frames encoded, and decoded.
    static func coding(_ rows: [ItemRow]) throws -> [(String, Double)] {
        let states = states(rows)
        var start = monotonicNanoseconds()
        var frames: [SyncFrame] = []
        for chunk in stride(from: 0, to: states.count, by: SyncLimits.maxChangesPerMessage) {
            let part = Array(states[chunk..<min(states.count, chunk + SyncLimits.maxChangesPerMessage)])
            frames.append(try SyncMessageCoding.frame(.download(.init(isReset: true, changes: part, isFinal: false, checkpoint: nil, includesSequence: nil))))
        }
        let encode = seconds(since: start)
        start = monotonicNanoseconds()
        var decoded = 0
        for frame in frames {
            guard case .download(let part) = try SyncMessageCoding.decodeServer(frame) else { throw BenchFailure("not a download") }
            decoded += part.changeCount
        }
        let decode = seconds(since: start)
        guard decoded == states.count else { throw BenchFailure("decoded \(decoded) of \(states.count)") }
        let total = frames.reduce(0) { $0 + $1.byteCount }
        return [
            ("\(frames.count) download frames encoded (\(grouped(total / 1024)) KiB; from states, grouped into batches)", encode),
            ("the same frames decoded", decode),
        ]
    }
}
