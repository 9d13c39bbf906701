import Foundation
import HummingbirdWSClient
import NIOCore
import ObjDB
import ObjDBSyncProtocol

/// One WebSocket connection of a ``SyncClient``: the writer of its outbound messages.
final class SyncConnection: Sendable {
    private let outbound: WebSocketOutboundWriter

    init(_ outbound: WebSocketOutboundWriter) {
        self.outbound = outbound
    }

    /// Sends a message.
    func send(_ message: ClientMessage) async throws {
        switch try SyncMessageCoding.frame(message) {
        case .text(let text): try await outbound.writeTextMessage(text)
        case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
        }
    }

    /// Sends an upload of the file's outbox entries as stored.
    /// An operation too large for a message (the batch is only that one, see
    /// `outboxEntries(after:limit:maxBytes:)`) fails for good with `messageTooLarge`.
    func sendUpload(_ entries: [SyncOutboxEntry]) async throws {
        let frame = UploadFrame.encode(entries: entries)
        guard frame.count <= SyncLimits.maxMessageBytes else {
            throw ObjDBError(
                .sync,
                "Outbox operation \(entries.first?.sequence ?? 0) takes \(frame.count) bytes, more than a sync message holds (\(SyncLimits.maxMessageBytes))",
                key: SyncErrorCode.messageTooLarge)
        }
        try await outbound.write(.binary(ByteBuffer(bytes: frame)))
    }

    /// Closes the connection normally; errors (a connection already gone) are ignored.
    func close() async {
        try? await outbound.close(.normalClosure, reason: nil)
    }
}
