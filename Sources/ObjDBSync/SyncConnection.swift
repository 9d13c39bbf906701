import Foundation
import HummingbirdWSClient
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
        try await outbound.writeTextMessage(try SyncMessageCoding.encode(message))
    }

    /// Closes the connection normally; errors (a connection already gone) are ignored.
    func close() async {
        try? await outbound.close(.normalClosure, reason: nil)
    }
}
