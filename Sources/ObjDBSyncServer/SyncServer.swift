import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import JWTKit
import Logging
import ObjDB
import ObjDBSyncProtocol
import PostgresNIO
import ServiceLifecycle
import NIOCore
import NIOHTTP1
import NIOSSL

/// The sync service: devices connect over a WebSocket at ``SyncProtocol/path`` with a JWT and
/// sync their files with PostgreSQL tables (Docs/SyncProtocol.md).
///
/// ```swift
/// let server = try await SyncServer(configuration: .init(
///     postgresURL: "postgres://app@localhost:5432/app", host: "127.0.0.1", port: 0,
///     authentication: .hs256(secret: secret), rules: .allowAll, createsTablesFromClientSchemas: true))
/// try await server.start()
/// print(server.port)
/// try await server.stop()
/// ```
///
/// The service keeps no state that PostgreSQL cannot rebuild: several instances may serve the
/// same database.
public final class SyncServer: Sendable {
    /// How a server connects, listens and authenticates.
    public struct Configuration: Sendable {
        /// `postgres://user[:password]@host[:port]/database[?sslmode=disable|require]`.
        public var postgresURL: String
        /// The address to listen on.
        public var host: String
        /// The port to listen on; 0 for any free port (``SyncServer/port`` tells which).
        public var port: Int
        /// How tokens are verified.
        public var authentication: Authentication
        /// The audience tokens must name in their `aud` claim. Required with RS256 and ES256 (an
        /// identity provider's key signs tokens for other services too); without one, a token
        /// that names any audience is refused.
        public var audience: String?
        /// What each user may read and write.
        public var rules: SyncRules
        /// Development mode: create tables and add missing columns from clients' schemas.
        public var createsTablesFromClientSchemas: Bool
        /// The most pooled PostgreSQL connections (one more listens for notifications).
        public var maximumPostgresConnections: Int
        /// How often each connection looks for changes when no notification came.
        public var pollInterval: Duration
        /// How long the change feed keeps a transaction's rows; a client offline for longer
        /// bootstraps again. The server trims the feed every hour (or every `feedRetention`,
        /// if shorter).
        public var feedRetention: Duration
        /// Where the server logs.
        public var logger: Logger
        /// Called after an upload is committed in PostgreSQL and before its acknowledgement is
        /// sent, with the client id and the last sequence applied: where the tests kill a client
        /// whose upload the server has and the client does not know it has.
        package var afterApplyingUpload: (@Sendable (UUID, UInt64) async -> Void)?

        /// A configuration.
        public init(
            postgresURL: String, host: String = "127.0.0.1", port: Int = 7800, authentication: Authentication, rules: SyncRules = .allowAll,
            createsTablesFromClientSchemas: Bool = false, maximumPostgresConnections: Int = 10, pollInterval: Duration = .seconds(5),
            feedRetention: Duration = .seconds(7 * 24 * 3600), logger: Logger = Logger(label: "objdb.sync.server"), audience: String? = nil
        ) {
            self.feedRetention = feedRetention
            self.postgresURL = postgresURL
            self.host = host
            self.port = port
            self.authentication = authentication
            self.rules = rules
            self.createsTablesFromClientSchemas = createsTablesFromClientSchemas
            self.maximumPostgresConnections = maximumPostgresConnections
            self.pollInterval = pollInterval
            self.logger = logger
            self.audience = audience
        }
    }

    /// How the server verifies bearer tokens: one algorithm and key. A token signed with any
    /// other algorithm is refused, so an RS256 or ES256 server cannot be fooled by an HS256
    /// token signed with its public key.
    public enum Authentication: Sendable {
        /// HMAC-SHA-256 with a shared secret of at least 32 bytes.
        case hs256(secret: [UInt8])
        /// RSASSA-PKCS1-v1_5 with SHA-256: the identity provider's RSA public key (PEM, at
        /// least 2048 bits), whose private key signs the tokens.
        case rs256(publicKeyPEM: String)
        /// ECDSA on P-256 with SHA-256: the identity provider's public key (PEM).
        case es256(publicKeyPEM: String)

        /// HMAC-SHA-256 with a shared secret.
        public static func hs256(secret: Data) -> Authentication { .hs256(secret: [UInt8](secret)) }
    }

    /// The WebSocket close codes the server uses (Docs/SyncProtocol.md, "Close codes").
    public enum CloseCode {
        /// The token's `exp` passed: reconnect with a fresh token.
        public static let tokenExpired: UInt16 = 4001
        /// An `error` message was sent just before; its code says why.
        public static let error: UInt16 = 4002
        /// The server is shutting down: reconnect (to another instance).
        public static let goingAway: UInt16 = 1001
    }

    let configuration: Configuration
    let postgres: PostgresClient
    let postgresConfiguration: PostgresClient.Configuration
    let store: SyncStore
    let keys: JWTKeyCollection
    let hub = SessionHub()
    /// The instance's one reader of the change feed for its sessions.
    let fanout: FeedFanout
    private let state = Locked<RunState>(RunState())

    struct RunState: Sendable {
        var port: Int?
        var task: Task<Void, Error>?
        var group: ServiceGroup?
        var listener: Task<Void, Never>?
        var trimmer: Task<Void, Never>?
        var poller: Task<Void, Never>?
    }

    /// Creates a server (it does not listen until ``start()``).
    public init(configuration: Configuration) async throws {
        self.configuration = configuration
        var pg = try Self.postgresConfiguration(url: configuration.postgresURL)
        pg.options.maximumConnections = max(1, configuration.maximumPostgresConnections)
        self.postgresConfiguration = pg
        self.postgres = PostgresClient(configuration: pg, backgroundLogger: configuration.logger)
        self.store = SyncStore(client: postgres, logger: configuration.logger, createsTables: configuration.createsTablesFromClientSchemas)
        self.fanout = FeedFanout(store: store, hub: hub, logger: configuration.logger)
        if let audience = configuration.audience, audience.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ObjDBError(.invalidValue, "The audience is empty: name this service, as the tokens' aud claim does")
        }
        let keys = JWTKeyCollection()
        switch configuration.authentication {
        case .rs256, .es256:
            guard configuration.audience != nil else {
                throw ObjDBError(
                    .invalidValue,
                    "RS256 and ES256 need an audience (Configuration.audience, --audience): an identity provider's key signs tokens for other services too, and only the aud claim tells this service's apart")
            }
        case .hs256: break
        }
        switch configuration.authentication {
        case .hs256(let secret):
            guard secret.count >= 32 else {
                throw ObjDBError(.invalidValue, "An HS256 secret needs at least 32 bytes, not \(secret.count)")
            }
            await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        case .rs256(let pem):
            let key: Insecure.RSA.PublicKey
            do { key = try Insecure.RSA.PublicKey(pem: pem) } catch {
                throw ObjDBError(.invalidValue, "The RS256 key is not an RSA public key in PEM of at least 2048 bits: \(error)")
            }
            await keys.add(rsa: key, digestAlgorithm: .sha256)
        case .es256(let pem):
            let key: ES256PublicKey
            do { key = try ES256PublicKey(pem: pem) } catch {
                throw ObjDBError(.invalidValue, "The ES256 key is not a P-256 public key in PEM: \(error)")
            }
            await keys.add(ecdsa: key)
        }
        self.keys = keys
    }

    /// The port the server listens on (after ``start()``; 0 before).
    public var port: Int { state.withLock { $0.port ?? 0 } }

    /// Connects to PostgreSQL, prepares the system tables and starts listening.
    public func start() async throws {
        let logger = configuration.logger
        let (portStream, portContinuation) = AsyncStream<Int>.makeStream()
        let router = Router()
        let keys = self.keys
        let audience = configuration.audience
        router.get(RouterPath(stringLiteral: SyncProtocol.path)) { request, _ -> Response in
            // Reached only when the upgrade was refused (or no upgrade was asked for).
            let authorized = await (try? Self.verify(request.headers[.authorization], keys: keys, audience: audience)) != nil
            return Response(status: authorized ? .upgradeRequired : .unauthorized)
        }
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(
                configuration: .init(
                    ws: .init(maxFrameSize: SyncLimits.maxMessageBytes + (1 << 20), autoPing: .enabled(timePeriod: .seconds(30))))
            ) { [self] request, channel, logger in
                guard request.path?.split(separator: "?").first.map(String.init) == SyncProtocol.path else { return .dontUpgrade }
                let token: Claims
                let header = request.headerFields[.authorization]
                do {
                    token = try await Self.verify(header, keys: keys, audience: audience)
                } catch {
                    // Why, never the token.
                    logger.info("Sync connection refused", metadata: ["reason": "\(Self.refusalReason(error))"])
                    await Self.refuse(channel, status: "401 Unauthorized")
                    return .dontUpgrade
                }
                return .upgrade([:]) { inbound, outbound, context in
                    let variables = ClientView.variables(user: token.sub.value, token: String(header?.dropFirst("bearer ".count) ?? ""))
                    let session = Session(
                        server: self, user: token.sub.value, variables: variables, expiration: token.exp.value, outbound: outbound,
                        logger: context.logger)
                    await session.run(inbound: inbound)
                }
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [postgres, app], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            // A server that cannot listen ends here: let start() know.
            defer { portContinuation.finish() }
            try await group.run()
        }
        state.withLock {
            $0.group = group
            $0.task = task
        }
        var iterator = portStream.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            await group.triggerGracefulShutdown()
            var reason = ""
            do { try await task.value } catch { reason = ": \(error)" }
            state.withLock { $0 = RunState() }
            throw ObjDBError(.storage, "The sync server could not listen on \(configuration.host):\(configuration.port)\(reason)")
        }
        do {
            try await store.prepare()
            try await store.check(configuration.rules)
        } catch {
            await group.triggerGracefulShutdown()
            state.withLock { $0 = RunState() }
            // The services stopped first (the port was taken…): that is the reason to give.
            do { try await task.value } catch let serviceError {
                throw ObjDBError(.storage, "The sync server could not start on \(configuration.host):\(configuration.port): \(serviceError)")
            }
            throw error
        }
        let listener = Task { await self.listen() }
        let trimmer = Task { await self.trimPeriodically() }
        // The slow fallback of the notifications (a lost one, a listener reconnecting).
        let poller = Task { [fanout, configuration] in
            while !Task.isCancelled {
                try? await Task.sleep(for: configuration.pollInterval)
                if !Task.isCancelled { await fanout.wake() }
            }
        }
        state.withLock {
            $0.port = port
            $0.listener = listener
            $0.trimmer = trimmer
            $0.poller = poller
        }
        logger.info("Sync server listening", metadata: ["port": "\(port)"])
    }

    /// Closes every connection and stops listening.
    public func stop() async throws {
        let (group, task, listener, trimmer, poller) = state.withLock { ($0.group, $0.task, $0.listener, $0.trimmer, $0.poller) }
        listener?.cancel()
        trimmer?.cancel()
        poller?.cancel()
        await hub.shutdown()
        // Let the sessions send their close frames (1001, going away) before the server closes
        // the sockets under them: clients then reconnect at once, to another instance.
        let deadline = ContinuousClock.now + .seconds(2)
        while await hub.count > 0, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        await group?.triggerGracefulShutdown()
        _ = await listener?.value
        try await task?.value
        state.withLock { $0 = RunState() }
    }

    /// Deletes change-feed rows of transactions older than `age`; returns how many. Clients
    /// whose checkpoint is older than the trim point bootstrap again. The server does this on
    /// its own (``Configuration/feedRetention``).
    @discardableResult
    public func trimChangeFeed(olderThan age: Duration) async throws -> Int {
        let (seconds, attoseconds) = age.components
        return try await store.trimFeed(olderThan: Double(seconds) + Double(attoseconds) / 1e18)
    }

    func trimPeriodically() async {
        let interval = min(configuration.feedRetention, .seconds(3600))
        while !Task.isCancelled {
            try? await Task.sleep(for: max(interval, .seconds(1)))
            if Task.isCancelled { return }
            do {
                let n = try await trimChangeFeed(olderThan: configuration.feedRetention)
                if n > 0 { configuration.logger.info("Trimmed the change feed", metadata: ["rows": "\(n)"]) }
            } catch {
                configuration.logger.warning("Trimming the change feed failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The claims the server reads from a token.
    struct Claims: JWTPayload {
        var sub: SubjectClaim
        var exp: ExpirationClaim
        var aud: AudienceClaim?
        var nbf: NotBeforeClaim?

        func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
            // A minute of leeway for the clocks of the provider and this machine.
            try nbf?.verifyNotBefore(currentDate: Date().addingTimeInterval(60))
        }
    }

    /// The claims of the bearer token in `header`, verified: the signature with the server's
    /// one algorithm and key (the header's `alg` is not consulted), expiry and not-before, a
    /// subject, and the audience: `audience` among its `aud`, or no `aud` when `audience` is nil.
    static func verify(_ header: String?, keys: JWTKeyCollection, audience: String?) async throws -> Claims {
        guard let header, header.lowercased().hasPrefix("bearer ") else {
            throw ObjDBError(.permissionDenied, "No bearer token")
        }
        let token = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        let claims = try await keys.verify(token, as: Claims.self)
        guard !claims.sub.value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ObjDBError(.permissionDenied, "The token has no subject")
        }
        if let audience {
            guard let aud = claims.aud, aud.value.contains(audience) else {
                throw ObjDBError(.permissionDenied, "The token is not for the audience '\(audience)'")
            }
        } else if let aud = claims.aud, !aud.value.isEmpty {
            throw ObjDBError(.permissionDenied, "The token is for \(aud.value), and this service has no audience")
        }
        return claims
    }

    /// Why a token was refused, for the log: the check that failed, never the token's text.
    static func refusalReason(_ error: any Error) -> String {
        if let error = error as? ObjDBError { return error.message }
        if let error = error as? JWTError { return "\(error.errorType)" }
        return "malformed token"
    }

    /// The one listening connection of this instance: every notification wakes every session.
    func listen() async {
        let logger = configuration.logger
        let connectionConfiguration: PostgresConnection.Configuration
        do {
            connectionConfiguration = try Self.connectionConfiguration(url: configuration.postgresURL)
        } catch {
            logger.error("Sync notification listener has no configuration", metadata: ["error": "\(error)"])
            return
        }
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: connectionConfiguration, id: 0, logger: logger)
                do {
                    try await connection.listen(on: SyncStore.notifyChannel) { notifications in
                        // Changes made while (re)connecting: look once.
                        await self.fanout.wake()
                        for try await _ in notifications { await self.fanout.wake() }
                    }
                } catch {
                    if !Task.isCancelled { logger.warning("Sync notification listener failed", metadata: ["error": "\(error)"]) }
                }
                try? await connection.close()
            } catch {
                logger.warning("Sync notification listener cannot connect", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Answers an upgrade request with an HTTP error and closes the connection, before any
    /// WebSocket data (the WebSocket library would answer a refused upgrade with 400). The
    /// response is written below the HTTP encoder, as raw bytes.
    static func refuse(_ channel: any Channel, status: String) async {
        let text = "HTTP/1.1 \(status)\r\nContent-Length: 0\r\nConnection: close\r\nWWW-Authenticate: Bearer\r\n\r\n"
        let buffer = channel.allocator.buffer(string: text)
        let future = channel.pipeline.context(handlerType: HTTPResponseEncoder.self).flatMap { context -> EventLoopFuture<Void> in
            context.writeAndFlush(NIOAny(buffer)).flatMap { channel.close() }
        }
        try? await future.get()
    }

    /// A single connection's configuration for a `postgres://` URL (the listener, `status`).
    static func connectionConfiguration(url text: String) throws -> PostgresConnection.Configuration {
        let pool = try postgresConfiguration(url: text)
        if let path = pool.unixSocketPath {
            return .init(unixSocketPath: path, username: pool.username, password: pool.password, database: pool.database)
        }
        let query = Dictionary((URLComponents(string: text)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let tls: PostgresConnection.Configuration.TLS
        switch query["sslmode"] ?? "disable" {
        case "require", "verify-ca", "verify-full": tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case "prefer", "allow": tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        default: tls = .disable
        }
        return .init(host: pool.host ?? "127.0.0.1", port: pool.port ?? 5432, username: pool.username, password: pool.password, database: pool.database, tls: tls)
    }

    /// Reads a `postgres://` URL.
    static func postgresConfiguration(url text: String) throws -> PostgresClient.Configuration {
        guard let c = URLComponents(string: text), c.scheme == "postgres" || c.scheme == "postgresql" else {
            throw ObjDBError(.invalidValue, "Not a postgres:// URL: \(text)")
        }
        let user = c.user.flatMap { $0.removingPercentEncoding } ?? "postgres"
        let password = c.password.flatMap { $0.removingPercentEncoding }
        let database = c.path.split(separator: "/").first.map(String.init)
        let query = Dictionary((c.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        if let socketDir = query["host"], socketDir.hasPrefix("/") {
            let port = c.port ?? 5432
            return .init(unixSocketPath: "\(socketDir)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        }
        let tls: PostgresClient.Configuration.TLS
        switch query["sslmode"] ?? "disable" {
        case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
        case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
        default: tls = .disable
        }
        return .init(host: c.host ?? "127.0.0.1", port: c.port ?? 5432, username: user, password: password, database: database, tls: tls)
    }
}

/// The live sessions of a server, to wake them on a notification and close them on stop.
actor SessionHub {
    private var sessions: [ObjectIdentifier: Session] = [:]
    private var isShutDown = false

    func add(_ session: Session) -> Bool {
        guard !isShutDown else { return false }
        sessions[ObjectIdentifier(session)] = session
        return true
    }

    func remove(_ session: Session) { sessions[ObjectIdentifier(session)] = nil }

    /// The live sessions.
    func all() -> [Session] { Array(sessions.values) }

    func shutdown() {
        isShutDown = true
        for s in sessions.values { s.post(.shutdown) }
    }

    var count: Int { sessions.count }
}
