import ArgumentParser
import Foundation
import Logging
import ObjDBSyncServer
import PostgresNIO

/// `objdb-sync status`: classes with row counts, clients with their last sequence, feed size.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print synced classes with row counts, clients (connected, or how far behind the feed) and the feed's size.")

    @Option(help: "PostgreSQL URL.")
    var postgres: String

    func run() async throws {
        let report = try await SyncServer.status(postgresURL: postgres)
        print("Classes:")
        for c in report.classes { print("  \(c.name): \(c.rows.map(String.init) ?? "no table") rows") }
        print("Clients:")
        let time = ISO8601DateFormatter()
        for c in report.clients {
            let presence: String
            if let since = c.connectedSince {
                presence = "connected since \(time.string(from: since))"
            } else if let seen = c.lastSeen {
                presence = "left \(time.string(from: seen))" + (c.feedRowsBehind.map { ", \($0) changes behind" } ?? "")
            } else {
                presence = "never connected since the service recorded connections"
            }
            print("  \(c.clientID) user \(c.user): last sequence \(c.lastSequence), \(presence)")
        }
        print("Change feed: \(report.feedRows) changes")
    }
}
