import Foundation

/// Where and as whom a ``SyncClient`` syncs.
///
/// ```swift
/// let sync = SyncConfiguration(
///     serverURL: URL(string: "ws://127.0.0.1:7800/sync")!,
///     token: { try await auth.currentToken() })
/// ```
public struct SyncConfiguration: Sendable {
    /// The service's WebSocket address, `ws://host:port/sync` (or `wss://`).
    public var serverURL: URL
    /// Returns a JWT bearer token for the service; called at each connection, so an expired
    /// token is replaced by a fresh one.
    public var token: @Sendable () async throws -> String
    /// The first wait before reconnecting after a lost or refused connection; doubled at each
    /// failure up to ``maximumReconnectDelay``, back to this once connected.
    public var reconnectDelay: Duration
    /// The longest wait between two connection attempts.
    public var maximumReconnectDelay: Duration
    /// Classes of the file that stay local: not recorded in the outbox, not downloaded. Every
    /// other class needs a `String`, `UUID` or ``ObjDB/ObjectId`` primary key.
    public var localClasses: Set<String>

    /// A configuration for the service at `serverURL`, with tokens from `token`.
    public init(
        serverURL: URL, token: @escaping @Sendable () async throws -> String, reconnectDelay: Duration = .milliseconds(200),
        maximumReconnectDelay: Duration = .seconds(30), localClasses: Set<String> = []
    ) {
        self.serverURL = serverURL
        self.token = token
        self.reconnectDelay = reconnectDelay
        self.maximumReconnectDelay = maximumReconnectDelay
        self.localClasses = localClasses
    }
}
