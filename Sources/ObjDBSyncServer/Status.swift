import Foundation
import Logging
import ObjDBSyncProtocol
import PostgresNIO

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
            /// When its connection began, if it is connected (as recorded: an instance killed
            /// without stopping leaves its connections marked until they reconnect).
            public var connectedSince: Date?
            /// When it last connected or left.
            public var lastSeen: Date?
            /// For a client that left: the changes in the feed committed after the checkpoint
            /// it holds (an object inserted, updated or deleted, once per change), which it
            /// downloads when it comes back (`nil` while connected, or before its first
            /// checkpoint).
            public var feedRowsBehind: Int64?
        }

        /// The synced classes (embedded ones excluded).
        public var classes: [SyncedClass]
        /// The clients.
        public var clients: [Client]
        /// The changes in the change feed: objects inserted, updated or deleted, once per change
        /// (the objects one statement inserts share a feed row).
        public var feedRows: Int64
    }

    /// Reads the sync tables of a database.
    public static func status(postgresURL: String, logger: Logger = Logger(label: "objdb.sync.status")) async throws -> StatusReport {
        let connection = try await PostgresConnection.connect(
            configuration: try connectionConfiguration(url: postgresURL), id: 1, logger: logger)
        do {
            let report = try await status(on: connection, logger: logger)
            try await connection.close()
            return report
        } catch {
            try? await connection.close()
            throw error
        }
    }

    static func status(on client: PostgresConnection, logger: Logger) async throws -> StatusReport {
        var report = StatusReport(classes: [], clients: [], feedRows: 0)
        // Read each result to its end before the next query: one connection runs one at a time.
        var schemaTexts: [String] = []
        for try await text in try await client.query("SELECT schema::text FROM objdb_schema ORDER BY class", logger: logger).decode(String.self) {
            schemaTexts.append(text)
        }
        for text in schemaTexts {
            let schema = try SyncMessageCoding.decodeSchema(text)
            if schema.isEmbedded { continue }
            var rows: Int64?
            var exists = false
            for try await found in try await client.query("SELECT to_regclass(quote_ident(\(schema.name))) IS NOT NULL", logger: logger)
                .decode(Bool.self)
            {
                exists = found
            }
            if exists {
                for try await n in try await client.query(
                    PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(quoted(schema.name))"), logger: logger
                ).decode(Int64.self) {
                    rows = n
                }
            }
            report.classes.append(.init(name: schema.name, rows: rows))
        }
        let clients = try await client.query(
            """
            SELECT c.client_id, c.user_id, c.last_sequence, c.connected_at, c.seen_at,
                CASE WHEN c.connected_at IS NULL AND c.checkpoint IS NOT NULL THEN (
                    SELECT coalesce(sum(coalesce(cardinality(f.pks), 1)), 0)::int8 FROM objdb_changes f
                    WHERE f.xid >= pg_snapshot_xmin(c.checkpoint::pg_snapshot) AND NOT pg_visible_in_snapshot(f.xid, c.checkpoint::pg_snapshot))
                END
            FROM objdb_clients c ORDER BY c.user_id, c.client_id
            """, logger: logger)
        for try await (id, user, last, connected, seen, behind) in clients.decode((UUID, String, Int64, Date?, Date?, Int64?).self) {
            report.clients.append(
                .init(clientID: id, user: user, lastSequence: last, connectedSince: connected, lastSeen: seen, feedRowsBehind: behind))
        }
        for try await n in try await client.query("SELECT coalesce(sum(coalesce(cardinality(pks), 1)), 0)::int8 FROM objdb_changes", logger: logger).decode(Int64.self) {
            report.feedRows = n
        }
        return report
    }
}
