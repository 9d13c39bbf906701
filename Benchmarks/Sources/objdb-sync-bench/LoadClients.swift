import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import ObjDB
import ObjDBSyncProtocol

/// The client side of the load benchmark, run as a child process so that the service's memory
/// is measured alone: `objdb-sync-bench --load-clients PORT N TOKENS-FILE`. It holds N
/// protocol-level connections, one per user (the tokens file holds a token per line), each
/// subscribed to the `LoadItem` class; it prints `ready` once every connection has its first
/// download, times every row received against the row's `stamp` (its commit's wall clock), and
/// on a line `drop` on its standard input closes every connection and opens them again at once
/// (with the checkpoints they hold), after printing the receipts and latencies so far as one line
/// of JSON, then prints `caught-up SECONDS` once every one has its catch-up download. `report`
/// prints the receipts and latencies since the drop.
enum LoadClients {
    /// What every connection shares.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var latencies: [Double] = []
        private var receipts = 0
        private var ready = 0

        func received(_ latency: Double) {
            lock.withLock {
                latencies.append(latency)
                receipts += 1
            }
        }

        func connectionReady() -> Int { lock.withLock { ready += 1; return ready } }
        func resetReady() { lock.withLock { ready = 0 } }

        /// The receipts and latencies so far, as JSON; they are then forgotten.
        func report() -> String {
            lock.withLock {
                defer {
                    latencies = []
                    receipts = 0
                }
                let sorted = latencies.sorted()
                func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000 }
                return #"{"receipts":\#(receipts),"p50":\#(percentile(0.5)),"p99":\#(percentile(0.99)),"max":\#((sorted.last ?? 0) * 1000)}"#
            }
        }
    }

    /// One connection's loop until it is closed; returns the last checkpoint it applied.
    static func connect(port: Int, token: String, schema: [SyncClassSchema], checkpoint: String?, since start: Double, tally: Tally,
        onReady: @escaping @Sendable () -> Void, stop: AsyncStream<Void>) async -> String?
    {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(token)"
        var logger = Logger(label: "objdb.load")
        logger.logLevel = .critical
        let configuration = WebSocketClientConfiguration(maxFrameSize: 8 << 20, additionalHeaders: headers)
        let last = LastCheckpoint(checkpoint)
        do {
            _ = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/sync", configuration: configuration, logger: logger) { inbound, outbound, _ in
                let hello = ClientMessage.Hello(clientID: UUID(), schema: schema, subscriptions: ["LoadItem"], checkpoint: checkpoint, lastSequence: 0)
                guard case .text(let text) = try SyncMessageCoding.frame(.hello(hello)) else { return }
                try await outbound.writeTextMessage(text)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await _ in stop {}
                        try? await outbound.close(.normalClosure, reason: nil)
                    }
                    var isReady = false
                    for try await message in inbound.messages(maxSize: 8 << 20) {
                        let frame: SyncFrame
                        switch message {
                        case .text(let t): frame = .text(t)
                        case .binary(let b): frame = .binary(Array(b.readableBytesView))
                        }
                        guard case .download(let part) = try SyncMessageCoding.decodeServer(frame) else { continue }
                        let now = Date().timeIntervalSince1970
                        for batch in part.batches {
                            guard let stampIndex = batch.propertyNames.firstIndex(of: "stamp") else { continue }
                            for row in batch.rows {
                                guard let values = row.values, case .double(let stamp) = values[stampIndex], stamp > start else { continue }
                                tally.received(now - stamp)
                            }
                        }
                        if part.isFinal, let c = part.checkpoint {
                            last.set(c)
                            if !isReady {
                                isReady = true
                                onReady()
                            }
                        }
                    }
                    group.cancelAll()
                }
            }
        } catch {
            FileHandle.standardError.write(Data("load connection failed: \(error)\n".utf8))
        }
        return last.get()
    }

    /// The lines of a pipe, read on a thread of their own (a blocking read must not hold a
    /// thread of the concurrency pool).
    static func lines(of handle: FileHandle) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let thread = Thread {
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    continuation.yield(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
            continuation.finish()
        }
        thread.start()
        return stream
    }

    /// Writes a line to standard output at once (the parent waits for it).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    final class LastCheckpoint: @unchecked Sendable {
        private let lock = NSLock()
        private var value: String?
        init(_ value: String?) { self.value = value }
        func set(_ v: String) { lock.withLock { value = v } }
        func get() -> String? { lock.withLock { value } }
    }

    /// The child process's main.
    static func run(port: Int, count: Int, tokensFile: String, schema: [SyncClassSchema]) async throws {
        let tokens = try String(contentsOfFile: tokensFile, encoding: .utf8).split(separator: "\n").map(String.init)
        guard tokens.count >= count else { throw BenchFailure("the tokens file holds \(tokens.count) tokens, not \(count)") }
        let tally = Tally()
        let start = Date().timeIntervalSince1970
        var checkpoints: [String?] = Array(repeating: nil, count: count)
        var lines = LoadClients.lines(of: FileHandle.standardInput).makeAsyncIterator()
        var round = 0
        while true {
            round += 1
            tally.resetReady()
            let begin = ContinuousClock.now
            let (stop, stopper) = AsyncStream<Void>.makeStream()
            let roundNumber = round
            let current = checkpoints
            let connections = Task {
                await withTaskGroup(of: (Int, String?).self) { group in
                    for i in 0..<count {
                        group.addTask {
                            let c = await connect(
                                port: port, token: tokens[i], schema: schema, checkpoint: current[i], since: start, tally: tally,
                                onReady: {
                                    if tally.connectionReady() == count {
                                        let seconds = Double((ContinuousClock.now - begin).components.attoseconds) / 1e18
                                            + Double((ContinuousClock.now - begin).components.seconds)
                                        say(roundNumber == 1 ? "ready \(seconds)" : "caught-up \(seconds)")
                                    }
                                }, stop: stop)
                            return (i, c)
                        }
                    }
                    var result: [(Int, String?)] = []
                    for await r in group { result.append(r) }
                    return result
                }
            }
            guard let line = await lines.next() else { break }
            // The receipts before the drop (steady state) are reported apart from those after.
            if line == "drop" { say(tally.report()) }
            stopper.finish()
            for (i, c) in await connections.value { checkpoints[i] = c }
            if line == "report" {
                say(tally.report())
                break
            }
        }
    }
}
