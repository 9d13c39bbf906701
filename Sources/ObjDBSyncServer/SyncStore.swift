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
    private let mappings = Locked<[String: ClassMapping]>([:])

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

    /// Creates the system tables and trigger functions (idempotent, under an advisory lock).
    func prepare() async throws {
        try await transaction { c in
            try await c.query("SELECT pg_advisory_xact_lock(7349001)", logger: logger)
            for sql in Self.systemSQL { try await c.query(PostgresQuery(unsafeSQL: sql), logger: logger) }
        }
    }

    static let systemSQL = [
        "CREATE TABLE IF NOT EXISTS objdb_schema (class text PRIMARY KEY, schema jsonb NOT NULL)",
        "CREATE TABLE IF NOT EXISTS objdb_clients (client_id uuid PRIMARY KEY, user_id text NOT NULL, last_sequence bigint NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now())",
        """
        CREATE TABLE IF NOT EXISTS objdb_changes (xid xid8 NOT NULL DEFAULT pg_current_xact_id(), class text NOT NULL,
            pk text NOT NULL, op char(1) NOT NULL, old jsonb NULL, at timestamptz NOT NULL DEFAULT now())
        """,
        "CREATE INDEX IF NOT EXISTS objdb_changes_xid ON objdb_changes (xid)",
        // Feed rows up to `before` were trimmed: checkpoints whose xmin is not above it cannot
        // be continued from the feed and bootstrap again.
        "CREATE TABLE IF NOT EXISTS objdb_feed_trim (id int PRIMARY KEY DEFAULT 1 CHECK (id = 1), before xid8 NOT NULL)",
        // The feed is filled by statement-level triggers that read the statement's transition
        // tables: one INSERT … SELECT per statement, not a PL/pgSQL call per row (a row trigger
        // cost 9–11 µs a row, twice the insert itself). `TG_ARGV[0]` names the key column.
        """
        CREATE OR REPLACE FUNCTION objdb_rows_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            EXECUTE format('INSERT INTO objdb_changes (class, pk, op) SELECT %L, n.%I::text, ''I'' FROM objdb_new n',
                TG_TABLE_NAME, TG_ARGV[0]);
            RETURN NULL;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION objdb_rows_updated() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
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

    // MARK: Schema

    /// The mapping of a class, from the cache or `objdb_schema`.
    func mapping(_ className: String) async throws -> ClassMapping? {
        if let m = mappings.withLock({ $0[className] }) { return m }
        try await reloadMappings()
        return mappings.withLock { $0[className] }
    }

    func reloadMappings() async throws {
        let rows = try await client.query("SELECT class, schema::text FROM objdb_schema", logger: logger)
        var schemas: [String: SyncClassSchema] = [:]
        for try await (_, text) in rows.decode((String, String).self) {
            let s = try SyncMessageCoding.decodeSchema(text)
            schemas[s.name] = s
        }
        var out: [String: ClassMapping] = [:]
        for s in schemas.values where !s.isEmbedded {
            if let m = try? ClassMapping(s, in: schemas) { out[s.name] = m }
        }
        mappings.withLock { $0 = out }
    }

    /// Refuses names PostgreSQL or the service cannot keep apart: the service's own tables and
    /// columns (`objdb_…`, `_objdb_…`), and identifiers over 63 bytes (PostgreSQL truncates them,
    /// so the feed would record another name).
    static func checkNames(_ schema: SyncClassSchema) throws {
        func check(_ name: String, property: String?) throws {
            let lower = name.lowercased()
            let problem: String?
            if name.utf8.count > 63 {
                problem = "is longer than 63 bytes, which PostgreSQL truncates"
            } else if lower.hasPrefix("objdb_") || lower.hasPrefix("_objdb") || lower.hasPrefix("pg_") {
                problem = "is reserved for the service's or PostgreSQL's own tables and columns"
            } else if name.isEmpty {
                problem = "is empty"
            } else {
                problem = nil
            }
            guard let problem else { return }
            let what = property.map { "Property '\(schema.name).\($0)'" } ?? "Class '\(schema.name)'"
            throw ObjDBError(
                .invalidSchema, "\(what) cannot be synced: its name \(problem)", className: schema.name, propertyName: property,
                key: SyncErrorCode.schemaMismatch)
        }
        try check(schema.name, property: nil)
        for property in schema.properties { try check(property.name, property: property.name) }
    }

    /// Makes the tables match a client's schema: in development mode creates tables and adds
    /// missing columns; otherwise checks them. Throws ``ObjDBError`` keyed `schemaMismatch`.
    func ensureSchema(_ classes: [SyncClassSchema]) async throws {
        var all: [String: SyncClassSchema] = [:]
        for c in classes {
            try Self.checkNames(c)
            all[c.name] = c
        }
        let synced = try classes.filter { !$0.isEmbedded }.map { try ClassMapping($0, in: all) }
        try await transaction { c in
            try await c.query("SELECT pg_advisory_xact_lock(7349002)", logger: logger)
            var registered = Set<String>()
            for try await name in try await c.query("SELECT class FROM objdb_schema", logger: logger).decode(String.self) {
                registered.insert(name)
            }
            for m in synced {
                // Outside development mode a client cannot make the service adopt a table: only
                // classes registered before (by a development-mode run) are served, so no token
                // reaches a table the operator did not mean to sync.
                guard createsTables || registered.contains(m.schema.name) else {
                    throw ObjDBError(
                        .invalidSchema,
                        "Class '\(m.schema.name)' is not registered with the service; run it once with --development to create and register its table",
                        className: m.schema.name, key: SyncErrorCode.schemaMismatch)
                }
                let existing = try await self.columns(of: m.schema.name, on: c)
                if existing.isEmpty {
                    guard createsTables else {
                        throw ObjDBError(
                            .invalidSchema, "Class '\(m.schema.name)' has no table in PostgreSQL", className: m.schema.name,
                            key: SyncErrorCode.schemaMismatch)
                    }
                    var defs = m.columns.map { col in
                        "\(quoted(col.property.name)) \(col.kind.sqlType)" + (col.property.isPrimaryKey ? " PRIMARY KEY" : "")
                    }
                    defs.append("_objdb_version bigint NOT NULL DEFAULT 1")
                    try await c.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(quoted(m.schema.name)) (\(defs.joined(separator: ", ")))"), logger: logger)
                } else {
                    for col in m.columns {
                        if let udt = existing[col.property.name] {
                            guard udt == col.kind.udtName else {
                                throw ObjDBError(
                                    .invalidSchema,
                                    "Column '\(m.schema.name).\(col.property.name)' is \(udt) in PostgreSQL, the client's schema needs \(col.kind.sqlType)",
                                    className: m.schema.name, propertyName: col.property.name, key: SyncErrorCode.schemaMismatch)
                            }
                        } else {
                            guard createsTables, !col.property.isPrimaryKey else {
                                throw ObjDBError(
                                    .invalidSchema, "Table '\(m.schema.name)' has no column '\(col.property.name)'",
                                    className: m.schema.name, propertyName: col.property.name, key: SyncErrorCode.schemaMismatch)
                            }
                            try await c.query(
                                PostgresQuery(
                                    unsafeSQL: "ALTER TABLE \(quoted(m.schema.name)) ADD COLUMN \(quoted(col.property.name)) \(col.kind.sqlType)"),
                                logger: logger)
                        }
                    }
                    if existing["_objdb_version"] == nil {
                        try await c.query(
                            PostgresQuery(unsafeSQL: "ALTER TABLE \(quoted(m.schema.name)) ADD COLUMN _objdb_version bigint NOT NULL DEFAULT 1"),
                            logger: logger)
                    }
                }
                let table = quoted(m.schema.name)
                let pkArg = "'" + m.primaryKey.name.replacingOccurrences(of: "'", with: "''") + "'"
                // Triggers only where missing: creating one locks the table against writes.
                var present = Set<String>()
                let triggers = try await c.query(
                    "SELECT tgname::text FROM pg_trigger WHERE tgrelid = to_regclass(quote_ident(\(m.schema.name))) AND NOT tgisinternal",
                    logger: logger)
                for try await name in triggers.decode(String.self) { present.insert(name) }
                // A table set up by an earlier version has the row trigger the statement triggers replace.
                if present.contains("objdb_row") {
                    try await c.query(PostgresQuery(unsafeSQL: "DROP TRIGGER objdb_row ON \(table)"), logger: logger)
                }
                for (name, sql) in [
                    (
                        "objdb_insert",
                        "CREATE OR REPLACE TRIGGER objdb_insert AFTER INSERT ON \(table) REFERENCING NEW TABLE AS objdb_new FOR EACH STATEMENT EXECUTE FUNCTION objdb_rows_inserted(\(pkArg))"
                    ),
                    (
                        "objdb_update",
                        "CREATE OR REPLACE TRIGGER objdb_update AFTER UPDATE ON \(table) REFERENCING OLD TABLE AS objdb_old NEW TABLE AS objdb_new FOR EACH STATEMENT EXECUTE FUNCTION objdb_rows_updated(\(pkArg))"
                    ),
                    (
                        "objdb_delete",
                        "CREATE OR REPLACE TRIGGER objdb_delete AFTER DELETE ON \(table) REFERENCING OLD TABLE AS objdb_old FOR EACH STATEMENT EXECUTE FUNCTION objdb_rows_deleted(\(pkArg))"
                    ),
                    ("objdb_version", "CREATE OR REPLACE TRIGGER objdb_version BEFORE UPDATE ON \(table) FOR EACH ROW EXECUTE FUNCTION objdb_bump_version()"),
                    ("objdb_notify", "CREATE OR REPLACE TRIGGER objdb_notify AFTER INSERT OR UPDATE OR DELETE ON \(table) FOR EACH STATEMENT EXECUTE FUNCTION objdb_notify()"),
                ] where !present.contains(name) {
                    try await c.query(PostgresQuery(unsafeSQL: sql), logger: logger)
                }
            }
            // Keep every class (embedded ones too) in objdb_schema, merging properties additively.
            for s in classes {
                var merged = s
                var stored: SyncClassSchema?
                let rows = try await c.query("SELECT schema::text FROM objdb_schema WHERE class = \(s.name)", logger: logger)
                for try await text in rows.decode(String.self) {
                    let old = try SyncMessageCoding.decodeSchema(text)
                    stored = old
                    merged = SyncClassSchema(
                        name: s.name, isEmbedded: s.isEmbedded,
                        properties: old.properties + s.properties.filter { p in !old.properties.contains { $0.name == p.name } })
                }
                if merged == stored { continue }
                let json = SyncMessageCoding.encodeSchema(merged)
                try await c.query(
                    "INSERT INTO objdb_schema (class, schema) VALUES (\(s.name), \(json)::jsonb) ON CONFLICT (class) DO UPDATE SET schema = EXCLUDED.schema",
                    logger: logger)
            }
        }
        try await reloadMappings()
    }

    /// Column name → udt name of a table (empty: no table).
    func columns(of table: String, on c: PostgresConnection) async throws -> [String: String] {
        let rows = try await c.query(
            "SELECT column_name::text, udt_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = \(table)",
            logger: logger)
        var out: [String: String] = [:]
        for try await (name, udt) in rows.decode((String, String).self) { out[name] = udt }
        return out
    }

    // MARK: Clients

    enum ClientStatus {
        case known(lastSequence: UInt64)
        case otherUser
    }

    /// Registers a client id for a user (first hello) and returns its last applied sequence.
    func register(clientID: UUID, user: String) async throws -> ClientStatus {
        try await client.query(
            "INSERT INTO objdb_clients (client_id, user_id, last_sequence) VALUES (\(clientID), \(user), 0) ON CONFLICT (client_id) DO NOTHING",
            logger: logger)
        let rows = try await client.query("SELECT user_id, last_sequence FROM objdb_clients WHERE client_id = \(clientID)", logger: logger)
        for try await (owner, last) in rows.decode((String, Int64).self) {
            return owner == user ? .known(lastSequence: UInt64(max(0, last))) : .otherUser
        }
        return .known(lastSequence: 0)
    }

    // MARK: Write path

    /// What applying an upload gave.
    struct UploadResult {
        var rejected: [(SyncOperation, String)] = []
        var through: UInt64
    }

    /// Applies operations in one transaction that locks the client's row first; operations at
    /// or below the client's last sequence are skipped.
    func apply(_ ops: [SyncOperation], clientID: UUID, user: String) async throws -> UploadResult {
        try await transaction { c in
            let rows = try await c.query(
                "SELECT user_id, last_sequence FROM objdb_clients WHERE client_id = \(clientID) FOR UPDATE", logger: logger)
            var last: UInt64?
            for try await (owner, seq) in rows.decode((String, Int64).self) {
                guard owner == user else {
                    throw ObjDBError(.permissionDenied, "Client id \(clientID) belongs to another user", key: SyncErrorCode.clientIDInUse)
                }
                last = UInt64(max(0, seq))
            }
            guard let lastApplied = last else {
                throw ObjDBError(.invalidValue, "Client id \(clientID) is not registered (send a hello first)", key: SyncErrorCode.protocolViolation)
            }
            var result = UploadResult(through: lastApplied)
            let todo = ops.filter { $0.sequence > lastApplied }
            // Usually every operation applies: try them together under one savepoint, a round
            // trip per statement rather than three; on the first refusal, undo and go one by one.
            if todo.count > 1, try await self.applyTogether(todo, on: c), let last = todo.last {
                result.through = last.sequence
            } else {
                for op in todo {
                    if let reason = try await self.applyOne(op, on: c) { result.rejected.append((op, reason)) }
                    result.through = op.sequence
                    if SyncFaults.diesMidBatch && op.sequence != todo.last?.sequence { SyncFaults.die() }
                }
            }
            if result.through > lastApplied {
                try await c.query(
                    "UPDATE objdb_clients SET last_sequence = \(Int64(clamping: result.through)) WHERE client_id = \(clientID)", logger: logger)
            }
            return result
        }
    }

    /// Applies operations under one savepoint, each without a savepoint of its own; returns
    /// false, with nothing applied, if one is refused (by PostgreSQL or before it).
    func applyTogether(_ ops: [SyncOperation], on c: PostgresConnection) async throws -> Bool {
        try await c.query("SAVEPOINT objdb_batch", logger: logger)
        do {
            // Consecutive creates of one class writing the same properties, distinct keys:
            // one statement for them all.
            var group: [EncodedOperation] = []
            var keys = Set<String>()
            func flush() async throws {
                if !group.isEmpty { try await c.query(insertStatement(group), logger: logger) }
                group = []
                keys = []
            }
            for op in ops {
                let e: EncodedOperation
                switch try await encode(op) {
                case .refused:
                    try await c.query("ROLLBACK TO SAVEPOINT objdb_batch", logger: logger)
                    return false
                case .encoded(let encoded): e = encoded
                }
                guard op.kind == .create, e.appends.isEmpty else {
                    try await flush()
                    for s in statements(op, e) { try await c.query(s, logger: logger) }
                    continue
                }
                if let first = group.first {
                    let same = first.mapping.schema.name == e.mapping.schema.name && first.sets.map(\.0) == e.sets.map(\.0)
                    // At most 30,000 parameters a statement (PostgreSQL takes 65,535).
                    let full = (group.count + 1) * (e.sets.count + 1) > 30_000
                    if !same || full || keys.contains(e.pkText) { try await flush() }
                }
                group.append(e)
                keys.insert(e.pkText)
                if SyncFaults.diesMidBatch && op.sequence != ops.last?.sequence {
                    // A crash inside the batch's transaction, with part of it written.
                    try await flush()
                    SyncFaults.die()
                }
            }
            try await flush()
        } catch is PSQLError {
            try await c.query("ROLLBACK TO SAVEPOINT objdb_batch", logger: logger)
            return false
        }
        try await c.query("RELEASE SAVEPOINT objdb_batch", logger: logger)
        return true
    }

    /// Applies one operation inside a savepoint; returns the reason when it is refused.
    /// `savepoint: false` runs its statements as they are, a refusal by PostgreSQL thrown.
    func applyOne(_ op: SyncOperation, on c: PostgresConnection, savepoint: Bool = true) async throws -> String? {
        let e: EncodedOperation
        switch try await encode(op) {
        case .refused(let reason): return reason
        case .encoded(let encoded): e = encoded
        }
        let statements = statements(op, e)
        guard savepoint else {
            for s in statements { try await c.query(s, logger: logger) }
            return nil
        }
        try await c.query("SAVEPOINT objdb_op", logger: logger)
        do {
            for s in statements { try await c.query(s, logger: logger) }
            try await c.query("RELEASE SAVEPOINT objdb_op", logger: logger)
            return nil
        } catch let error as PSQLError {
            try await c.query("ROLLBACK TO SAVEPOINT objdb_op", logger: logger)
            return "PostgreSQL refused the write: \(error.serverInfo?[.message] ?? String(describing: error.code))"
        }
    }

    /// An operation's primary key and values as PostgreSQL text.
    struct EncodedOperation {
        var mapping: ClassMapping
        var pkText: String
        /// Properties written, by name order: name, text (nil: NULL), column kind.
        var sets: [(String, String?, ColumnKind)]
        /// List appends: name, text, column kind.
        var appends: [(String, String, ColumnKind)]
    }

    enum Encoding {
        case encoded(EncodedOperation)
        case refused(String)
    }

    /// Encodes an operation's values for PostgreSQL, or says why it is refused.
    func encode(_ op: SyncOperation) async throws -> Encoding {
        guard var m = try await mapping(op.className) else { return .refused("Class '\(op.className)' is not synced") }
        // A property this instance has not seen may have been added through another instance
        // since it cached the class: read the mappings again before refusing it.
        if op.values.keys.contains(where: { m[$0] == nil }) || op.listAppends.keys.contains(where: { m[$0] == nil }) {
            try await reloadMappings()
            if let fresh = mappings.withLock({ $0[op.className] }) { m = fresh }
        }
        let pkText: String
        do {
            guard let t = try PGText.encode(op.primaryKey, .scalar(m.primaryKey.type, isLink: false), property: m.primaryKey) else {
                return .refused("The primary key is nil")
            }
            pkText = t
        } catch let e as PGText.Mismatch { return .refused("Primary key: \(e.message)") }
        var sets: [(String, String?, ColumnKind)] = []
        for (name, value) in op.values.sorted(by: { $0.key < $1.key }) where name != m.primaryKey.name {
            guard let col = m[name] else { return .refused("Class '\(op.className)' has no property '\(name)'") }
            do { sets.append((name, try PGText.encode(value, col.kind, property: col.property), col.kind)) } catch let e as PGText.Mismatch {
                return .refused("\(op.className).\(e.message)")
            }
        }
        var appends: [(String, String, ColumnKind)] = []
        for (name, items) in op.listAppends.sorted(by: { $0.key < $1.key }) {
            guard let col = m[name] else { return .refused("Class '\(op.className)' has no property '\(name)'") }
            guard case .array = col.kind else { return .refused("'\(op.className).\(name)' is not a list of values or links") }
            do {
                guard let text = try PGText.encode(.list(items), col.kind, property: col.property) else { continue }
                appends.append((name, text, col.kind))
            } catch let e as PGText.Mismatch { return .refused("\(op.className).\(e.message)") }
        }
        return .encoded(EncodedOperation(mapping: m, pkText: pkText, sets: sets, appends: appends))
    }

    /// The statements of an encoded operation.
    func statements(_ op: SyncOperation, _ e: EncodedOperation) -> [PostgresQuery] {
        let (m, pkText, sets, appends) = (e.mapping, e.pkText, e.sets, e.appends)
        let table = quoted(m.schema.name)
        let pkCol = quoted(m.primaryKey.name)
        let pkType = ColumnKind.scalar(m.primaryKey.type, isLink: false).sqlType
        var statements: [PostgresQuery] = []
        switch op.kind {
        case .delete:
            var b = PostgresBindings()
            b.append(pkText)
            statements.append(PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE \(pkCol) = $1::\(pkType)", binds: b))
        case .create:
            var b = PostgresBindings()
            b.append(pkText)
            var cols = [pkCol]
            var values = ["$1::\(pkType)"]
            for (i, (name, text, kind)) in sets.enumerated() {
                b.append(text)
                cols.append(quoted(name))
                values.append("$\(i + 2)::\(kind.sqlType)")
            }
            let conflict =
                sets.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + sets.map { "\(quoted($0.0)) = EXCLUDED.\(quoted($0.0))" }.joined(separator: ", ")
            statements.append(
                PostgresQuery(
                    unsafeSQL: "INSERT INTO \(table) (\(cols.joined(separator: ", "))) VALUES (\(values.joined(separator: ", "))) ON CONFLICT (\(pkCol)) \(conflict)",
                    binds: b))
        case .update:
            if !sets.isEmpty {
                var b = PostgresBindings()
                b.append(pkText)
                var assignments: [String] = []
                for (i, (name, text, kind)) in sets.enumerated() {
                    b.append(text)
                    assignments.append("\(quoted(name)) = $\(i + 2)::\(kind.sqlType)")
                }
                statements.append(
                    PostgresQuery(
                        unsafeSQL: "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \(pkCol) = $1::\(pkType)", binds: b))
            }
        }
        if op.kind != .delete {
            for (name, text, kind) in appends {
                var b = PostgresBindings()
                b.append(pkText)
                b.append(text)
                let col = quoted(name)
                statements.append(
                    PostgresQuery(
                        unsafeSQL: "UPDATE \(table) SET \(col) = coalesce(\(col), '{}') || $2::\(kind.sqlType) WHERE \(pkCol) = $1::\(pkType)",
                        binds: b))
            }
        }
        return statements
    }

    /// One `INSERT … VALUES (…), (…) ON CONFLICT` for creates of one class that write the same
    /// properties, with distinct primary keys: what their statements do one by one.
    func insertStatement(_ rows: [EncodedOperation]) -> PostgresQuery {
        let first = rows[0]
        let m = first.mapping
        let pkCol = quoted(m.primaryKey.name)
        let pkType = ColumnKind.scalar(m.primaryKey.type, isLink: false).sqlType
        let cols = [pkCol] + first.sets.map { quoted($0.0) }
        var b = PostgresBindings()
        var tuples: [String] = []
        tuples.reserveCapacity(rows.count)
        for row in rows {
            b.append(row.pkText)
            var values = ["$\(b.count)::\(pkType)"]
            for (_, text, kind) in row.sets {
                b.append(text)
                values.append("$\(b.count)::\(kind.sqlType)")
            }
            tuples.append("(" + values.joined(separator: ", ") + ")")
        }
        let conflict =
            first.sets.isEmpty
            ? "DO NOTHING" : "DO UPDATE SET " + first.sets.map { "\(quoted($0.0)) = EXCLUDED.\(quoted($0.0))" }.joined(separator: ", ")
        return PostgresQuery(
            unsafeSQL:
                "INSERT INTO \(quoted(m.schema.name)) (\(cols.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", ")) ON CONFLICT (\(pkCol)) \(conflict)",
            binds: b)
    }

    // MARK: Read path

    /// A checkpoint read from one snapshot.
    struct Checkpoint {
        var isReset: Bool
        var changes: [SyncObjectState]
        var snapshot: String
        var includesSequence: UInt64
    }

    /// Reads everything of the subscribed classes (`since == nil`) or what changed since a
    /// checkpoint, in one REPEATABLE READ transaction, with the client's last applied sequence.
    func read(since old: String?, classes: [String], clientID: UUID) async throws -> Checkpoint {
        var mappings: [ClassMapping] = []
        for name in Set(classes).sorted() { if let m = try await mapping(name) { mappings.append(m) } }
        return try await transaction { c in
            try await c.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            var snapshot = ""
            for try await s in try await c.query("SELECT pg_current_snapshot()::text", logger: logger).decode(String.self) { snapshot = s }
            var changes: [SyncObjectState] = []
            var old = old
            if let checkpoint = old {
                let trimmed = try await c.query(
                    "SELECT EXISTS (SELECT 1 FROM objdb_feed_trim WHERE before >= pg_snapshot_xmin(\(checkpoint)::pg_snapshot))", logger: logger)
                for try await isTrimmed in trimmed.decode(Bool.self) where isTrimmed { old = nil }
            }
            if let old {
                let rows = try await c.query(
                    """
                    SELECT DISTINCT class, pk FROM objdb_changes
                    WHERE xid >= pg_snapshot_xmin(\(old)::pg_snapshot) AND pg_visible_in_snapshot(xid, \(snapshot)::pg_snapshot)
                      AND NOT pg_visible_in_snapshot(xid, \(old)::pg_snapshot) AND class = ANY(\(mappings.map(\.schema.name)))
                    """, logger: logger)
                var keys: [String: [String]] = [:]
                for try await (cls, pk) in rows.decode((String, String).self) { keys[cls, default: []].append(pk) }
                for m in mappings {
                    guard let pks = keys[m.schema.name], !pks.isEmpty else { continue }
                    let found = try await self.rows(of: m, keys: pks, on: c)
                    var seen = Set<String>()
                    for (pkText, state) in found {
                        seen.insert(pkText)
                        changes.append(state)
                    }
                    for pk in pks.sorted() where !seen.contains(pk) {
                        changes.append(
                            SyncObjectState(className: m.schema.name, primaryKey: try PGText.scalarValue(pk, m.primaryKey.type), values: nil))
                    }
                }
            } else {
                for m in mappings { changes += try await self.rows(of: m, keys: nil, on: c).map(\.1) }
            }
            var sequence: UInt64 = 0
            for try await s in try await c.query("SELECT last_sequence FROM objdb_clients WHERE client_id = \(clientID)", logger: logger)
                .decode(Int64.self)
            {
                sequence = UInt64(max(0, s))
            }
            return Checkpoint(isReset: old == nil, changes: changes, snapshot: snapshot, includesSequence: sequence)
        }
    }

    /// Deletes feed rows of transactions older than `seconds`; returns how many. Clients whose
    /// checkpoint predates the trim point bootstrap again.
    func trimFeed(olderThan seconds: Double) async throws -> Int {
        try await transaction { c in
            var locked = false
            for try await l in try await c.query("SELECT pg_try_advisory_xact_lock(7349003)", logger: logger).decode(Bool.self) { locked = l }
            guard locked else { return 0 }
            var last: String?
            for try await x in try await c.query(
                "SELECT xid::text FROM objdb_changes WHERE at < now() - make_interval(secs => \(seconds)) ORDER BY xid DESC LIMIT 1",
                logger: logger
            ).decode(String.self) {
                last = x
            }
            guard let last else { return 0 }
            var count = 0
            for try await n in try await c.query(
                "WITH d AS (DELETE FROM objdb_changes WHERE xid <= \(last)::xid8 RETURNING 1) SELECT count(*) FROM d", logger: logger
            ).decode(Int64.self) {
                count = Int(n)
            }
            try await c.query(
                """
                INSERT INTO objdb_feed_trim (id, before) VALUES (1, \(last)::xid8)
                ON CONFLICT (id) DO UPDATE SET before = greatest(objdb_feed_trim.before, EXCLUDED.before)
                """, logger: logger)
            return count
        }
    }

    /// The current state of each object named (values `nil` for one the table lacks), in one
    /// transaction: what a client whose writes were rejected is sent, so that its file returns
    /// to the service's state.
    func currentStates(of objects: [(className: String, primaryKey: SyncValue)]) async throws -> [SyncObjectState] {
        var byClass: [String: [(text: String, key: SyncValue)]] = [:]
        for object in objects {
            guard let m = try await mapping(object.className),
                let text = try? PGText.encode(object.primaryKey, .scalar(m.primaryKey.type, isLink: false), property: m.primaryKey)
            else { continue }
            byClass[object.className, default: []].append((text, object.primaryKey))
        }
        var mappings: [(ClassMapping, [(text: String, key: SyncValue)])] = []
        for (name, keys) in byClass.sorted(by: { $0.key < $1.key }) {
            if let m = try await mapping(name) { mappings.append((m, keys)) }
        }
        return try await transaction { c in
            var states: [SyncObjectState] = []
            for (m, keys) in mappings {
                let found = try await self.rows(of: m, keys: keys.map(\.text), on: c)
                let present = Set(found.map(\.0))
                states += found.map(\.1)
                for key in keys where !present.contains(key.text) {
                    states.append(SyncObjectState(className: m.schema.name, primaryKey: key.key, values: nil))
                }
            }
            return states
        }
    }

    /// Current rows of a class (all, or those with these primary keys' text).
    func rows(of m: ClassMapping, keys: [String]?, on c: PostgresConnection) async throws -> [(String, SyncObjectState)] {
        let pkCol = quoted(m.primaryKey.name)
        let select = m.columns.map { "\(quoted($0.property.name))::text" }.joined(separator: ", ")
        var sql = "SELECT \(pkCol)::text, \(select) FROM \(quoted(m.schema.name))"
        var binds = PostgresBindings()
        if let keys {
            // Compared in the key's own type, so that the primary key's index serves it.
            let pkType = ColumnKind.scalar(m.primaryKey.type, isLink: false).sqlType
            sql += " WHERE \(pkCol) = ANY($1::text[]::\(pkType)[])"
            binds.append(keys)
        }
        sql += " ORDER BY \(pkCol)"
        let rows = try await c.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        var out: [(String, SyncObjectState)] = []
        for try await row in rows {
            let cells = row.makeRandomAccess()
            guard let pkText = try cells[0].decode(String?.self) else { continue }
            // A row a SQL client wrote that does not read as the class's values (a number past
            // Decimal's range, JSON that is not the tagged form) is left out and logged: sent as
            // it is, it would stop every client's downloads of the class, again at each retry.
            do {
                var values: [String: SyncValue] = [:]
                for (i, col) in m.columns.enumerated() {
                    values[col.property.name] = try PGText.decode(try cells[i + 1].decode(String?.self), col.kind, property: col.property)
                }
                let pk = try PGText.scalarValue(pkText, m.primaryKey.type)
                out.append((pkText, SyncObjectState(className: m.schema.name, primaryKey: pk, values: values)))
            } catch {
                logger.error(
                    "A row cannot be read as its class's values; it is not sent to clients",
                    metadata: ["class": "\(m.schema.name)", "primaryKey": "\(pkText)", "error": "\(error)"])
            }
        }
        return out
    }
}

/// A value behind a lock.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
