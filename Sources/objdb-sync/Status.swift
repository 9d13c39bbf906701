import ArgumentParser
import Foundation
import Logging
import ObjDBSyncServer
import PostgresNIO

/// `objdb-sync status`: classes with row counts, clients with their last sequence, feed size.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print synced classes with row counts, clients and the change feed's size.")

    @Option(help: "PostgreSQL URL.")
    var postgres: String

    func run() async throws {
        let report = try await SyncServer.status(postgresURL: postgres)
        print("Classes:")
        for c in report.classes { print("  \(c.name): \(c.rows.map(String.init) ?? "no table") rows") }
        print("Clients:")
        for c in report.clients { print("  \(c.clientID) user \(c.user): last sequence \(c.lastSequence)") }
        print("Change feed: \(report.feedRows) rows")
    }
}
