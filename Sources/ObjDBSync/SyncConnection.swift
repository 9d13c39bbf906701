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
    func sendUpload(_ entries: [SyncOutboxEntry]) async throws {
        try await outbound.write(.binary(ByteBuffer(bytes: try SyncMessageCoding.checked(UploadFrame.encode(entries: entries)))))
    }

    /// Closes the connection normally; errors (a connection already gone) are ignored.
    func close() async {
        try? await outbound.close(.normalClosure, reason: nil)
    }
}
