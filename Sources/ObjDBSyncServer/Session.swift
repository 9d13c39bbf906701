import Foundation
import HummingbirdWebSocket
import Logging
import NIOWebSocket
import ObjDB
import ObjDBSyncProtocol
import PostgresNIO

/// One WebSocket connection: a single loop handles its events in order (messages, wake-ups,
/// the token's expiry, shutdown), so that everything it sends is in order and each download's
/// parts are contiguous. Writes wait for the socket, and wake-ups coalesce, so at most one
/// message is buffered per connection; a slow client catches up from its checkpoint.
final class Session: Sendable {
    enum Event: Sendable {
        /// A message arrived: the first of ``inbox`` (or none, when an upload before it took it
        /// into its transaction). Messages are decoded as they arrive, so decoding the next one
        /// overlaps handling this one.
        case message
        /// Read what changed, alone (the fan-out's fallback, and a trimmed checkpoint's reset).
        case wake
        /// A fan-out round left a part in ``mailbox``.
        case shared
        case expired
        case shutdown
        case closed
    }

    let server: SyncServer
    let user: String
    /// The rules' variables for the connection's token (`user`, `claims.<name>`).
    let variables: [String: SyncValue]
    let expiration: Date
    let outbound: WebSocketOutboundWriter
    let logger: Logger
    let events: AsyncStream<Event>
    let continuation: AsyncStream<Event>.Continuation
    /// Whether a wake-up is already queued (they coalesce).
    let wakePending = Locked(false)
    /// Where the session stands for the fan-out (`nil` until its first checkpoint).
    let position = Locked<FanoutPosition?>(nil)
    /// The part a fan-out round computed for this session, not yet taken: a slow session holds
    /// one at most, and rounds leave it out until it takes it (``FeedFanout``).
    let mailbox = Locked(Mailbox())
    /// Messages read but not yet handled: past ``maxQueuedMessages`` the reader stops reading,
    /// so that a client sending faster than PostgreSQL applies is slowed down by TCP.
    let queuedMessages = Locked(0)
    static let maxQueuedMessages = 4
    /// The messages read and decoded (or the errors decoding them gave), in order, not yet
    /// handled: each ``Event/message`` takes the first.
    let inbox = Locked<[Result<ClientMessage, ObjDBError>]>([])
    /// Whether the loop has returned (the reader then stops waiting for it).
    let loopEnded = Locked(false)

    init(server: SyncServer, user: String, variables: [String: SyncValue], expiration: Date, outbound: WebSocketOutboundWriter, logger: Logger) {
        self.server = server
        self.user = user
        self.variables = variables
        self.expiration = expiration
        self.outbound = outbound
        var logger = logger
        logger[metadataKey: "user"] = "\(user)"
        self.logger = logger
        (events, continuation) = AsyncStream<Event>.makeStream()
    }

    /// What fan-out rounds left a session, and whether it is busy with an earlier part.
    struct Mailbox {
        /// The part a round computed, not taken yet.
        var part: SharedPart?
        /// Whether the session is sending a part it took (its position moves once it is sent).
        var isSending = false
        /// Whether a round left the session out while it was sending (cleared once it has sent).
        var wasLeftOut = false
    }

    /// Leaves a fan-out round's part for the loop (replacing one not taken yet).
    func offer(_ part: SharedPart) {
        let wasEmpty = mailbox.withLock { box in
            defer { box.part = part }
            return box.part == nil
        }
        if wasEmpty { continuation.yield(.shared) }
    }

    /// Whether a fan-out round takes the session in: not while it sends a part or has one to
    /// take (its checkpoint would be one it is leaving). A stalled client so costs the rounds
    /// nothing, however far the feed moves on; once it has sent its part, it asks for a round
    /// from where it stands.
    func joinsRound() -> Bool {
        mailbox.withLock { box in
            guard box.part == nil, !box.isSending else {
                box.wasLeftOut = true
                return false
            }
            return true
        }
    }

    func post(_ event: Event) {
        if case .wake = event {
            let already = wakePending.withLock { pending in
                defer { pending = true }
                return pending
            }
            if already { return }
        }
        continuation.yield(event)
    }

    /// Runs until the client closes or the session ends.
    func run(inbound: WebSocketInboundStream) async {
        guard await server.hub.add(self) else {
            try? await outbound.close(.goingAway, reason: "shutting down")
            return
        }
        let loop = Task { await self.loop() }
        let expiry = Task {
            let seconds = expiration.timeIntervalSinceNow
            if seconds > 0 { try? await Task.sleep(for: .milliseconds(Int64(min(seconds, 1e9) * 1000))) }
            if !Task.isCancelled { self.post(.expired) }
        }
        do {
            var iterator = inbound.messages(maxSize: SyncLimits.maxMessageBytes + (1 << 20)).makeAsyncIterator()
            while let message = try await iterator.next() {
                queuedMessages.withLock { $0 += 1 }
                let decoded: Result<ClientMessage, ObjDBError>
                switch message {
                case .text(let text): decoded = Self.decode(.text(text))
                case .binary(let buffer): decoded = Self.decode(.binary(Array(buffer.readableBytesView)))
                }
                inbox.withLock { $0.append(decoded) }
                continuation.yield(.message)
                // Decoding the next message can take milliseconds of a thread of the shared
                // pool, which has one per core: the loop (which applies this one) runs first.
                await Task.yield()
                while queuedMessages.withLock({ $0 }) >= Self.maxQueuedMessages && !loopEnded.withLock({ $0 }) {
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
        } catch {
            logger.debug("Sync connection read failed", metadata: ["error": "\(error)"])
        }
        continuation.yield(.closed)
        continuation.finish()
        await loop.value
        expiry.cancel()
        await server.hub.remove(self)
    }

    // MARK: State of the loop

    struct State {
        var hello: ClientMessage.Hello?
        var checkpoint: String?
        /// What the client downloads and may write, set by the hello.
        var view: ClientView?
        /// Whether the client id was registered as this user's, connected now.
        var isRegistered = false
        /// The last checkpoint this service sent (``checkpoint`` may still be the hello's,
        /// which the client wrote and the status must not trust).
        var sentCheckpoint: String?
    }

    func loop() async {
        defer { loopEnded.withLock { $0 = true } }
        var state = State()
        await handleEvents(&state)
        // For `objdb-sync status`: the checkpoint the client left with, and when.
        if let hello = state.hello, state.isRegistered {
            do {
                try await server.store.recordDisconnection(clientID: hello.clientID, checkpoint: state.sentCheckpoint)
            } catch {
                logger.warning("Sync disconnection not recorded", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Handles the connection's events until it is to close.
    func handleEvents(_ state: inout State) async {
        for await event in events {
            do {
                switch event {
                case .closed:
                    return
                case .shutdown:
                    try? await outbound.close(.goingAway, reason: "server shutting down")
                    return
                case .expired:
                    logger.info("Sync connection closed: token expired")
                    try? await outbound.close(.unknown(SyncServer.CloseCode.tokenExpired), reason: "token expired")
                    return
                case .wake:
                    wakePending.withLock { $0 = false }
                    guard let hello = state.hello else { continue }
                    try await sendCheckpoint(&state, hello: hello)
                case .shared:
                    let taken = mailbox.withLock { box in
                        defer { box.part = nil }
                        box.isSending = box.part != nil
                        return box.part
                    }
                    guard let part = taken else { continue }
                    try await apply(part, &state)
                    // Rounds that left it out meanwhile: one more, from where it stands now.
                    let wasLeftOut = mailbox.withLock { box in
                        defer { (box.isSending, box.wasLeftOut) = (false, false) }
                        return box.wasLeftOut
                    }
                    if wasLeftOut { await server.fanout.wake() }
                case .message:
                    defer { queuedMessages.withLock { $0 -= 1 } }
                    guard let decoded = inbox.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
                    if try await handle(decoded, &state) == false { return }
                }
            } catch let error as ObjDBError {
                logger.info("Sync connection failed", metadata: ["error": "\(error)"])
                try? await fail(error.key ?? SyncErrorCode.internalError, error.message)
                return
            } catch {
                if let error = error as? PSQLError, SyncStore.isTableChange(error) { server.store.forgetSchemaChecks() }
                // The full description (a PostgreSQL error's SQL state and message) for the
                // operator's log; the client gets the short one.
                logger.error("Sync connection failed", metadata: ["error": "\(String(reflecting: error))"])
                try? await fail(SyncErrorCode.internalError, "The server failed: \(error)")
                return
            }
        }
    }

    /// Sends a fan-out part, if it follows the checkpoint the session stands at (a part of an
    /// older round is dropped: a newer one follows). A part with nothing for the client moves
    /// it to the new checkpoint without a message.
    func apply(_ part: SharedPart, _ state: inout State) async throws {
        guard let hello = state.hello, let view = state.view, state.checkpoint == part.base else {
            // A round computed it from a checkpoint the session has left: ask for one from
            // where it stands now, rather than wait for the next notification.
            await server.fanout.wake()
            return
        }
        if part.checkpoint.changeCount > 0 {
            try await Self.sendDownload(part.checkpoint) { try await write($0) }
            state.sentCheckpoint = part.checkpoint.snapshot
        }
        state.checkpoint = part.checkpoint.snapshot
        position.withLock { $0 = FanoutPosition(checkpoint: part.checkpoint.snapshot, view: view, clientID: hello.clientID) }
    }

    /// Sends an error and closes.
    func fail(_ code: String, _ message: String) async throws {
        try await send(.error(code: code, message: message))
        try await outbound.close(.unknown(SyncServer.CloseCode.error), reason: code)
    }

    func send(_ message: ServerMessage) async throws {
        try await write(try SyncMessageCoding.frame(message))
    }

    /// Writes a WebSocket message.
    func write(_ frame: SyncFrame) async throws {
        switch frame {
        case .text(let text): try await outbound.write(.text(text))
        case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
        }
    }

    /// A client message read from its WebSocket message.
    static func decode(_ frame: SyncFrame) -> Result<ClientMessage, ObjDBError> {
        do {
            return .success(try SyncMessageCoding.decodeClient(frame))
        } catch let error as ObjDBError {
            return .failure(error)
        } catch {
            return .failure(ObjDBError(.invalidValue, "\(error)", key: SyncErrorCode.malformedMessage))
        }
    }

    /// Handles one message; false when the connection is to close.
    func handle(_ decoded: Result<ClientMessage, ObjDBError>, _ state: inout State) async throws -> Bool {
        let message: ClientMessage
        switch decoded {
        case .success(let m): message = m
        case .failure(let error):
            logger.info("Malformed sync message", metadata: ["error": "\(error.message)"])
            try await fail(error.key ?? SyncErrorCode.malformedMessage, error.message)
            return false
        }
        switch message {
        case .hello(let hello):
            guard state.hello == nil else {
                try await fail(SyncErrorCode.protocolViolation, "A connection sends one hello")
                return false
            }
            return try await handleHello(hello, &state)
        case .upload(let ops):
            guard let hello = state.hello, let view = state.view else {
                try await fail(SyncErrorCode.protocolViolation, "An upload came before the hello")
                return false
            }
            if let problem = Self.problem(with: ops) {
                try await fail(SyncErrorCode.protocolViolation, problem)
                return false
            }
            guard !ops.isEmpty else { return true }
            let result = try await server.store.apply(ops, clientID: hello.clientID, user: user, view: view) { self.takeQueuedUpload(after: $0, atMost: $1) }
            await server.configuration.afterApplyingUpload?(hello.clientID, result.through)
            for (op, reason) in result.rejected {
                logger.info("Sync write rejected", metadata: ["class": "\(op.className)", "sequence": "\(op.sequence)", "reason": "\(reason)"])
                try await send(.rejected(sequence: op.sequence, className: op.className, primaryKey: op.primaryKey, reason: reason))
            }
            if !result.rejected.isEmpty {
                // The rejected objects as the service holds them, with the rejected operations
                // counted as included: the client's file returns to the service's state. Sent
                // before the acknowledgement, so that a client waiting for its upload has
                // undone what was rejected when the wait returns.
                // What the client may read of them: an object it may not read is removed.
                let states = try await server.store.currentStates(of: result.rejected.map { ($0.0.className, $0.0.primaryKey) }, view: view)
                try await send(
                    .download(
                        .init(isReset: false, changes: states, isFinal: true, checkpoint: state.checkpoint, includesSequence: result.through)))
            }
            try await send(.ack(through: result.through))
            return true
        case .requestDownload(let id):
            guard let hello = state.hello else {
                try await fail(SyncErrorCode.protocolViolation, "A download was requested before the hello")
                return false
            }
            // Read now, so that the answer holds everything committed before the request.
            try await sendCheckpoint(&state, hello: hello, force: true)
            try await send(.downloadDone(id: id))
            return true
        }
    }

    /// What makes an upload's operations unacceptable, if anything: too many, sequences that do
    /// not ascend by one, or that start at 0.
    static func problem(with ops: [SyncOperation]) -> String? {
        guard ops.count <= SyncLimits.maxOperationsPerUpload else {
            return "An upload holds at most \(SyncLimits.maxOperationsPerUpload) operations"
        }
        for (a, b) in zip(ops, ops.dropFirst()) where b.sequence != a.sequence &+ 1 {
            return "Upload sequences must ascend by one: \(a.sequence) is followed by \(b.sequence)"
        }
        if ops.first?.sequence == 0 { return "Sequences start at 1" }
        return nil
    }

    /// The operations of the upload queued first in ``inbox``, taken out of it, when it
    /// continues the sequences right after `sequence`, holds at most `atMost` operations and
    /// is acceptable: the store applies them in the transaction of the upload before (its
    /// ``Event/message`` then finds nothing). Anything else stays for the loop, which answers
    /// it in order.
    func takeQueuedUpload(after sequence: UInt64, atMost: Int) -> [SyncOperation]? {
        inbox.withLock { queue in
            guard case .success(.upload(let ops))? = queue.first, ops.first?.sequence == sequence &+ 1, ops.count <= atMost,
                Self.problem(with: ops) == nil
            else {
                return nil
            }
            queue.removeFirst()
            return ops
        }
    }

    func handleHello(_ hello: ClientMessage.Hello, _ state: inout State) async throws -> Bool {
        var view: ClientView
        do {
            view = try ClientView(hello: hello, rules: server.configuration.rules, variables: variables)
        } catch let error as ObjDBError {
            try await fail(error.key ?? SyncErrorCode.invalidQuery, error.message)
            return false
        }
        try await server.store.ensureSchema(hello.schema)
        var acknowledged: UInt64 = 0
        // Each query against the class's columns, before anything is sent: an unknown property
        // or a value of the wrong type fails the connection with a message naming it.
        do {
            view = try await server.store.check(view)
        } catch let error as ObjDBError where error.code == .invalidQuery {
            try await fail(SyncErrorCode.invalidQuery, error.message)
            return false
        }
        switch try await server.store.register(clientID: hello.clientID, user: user) {
        case .otherUser:
            try await fail(SyncErrorCode.clientIDInUse, "Client id \(hello.clientID) belongs to another user")
            return false
        case .known(let last):
            if hello.lastSequence < last {
                try await send(
                    .reset(
                        reason:
                            "The server applied sequence \(last) of this client, the file assigned only \(hello.lastSequence): it was copied or restored"
                    ))
                try? await outbound.close(.normalClosure, reason: "reset")
                return false
            }
            state.isRegistered = true
            acknowledged = last
            try await send(.welcome(acknowledged: last))
        }
        state.hello = hello
        state.view = view
        state.checkpoint = hello.checkpoint
        // Writes rejected while the client was not there to be sent their objects' states:
        // sent before anything newer, under the checkpoint the client holds, so that a client
        // never stores a later checkpoint without them. (A bootstrap replaces every object.)
        if let checkpoint = hello.checkpoint {
            let pending = try await server.store.pendingRejections(clientID: hello.clientID, checkpoint: checkpoint)
            if !pending.isEmpty {
                let states = try await server.store.currentStates(of: pending, view: view)
                try await send(.download(.init(isReset: false, changes: states, isFinal: true, checkpoint: checkpoint, includesSequence: acknowledged)))
            }
        }
        try await sendCheckpoint(&state, hello: hello, force: true)
        return true
    }

    /// Reads and sends the delta since the last checkpoint sent (or the bootstrap), in parts.
    /// `force`: send even an empty delta (the answer to a hello always ends in a final part).
    func sendCheckpoint(_ state: inout State, hello: ClientMessage.Hello, force: Bool = false) async throws {
        // While it reads and sends alone, it stands at a checkpoint it is leaving: rounds leave
        // it out, and one runs for it once it has sent.
        mailbox.withLock { $0.isSending = true }
        let moved: Bool
        do {
            moved = try await readAndSendCheckpoint(&state, hello: hello, force: force)
        } catch {
            mailbox.withLock { $0.isSending = false }
            throw error
        }
        let wasLeftOut = mailbox.withLock { box in
            defer { (box.isSending, box.wasLeftOut) = (false, false) }
            return box.wasLeftOut
        }
        if moved || wasLeftOut { await server.fanout.wake() }
    }

    /// ``sendCheckpoint(_:hello:force:)``'s read and send; whether the session moved to a new
    /// checkpoint.
    private func readAndSendCheckpoint(_ state: inout State, hello: ClientMessage.Hello, force: Bool) async throws -> Bool {
        guard let view = state.view else { return false }
        let checkpoint: SyncStore.Checkpoint
        do {
            checkpoint = try await server.store.read(since: state.checkpoint, view: view, clientID: hello.clientID)
        } catch let error as PSQLError where state.checkpoint != nil && error.serverInfo?[.sqlState] == "22P02" {
            logger.info("Unreadable checkpoint: bootstrapping")
            state.checkpoint = nil
            checkpoint = try await server.store.read(since: nil, view: view, clientID: hello.clientID)
        }
        // Nothing new for this client: stay quiet, and keep the checkpoint it holds.
        if !force && !checkpoint.isReset && checkpoint.changeCount == 0 { return false }
        try await Self.sendDownload(checkpoint) { try await write($0) }
        state.checkpoint = checkpoint.snapshot
        state.sentCheckpoint = checkpoint.snapshot
        // From now on the fan-out reads for it; a round that missed it while it read alone
        // runs again.
        position.withLock { $0 = FanoutPosition(checkpoint: checkpoint.snapshot, view: view, clientID: hello.clientID) }
        return true
    }

    /// Sends a checkpoint as download messages, in order: parts of at most
    /// ``SyncLimits/maxChangesPerMessage`` changes, a part halved until it encodes under the
    /// message size limit (always at least one part; the last one final). Each part is encoded
    /// once, sized by that encoding, and sent before the next is encoded.
    static func sendDownload(_ checkpoint: SyncStore.Checkpoint, _ send: (SyncFrame) async throws -> Void) async throws {
        let limit = SyncLimits.maxChangesPerMessage
        let total = checkpoint.changeCount
        // Parts still to encode, in order, as ranges of the checkpoint's rows counted across its
        // batches; the first is at the end.
        var pending: [Range<Int>] = stride(from: 0, to: total, by: limit).map { $0..<min(total, $0 + limit) }.reversed()
        if pending.isEmpty { pending = [0..<0] }
        while let range = pending.popLast() {
            let isFinal = pending.isEmpty
            let part = ServerMessage.Download(
                isReset: checkpoint.isReset, batches: checkpoint.batches(in: range), isFinal: isFinal,
                checkpoint: isFinal ? checkpoint.snapshot : nil, includesSequence: isFinal ? checkpoint.includesSequence : nil)
            let frame: SyncFrame
            do {
                frame = try SyncMessageCoding.frame(.download(part))
            } catch let error as ObjDBError where error.key == SyncErrorCode.messageTooLarge && range.count > 1 {
                let middle = range.lowerBound + range.count / 2
                pending.append(middle..<range.upperBound)
                pending.append(range.lowerBound..<middle)
                continue
            }
            try await send(frame)
        }
    }
}
