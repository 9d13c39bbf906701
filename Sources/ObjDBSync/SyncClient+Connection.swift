import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import ObjDB
import ObjDBSyncProtocol

/// The connection loop of a ``SyncClient``: connect with a fresh token, say hello, upload the
/// outbox in order, apply downloads, and after any failure wait and try again.
extension SyncClient {
    /// Connects again and again until the client is stopped, waiting between failures twice as
    /// long each time (from ``SyncConfiguration/reconnectDelay`` to its maximum).
    func run() async {
        var delay = sync.reconnectDelay
        while !Task.isCancelled {
            setState(.connecting)
            var reconnectAtOnce = false
            do {
                let token = try await sync.token()
                reconnectAtOnce = try await connectOnce(token: token)
                delay = sync.reconnectDelay
            } catch is CancellationError {
                break
            } catch is TokenExpired {
                // A routine end: reconnect at once with a fresh token.
                reconnectAtOnce = true
            } catch {
                if !Task.isCancelled {
                    let failure = Self.objdbError(error)
                    report(.error(failure))
                    // The service refused this client for a reason that retrying does not fix
                    // (its token, its schema): the waits end with the reason; the loop retries,
                    // as a new token or a fixed service may come.
                    if Self.isPermanent(error) { failWaiters(failure) }
                }
            }
            connection = nil
            downloadParts = []
            guard !Task.isCancelled else { break }
            setState(.offline)
            if reconnectAtOnce { continue }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, sync.maximumReconnectDelay)
        }
    }

    /// One connection, until it closes; returns whether the service asked for a reset (so the
    /// client reconnects at once under its new id).
    private func connectOnce(token: String) async throws -> Bool {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(token)"
        let configuration = WebSocketClientConfiguration(maxFrameSize: SyncLimits.maxMessageBytes, additionalHeaders: headers)
        let outcome = ConnectionOutcome()
        let closeFrame = try await WebSocketClient.connect(
            url: sync.serverURL.absoluteString, configuration: configuration, logger: logger
        ) { inbound, outbound, _ in
            let connection = SyncConnection(outbound)
            try await self.opened(connection)
            for try await message in inbound.messages(maxSize: SyncLimits.maxMessageBytes) {
                let frame: SyncFrame
                switch message {
                case .text(let text): frame = .text(text)
                case .binary(let buffer): frame = .binary(Array(buffer.readableBytesView))
                }
                if try await self.received(frame, on: connection) == .reset {
                    outcome.resetRequested = true
                    await connection.close()
                }
            }
        }
        if case .unknown(let code)? = closeFrame?.closeCode, code == 4001 { throw TokenExpired() }
        if let closeFrame, closeFrame.closeCode != .normalClosure, !outcome.resetRequested {
            throw ObjDBError(.sync, "The sync service closed the connection (\(closeFrame.closeCode)): \(closeFrame.reason ?? "no reason given")")
        }
        return outcome.resetRequested
    }

    /// A new connection: say hello with the file's state.
    private func opened(_ connection: SyncConnection) async throws {
        let db = try openDatabase()
        db.refresh()
        guard let state = try db.syncFileState() else {
            throw ObjDBError(.sync, "The file is no longer synced", path: configuration.fileURL?.path)
        }
        self.connection = connection
        sentThrough = state.acknowledged
        connectionSubscriptions = subscriptions.all
        watchCommits(db)
        let schema = db.schema.objectSchema.filter { $0.isEmbedded || syncedClasses.contains($0.className) }.map(SyncClassSchema.init)
        let whole = connectionSubscriptions.filter { !$0.hasQuery }.map(\.className)
        let queries = connectionSubscriptions.filter(\.hasQuery).map(\.query)
        try await connection.send(.hello(ClientMessage.Hello(
            clientID: state.clientID, schema: schema, subscriptions: Array(Set(whole)).sorted(), queries: queries, checkpoint: state.checkpoint,
            lastSequence: state.nextSequence - 1)))
    }

    /// What the inbound loop does next.
    enum Next { case goOn, reset }

    /// Handles one message of the service.
    private func received(_ frame: SyncFrame, on connection: SyncConnection) async throws -> Next {
        let message: ServerMessage
        do {
            message = try SyncMessageCoding.decodeServer(frame)
        } catch {
            throw ObjDBError(.sync, "The sync service sent a message that is not its protocol: \(Self.objdbError(error).message)")
        }
        let db = try openDatabase()
        switch message {
        case .welcome(let acknowledged):
            try acknowledge(acknowledged, db)
            sentThrough = max(sentThrough, acknowledged)
            setState(.connected)
            if downloadRequests.sent > downloadRequests.answered { try await connection.send(.requestDownload(id: downloadRequests.sent)) }
            try await uploadPending()
        case .ack(let through):
            try acknowledge(through, db)
            try await uploadPending()
        case .download(let part):
            downloadParts.append(part)
            guard part.isFinal else { return .goOn }
            let parts = downloadParts
            downloadParts = []
            guard let checkpoint = part.checkpoint else {
                throw ObjDBError(.sync, "The sync service sent a final download without a checkpoint")
            }
            // Subscriptions changed since this connection's hello: its checkpoint would stand for
            // objects it never downloaded. The next connection bootstraps them.
            guard connectionSubscriptions.selection == subscriptions.all.selection else { return .goOn }
            try db.applyDownload(
                parts.flatMap(\.batches), isReset: parts.first?.isReset ?? false, classNames: connectionSubscriptions.classNames,
                checkpoint: checkpoint, includedSequence: part.includesSequence ?? 0)
        case .downloadDone(let id):
            downloadRequests.answered = max(downloadRequests.answered, id)
            let ready = downloadWaiters.filter { $0.0 <= id }
            downloadWaiters.removeAll { $0.0 <= id }
            for (_, waiter) in ready { waiter.resume() }
        case .rejected(let sequence, let className, let primaryKey, let reason):
            logger.warning("The sync service rejected a write", metadata: ["class": "\(className)", "reason": "\(reason)"])
            try db.recordSyncRejection(sequence: sequence, className: className, primaryKey: primaryKey, reason: reason)
            report(.writeRejected(class: className, primaryKey: primaryKey, reason: reason))
        case .reset(let reason):
            logger.notice("The sync service reset the client", metadata: ["reason": "\(reason)"])
            try db.resetSyncClient()
            // The outbox was renumbered from 1: waits for an upload now wait for its new end.
            if let file = try db.syncFileState() {
                uploadWaiters = uploadWaiters.map { (file.nextSequence - 1, $0.1) }
            }
            return .reset
        case .error(let code, let message):
            if code == SyncErrorCode.malformedMessage {
                // What the client sent is its outbox's entries as stored: a damaged one would be
                // sent again at every reconnection. Reading them all finds it (`corruptFile`).
                _ = try db.outboxOperations(after: 0)
            }
            throw ObjDBError(.sync, "The sync service reported \(code): \(message)", key: code)
        }
        return .goOn
    }

    /// Records the service's acknowledgement and wakes the waiters it satisfies.
    private func acknowledge(_ through: UInt64, _ db: Database) throws {
        if through > 0 { try db.acknowledgeUploads(through: through) }
        let ready = uploadWaiters.filter { $0.0 <= through }
        uploadWaiters.removeAll { $0.0 <= through }
        for (_, waiter) in ready { waiter.resume() }
    }

    /// Sends the outbox's next batches, up to ``batchesInFlight`` not yet acknowledged: the
    /// service applies them in order, and their transfer and coding overlap its work.
    ///
    /// One call sends at a time (a second one, made while the first waits for the socket, only
    /// asks it to look again): batches must reach the service in sequence order, since it skips
    /// operations at or below the last one it applied.
    func uploadPending() async throws {
        guard !upload.isSending else {
            upload.isRequested = true
            return
        }
        upload.isSending = true
        defer { upload.isSending = false }
        repeat {
            upload.isRequested = false
            guard let connection, state == .connected, let db = database else { return }
            db.refresh()
            guard let file = try db.syncFileState() else { return }
            let window = UInt64(Self.batchesInFlight * Self.operationsPerUpload)
            while sentThrough - min(sentThrough, file.acknowledged) < window, self.connection === connection {
                // Within a message's size, with room for the frame's own bytes.
                let batch = try db.outboxEntries(after: sentThrough, limit: Self.operationsPerUpload, maxBytes: SyncLimits.maxMessageBytes - 64)
                guard let last = batch.last else { break }
                sentThrough = last.sequence
                try await connection.sendUpload(batch)
            }
        } while upload.isRequested
    }

    /// The most upload batches sent and not yet acknowledged.
    static let batchesInFlight = 4
    /// The most operations in one upload batch: a quarter of what the service takes, so that
    /// batches in flight overlap its work with their reading and sending.
    static let operationsPerUpload = SyncLimits.maxOperationsPerUpload / 4

    /// Wakes the uploader at every commit of the file, by any instance or process.
    private func watchCommits(_ db: Database) {
        guard commitToken == nil else { return }
        commitToken = db.observe { [weak self] _, _ in
            guard let self else { return }
            Task { try? await self.uploadPending() }
        }
    }

    /// Whether the service refused the client for a reason a retry does not fix: its token
    /// (the upgrade refused), its schema, its client id.
    static func isPermanent(_ error: any Error) -> Bool {
        if let error = error as? WebSocketClientError, error == .webSocketUpgradeFailed { return true }
        // A damaged outbox entry is sent, and refused, again at every try.
        if let error = error as? ObjDBError, error.code == .corruptFile { return true }
        guard let error = error as? ObjDBError, error.code == .sync, let code = error.key else { return false }
        // An operation larger than a message can never be sent; a query the service cannot
        // evaluate is sent again at every try until the subscriptions change.
        return [
            SyncErrorCode.schemaMismatch, SyncErrorCode.clientIDInUse, SyncErrorCode.unsupportedProtocolVersion, SyncErrorCode.messageTooLarge,
            SyncErrorCode.invalidQuery,
        ].contains(code)
    }

    /// `error` as an ``ObjDBError``.
    static func objdbError(_ error: any Error) -> ObjDBError {
        if let error = error as? ObjDBError { return error }
        return ObjDBError(.sync, "\(error)")
    }
}

/// The service closed the connection at its token's expiry (close code 4001).
struct TokenExpired: Error {}

/// What the inbound loop learned, read after the connection closed.
private final class ConnectionOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var reset = false
    var resetRequested: Bool {
        get { lock.withLock { reset } }
        set { lock.withLock { reset = newValue } }
    }
}
