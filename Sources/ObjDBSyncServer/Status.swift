import Foundation
import Logging
import ObjDBSyncProtocol
import PostgresNIO
import ServiceLifecycle

extension SyncServer {
    /// What `objdb-sync status` prints.
    public struct StatusReport: Sendable {
        /// A synced class.
        public struct SyncedClass: Sendable {
            /// The class (table) name.
            public var name: String
            /// Its row count (`nil`: the table is missing).
            public var rows: Int64?
        }

        /// A client (one file on one device).
        public struct Client: Sendable {
            /// The client id.
            public var clientID: UUID
            /// The user the id belongs to.
            public var user: String
            /// The last sequence the server applied.
            public var lastSequence: Int64
        }

        /// The synced classes (embedded ones excluded).
        public var classes: [SyncedClass]
        /// The clients.
        public var clients: [Client]
        /// The rows of the change feed.
        public var feedRows: Int64
    }

    /// Reads the sync tables of a database.
    public static func status(postgresURL: String, logger: Logger = Logger(label: "objdb.sync.status")) async throws -> StatusReport {
        var configuration = try postgresConfiguration(url: postgresURL)
        configuration.options.maximumConnections = 1
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: StatusReport?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            var report = StatusReport(classes: [], clients: [], feedRows: 0)
            for try await text in try await client.query("SELECT schema::text FROM objdb_schema ORDER BY class", logger: logger).decode(String.self) {
                let schema = try SyncMessageCoding.decodeSchema(text)
                if schema.isEmbedded { continue }
                var rows: Int64?
                let exists = try await client.query("SELECT to_regclass(quote_ident(\(schema.name))) IS NOT NULL", logger: logger)
                for try await found in exists.decode(Bool.self) where found {
                    for try await n in try await client.query(
                        PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(quoted(schema.name))"), logger: logger
                    ).decode(Int64.self) {
                        rows = n
                    }
                }
                report.classes.append(.init(name: schema.name, rows: rows))
            }
            let clients = try await client.query(
                "SELECT client_id, user_id, last_sequence FROM objdb_clients ORDER BY user_id, client_id", logger: logger)
            for try await (id, user, last) in clients.decode((UUID, String, Int64).self) {
                report.clients.append(.init(clientID: id, user: user, lastSequence: last))
            }
            for try await n in try await client.query("SELECT count(*) FROM objdb_changes", logger: logger).decode(Int64.self) {
                report.feedRows = n
            }
            return report
        }
    }
}
