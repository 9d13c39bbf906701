import Foundation
import Logging
import ObjDB
import ObjDBSyncProtocol
import PostgresNIO

/// The sync service's PostgreSQL side: system tables, tables of synced classes, the change
/// feed, applying uploads and reading checkpoints. Holds no state that PostgreSQL cannot rebuild
/// (the class mappings are a cache of `objdb_schema`).
final class SyncStore: Sendable {
    let client: PostgresClient
    let logger: Logger
    let createsTables: Bool
    /// The class mappings: a cache of `objdb_schema` (``reloadMappings()``).
    let mappings = Locked<[String: ClassMapping]>([:])
    /// Class schemas ``ensureSchema(_:)`` checked against PostgreSQL, and when: a hello whose
    /// classes were all checked within ``schemaCheckLifetime`` skips the check.
    let checkedSchemas = Locked<[SyncClassSchema: ContinuousClock.Instant]>([:])
    /// How long a schema check holds for this instance.
    static let schemaCheckLifetime = Duration.seconds(60)
    /// The SQL that lowercases a text expression (`%@`) for `[c]` comparisons: Unicode's
    /// lowercase through ICU where PostgreSQL has it (as ObjDB folds case), else `lower()` in
    /// the database's own locale (only ASCII in the C locale). Set by ``prepare()``.
    let lowercase = Locked("lower(%@)")

    init(client: PostgresClient, logger: Logger, createsTables: Bool) {
        self.client = client
        self.logger = logger
        self.createsTables = createsTables
    }

    static let notifyChannel = "objdb_sync"

    /// A transaction on a pooled connection; the closure's own error is rethrown as is.
    func transaction<R: Sendable>(_ body: (PostgresConnection) async throws -> R) async throws -> R {
        do {
            return try await client.withTransaction(logger: logger) { c in try await body(c) }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.beginError ?? error.commitError ?? error
        }
    }

    /// A read-only transaction at repeatable read (one snapshot for all its queries) on a pooled
    /// connection, begun in one round trip; the closure's own error is rethrown as is, after the
    /// transaction is rolled back.
    func snapshotTransaction<R: Sendable>(_ body: (PostgresConnection) async throws -> R) async throws -> R {
        try await client.withConnection { c in
            try await c.query("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            let result: R
            do {
                result = try await body(c)
            } catch {
                // try?: the error that matters is the closure's; a connection that cannot roll
                // back is broken, and the pool closes it.
                _ = try? await c.query("ROLLBACK", logger: logger)
                throw error
            }
            try await c.query("COMMIT", logger: logger)
            return result
        }
    }

    /// The oldest PostgreSQL the service runs on (`server_version_num`): the tables' triggers
    /// are made with `CREATE OR REPLACE TRIGGER`, new in 14.
    static let oldestServerVersion: Int64 = 140000

    /// Throws ``ObjDBError/Code/sync`` naming the version when `version` (a `server_version_num`)
    /// is older than ``oldestServerVersion``.
    static func checkServerVersion(_ version: Int64) throws {
        guard version < oldestServerVersion else { return }
        throw ObjDBError(
            .sync, "PostgreSQL \(version / 10000).\(version % 10000) is older than 14, which the sync service needs (CREATE OR REPLACE TRIGGER)")
    }

    /// Creates the system tables and trigger functions (idempotent, under an advisory lock).
    func prepare() async throws {
        try await transaction { c in
            for try await version in try await c.query("SELECT current_setting('server_version_num')::int8", logger: logger).decode(Int64.self) {
                try Self.checkServerVersion(version)
            }
            for try await _ in try await c.query("SELECT pg_advisory_xact_lock(7349001)", logger: logger) {}
            for sql in Self.systemSQL { try await c.query(PostgresQuery(unsafeSQL: sql), logger: logger) }
            let icu = try await c.query("SELECT EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu')", logger: logger)
            for try await hasICU in icu.decode(Bool.self) where hasICU {
                lowercase.withLock { $0 = "lower((%@) COLLATE \"und-x-icu\")" }
            }
        }
    }

    static let systemSQL = [
        "CREATE TABLE IF NOT EXISTS objdb_schema (class text PRIMARY KEY, schema jsonb NOT NULL)",
        "CREATE TABLE IF NOT EXISTS objdb_clients (client_id uuid PRIMARY KEY, user_id text NOT NULL, last_sequence bigint NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now())",
        // For `objdb-sync status`: when a client connected (null once it left), when it was
        // last seen, and the checkpoint it left with.
        "ALTER TABLE objdb_clients ADD COLUMN IF NOT EXISTS connected_at timestamptz NULL",
        "ALTER TABLE objdb_clients ADD COLUMN IF NOT EXISTS seen_at timestamptz NULL",
        "ALTER TABLE objdb_clients ADD COLUMN IF NOT EXISTS checkpoint text NULL",
        // Writes rejected, whose objects' states a client must apply to undo them: kept until
        // the client reports a checkpoint read after the rejection (see `pendingRejections`).
        """
        CREATE TABLE IF NOT EXISTS objdb_rejections (client_id uuid NOT NULL, xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
            class text NOT NULL, pk text NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS objdb_rejections_client ON objdb_rejections (client_id)",
        // The change feed: a row per object updated or deleted (`pk`, with its old row), and a
        // row per statement's inserted objects (`pks`, their keys in one array).
        """
        CREATE TABLE IF NOT EXISTS objdb_changes (xid xid8 NOT NULL DEFAULT pg_current_xact_id(), class text NOT NULL,
            pk text NULL, op char(1) NOT NULL, old jsonb NULL, at timestamptz NOT NULL DEFAULT now(), pks text[] NULL)
        """,
        // A feed made by an earlier version: a row per inserted object, `pk` required.
        """
        DO $$ BEGIN
            IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'objdb_changes'::regclass AND attname = 'pks' AND NOT attisdropped) THEN
                ALTER TABLE objdb_changes ADD COLUMN pks text[] NULL, ALTER COLUMN pk DROP NOT NULL;
            END IF;
        END $$
        """,
        "CREATE INDEX IF NOT EXISTS objdb_changes_xid ON objdb_changes (xid)",
        // The keys of an insert are one array, compressed when stored: LZ4 where PostgreSQL has
        // it (14 and later, built with it) takes a third of the time of the default (pglz). The
        // statement is EXECUTEd so that the block also compiles where the syntax is unknown.
        """
        DO $$ BEGIN
            IF current_setting('server_version_num')::int >= 140000 THEN
                IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'objdb_changes'::regclass AND attname = 'pks'
                           AND NOT attisdropped AND attcompression <> 'l') THEN
                    EXECUTE 'ALTER TABLE objdb_changes ALTER COLUMN pks SET COMPRESSION lz4';
                END IF;
            END IF;
        EXCEPTION WHEN feature_not_supported OR invalid_parameter_value OR undefined_column THEN
            NULL;
        END $$
        """,
        // Feed rows up to `before` were trimmed: checkpoints whose xmin is not above it cannot
        // be continued from the feed and bootstrap again.
        "CREATE TABLE IF NOT EXISTS objdb_feed_trim (id int PRIMARY KEY DEFAULT 1 CHECK (id = 1), before xid8 NOT NULL)",
        // The feed is filled by statement-level triggers that read the statement's transition
        // tables: one INSERT … SELECT per statement, not a PL/pgSQL call per row (a row trigger
        // cost 9–11 µs a row, twice the insert itself). `TG_ARGV[0]` names the key column. The
        // objects a statement inserts are one feed row per 10,000 (a row each cost 1.5 µs an
        // object, a third of the insert itself; one array for any number could outgrow
        // PostgreSQL's limits). Up to 10,000, one `array_agg` without the numbering (0.4 ms less
        // per 2,500 rows). A statement that changed no row (an `INSERT … ON CONFLICT DO UPDATE`
        // fires both triggers) returns before any dynamic SQL, which is planned at each call.
        """
        CREATE OR REPLACE FUNCTION objdb_rows_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            total bigint;
        BEGIN
            SELECT count(*) INTO total FROM objdb_new;
            IF total = 0 THEN
                RETURN NULL;
            ELSIF total <= 10000 THEN
                EXECUTE format('INSERT INTO objdb_changes (class, pks, op) SELECT %L, array_agg(n.%I::text), ''I'' FROM objdb_new n',
                    TG_TABLE_NAME, TG_ARGV[0]);
            ELSE
                EXECUTE format('INSERT INTO objdb_changes (class, pks, op) SELECT %L, array_agg(k), ''I''
                    FROM (SELECT n.%I::text AS k, (row_number() OVER () - 1) / 10000 AS part FROM objdb_new n) s GROUP BY part',
                    TG_TABLE_NAME, TG_ARGV[0]);
            END IF;
            RETURN NULL;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION objdb_rows_updated() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM objdb_old) THEN
                RETURN NULL;
            END IF;
            EXECUTE format('INSERT INTO objdb_changes (class, pk, op, old)
                SELECT %1$L, n.%2$I::text, ''U'', to_jsonb(o) FROM objdb_new n LEFT JOIN objdb_old o ON o.%2$I = n.%2$I
                UNION ALL
                SELECT %1$L, o.%2$I::text, ''D'', to_jsonb(o) FROM objdb_old o
                WHERE NOT EXISTS (SELECT 1 FROM objdb_new n WHERE n.%2$I = o.%2$I)', TG_TABLE_NAME, TG_ARGV[0]);
            RETURN NULL;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION objdb_rows_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            EXECUTE format('INSERT INTO objdb_changes (class, pk, op, old) SELECT %L, o.%I::text, ''D'', to_jsonb(o) FROM objdb_old o',
                TG_TABLE_NAME, TG_ARGV[0]);
            RETURN NULL;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION objdb_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            NEW._objdb_version := OLD._objdb_version + 1;
            RETURN NEW;
        END $$
        """,
        // pg_notify with the same channel and payload is sent once per transaction.
        """
        CREATE OR REPLACE FUNCTION objdb_notify() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('objdb_sync', '');
            RETURN NULL;
        END $$
        """,
    ]
}
