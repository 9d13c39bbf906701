import Foundation
import ObjDB
import ObjDBSyncProtocol

/// `--breakdown`: where the initial download's and the upload's time goes, piece by piece on
/// one thread — the binary coding of the download frames (done by the service and by the
/// client), the decoding of the upload frames (done by the service) and the PostgreSQL
/// statements as the service runs them.
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

    /// The rows as a client's outbox records their creates.
    static func creates(_ rows: [ItemRow]) -> [SyncOperation] {
        zip(rows.indices, states(rows)).map { i, state in
            SyncOperation(sequence: UInt64(i + 1), className: state.className, primaryKey: state.primaryKey, kind: .create, values: state.values ?? [:])
        }
    }

    /// Seconds to decode the upload frames of `rows`, in batches as a client sends them (the
    /// best of five passes), and the label of the row.
    static func uploadDecoding(_ rows: [ItemRow], batch: Int) throws -> (String, Double) {
        let operations = creates(rows)
        let frames = stride(from: 0, to: operations.count, by: batch).map { UploadFrame.encode(Array(operations[$0..<min(operations.count, $0 + batch)])) }
        var best = Double.infinity
        var first = 0.0
        for pass in 0..<5 {
            let start = monotonicNanoseconds()
            var decoded = 0
            for frame in frames { decoded += try UploadFrame.decode(frame).count }
            best = min(best, seconds(since: start))
            if pass == 0 { first = best }
            guard decoded == operations.count else { throw BenchFailure("decoded \(decoded) of \(operations.count) operations") }
        }
        return ("row 2's \(frames.count) upload frames of \(grouped(batch)) creates decoded (best of 5; the first pass \(String(format: "%.1f", first * 1000)) ms)", best)
    }
}
