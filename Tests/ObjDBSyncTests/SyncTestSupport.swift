import Foundation
import HTTPTypes
import HummingbirdWSClient
import NIOCore
import NIOWebSocket
import JWTKit
import Logging
import ObjDB
import ObjDBSyncProtocol
import ObjDBSyncServer
import ObjDBSyncTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

let testSecret: [UInt8] = Array("objdb-sync-test-secret-0123456789".utf8)

struct TestClaims: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var aud: AudienceClaim?
    func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
}

/// A token for `user` signed by `keys` (one signer), for `audience` if given, valid for an hour.
func signedToken(user: String, keys: JWTKeyCollection, audience: [String]? = nil) async throws -> String {
    try await keys.sign(TestClaims(sub: .init(value: user), exp: .init(value: Date().addingTimeInterval(3600)), aud: audience.map { AudienceClaim(value: $0) }))
}

/// A signed token for a user (`secret` other than the server's: a forged one).
func makeToken(user: String, expiresIn seconds: TimeInterval = 3600, secret: [UInt8] = testSecret) async throws -> String {
    let keys = JWTKeyCollection()
    await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
    return try await keys.sign(TestClaims(sub: .init(value: user), exp: .init(value: Date().addingTimeInterval(seconds))))
}

func makeServer(
    _ db: TemporaryPostgres.Database, development: Bool = true, authentication: SyncServer.Authentication = .hs256(secret: testSecret),
    audience: String? = nil, rules: SyncRules = .allowAll, afterApplyingUpload: (@Sendable (UUID, UInt64) async -> Void)? = nil
) async throws -> SyncServer {
    var logger = Logger(label: "objdb.sync.test")
    logger.logLevel = .warning
    var configuration = SyncServer.Configuration(
        postgresURL: db.url, host: "127.0.0.1", port: 0, authentication: authentication, rules: rules,
        createsTablesFromClientSchemas: development, pollInterval: .seconds(5), logger: logger)
    configuration.audience = audience
    configuration.afterApplyingUpload = afterApplyingUpload
    let server = try await SyncServer(configuration: configuration)
    try await server.start()
    return server
}

/// Runs `body` with a service started on `db` (as ``makeServer(_:development:authentication:audience:rules:afterApplyingUpload:)``
/// does), and stops the service after it, whether `body` throws or not.
func withStartedServer(
    on db: TemporaryPostgres.Database, development: Bool = true, authentication: SyncServer.Authentication = .hs256(secret: testSecret),
    audience: String? = nil, rules: SyncRules = .allowAll, afterApplyingUpload: (@Sendable (UUID, UInt64) async -> Void)? = nil,
    _ body: (SyncServer) async throws -> Void
) async throws {
    let server = try await makeServer(
        db, development: development, authentication: authentication, audience: audience, rules: rules, afterApplyingUpload: afterApplyingUpload)
    do {
        try await body(server)
    } catch {
        try? await server.stop()
        throw error
    }
    try await server.stop()
}

/// Received text messages, for waiting on them with a timeout.
actor Inbox {
    var messages: [SyncFrame] = []
    var isClosed = false
    var closeCode: WebSocketErrorCode?
    /// While set, the client reads nothing more from its socket (a stalled client).
    var isPaused = false

    func pause(_ paused: Bool) { isPaused = paused }

    func add(_ frame: SyncFrame) { messages.append(frame) }
    func close(_ code: WebSocketErrorCode?) {
        isClosed = true
        closeCode = code
    }
    func take() -> SyncFrame? { messages.isEmpty ? nil : messages.removeFirst() }
}

/// A WebSocket client of the sync protocol for tests.
final class TestClient: Sendable {
    let inbox = Inbox()
    let outgoing: AsyncStream<SyncFrame>.Continuation
    let task: Task<Void, Never>

    init(port: Int, token: String?) {
        let (stream, continuation) = AsyncStream<SyncFrame>.makeStream()
        outgoing = continuation
        let inbox = self.inbox
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        var logger = Logger(label: "objdb.sync.test.client")
        logger.logLevel = .critical
        let configuration = WebSocketClientConfiguration(maxFrameSize: 8 << 20, additionalHeaders: headers)
        task = Task {
            do {
                let frame = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/sync", configuration: configuration, logger: logger) {
                    inbound, outbound, _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await frame in stream {
                                switch frame {
                                case .text(let text): try await outbound.write(.text(text))
                                case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                                }
                            }
                            try? await outbound.close(.normalClosure, reason: nil)
                        }
                        for try await message in inbound.messages(maxSize: 8 << 20) {
                            while await inbox.isPaused { try await Task.sleep(for: .milliseconds(10)) }
                            switch message {
                            case .text(let text): await inbox.add(.text(text))
                            case .binary(let buffer): await inbox.add(.binary(Array(buffer.readableBytesView)))
                            }
                        }
                        group.cancelAll()
                    }
                }
                await inbox.close(frame?.closeCode)
            } catch {
                await inbox.close(nil)
            }
        }
    }

    func send(_ message: ClientMessage) throws { outgoing.yield(try SyncMessageCoding.frame(message)) }
    func sendRaw(_ text: String) { outgoing.yield(.text(text)) }
    func sendRaw(_ frame: SyncFrame) { outgoing.yield(frame) }
    func close() async {
        outgoing.finish()
        await task.value
    }

    /// The next message, or throws after the timeout.
    /// Waits are long: under the whole suite, tests that compute on both cooperative threads
    /// for a minute delay the in-process service's tasks; a passing wait takes milliseconds.
    func next(timeout: Duration = .seconds(180)) async throws -> ServerMessage {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let frame = await inbox.take() { return try SyncMessageCoding.decodeServer(frame) }
            if await inbox.isClosed { throw HarnessError("connection closed while waiting") }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw HarnessError("no message within \(timeout)")
    }

    /// The next message that is not a download (downloads come whenever data changes).
    func nextReply(timeout: Duration = .seconds(180)) async throws -> ServerMessage {
        while true {
            let m = try await next(timeout: timeout)
            if case .download = m { continue }
            return m
        }
    }

    /// Waits until the server closed the connection; returns its close code.
    func closed(timeout: Duration = .seconds(180)) async throws -> WebSocketErrorCode? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await inbox.isClosed { return await inbox.closeCode }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw HarnessError("not closed within \(timeout)")
    }

    /// Sends a hello and reads the welcome and the (possibly multi-part) initial download.
    func hello(_ hello: ClientMessage.Hello) async throws -> (acknowledged: UInt64, download: [ServerMessage.Download]) {
        try send(.hello(hello))
        guard case .welcome(let acknowledged) = try await next() else { throw HarnessError("expected welcome") }
        return (acknowledged, try await download())
    }

    /// The parts of the next download, through the final one.
    func download(timeout: Duration = .seconds(180)) async throws -> [ServerMessage.Download] {
        var parts: [ServerMessage.Download] = []
        while true {
            let m = try await next(timeout: timeout)
            guard case .download(let d) = m else { throw HarnessError("expected a download, got \(m)") }
            parts.append(d)
            if d.isFinal { return parts }
        }
    }

    /// Downloads until one holds a change of this primary key; returns that state.
    func waitForChange(_ pk: SyncValue, timeout: Duration = .seconds(180)) async throws -> SyncObjectState {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            for part in try await download(timeout: timeout) {
                if let c = part.changes.first(where: { $0.primaryKey == pk }) { return c }
            }
        }
        throw HarnessError("no change of \(pk)")
    }
}

/// Sends a raw HTTP upgrade request and returns the response's status code and whole text.
func rawUpgrade(port: Int, authorization: String?) async throws -> (Int, String) {
    // On a thread of its own: the blocking socket calls must not hold one of the concurrency
    // pool's threads, which the server's upgrade handler needs to answer (with 2 cores, two
    // blocked calls starved it until their 10-second timeout, and a CI run failed).
    try await onOwnThread {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard ok == 0 else { throw HarnessError("connect failed") }
        var request = "GET /sync HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let authorization { request += "Authorization: \(authorization)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            response += buffer[0..<n]
            if let text = String(validating: response, as: UTF8.self), text.contains("\r\n\r\n") {
                // Headers complete; a body, if any, is announced by content-length (0 for ours).
                break
            }
        }
        let text = String(decoding: response, as: UTF8.self)
        let status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, text)
    }
}

/// Runs `body`, which blocks, on a new thread, and returns what it returns.
func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
