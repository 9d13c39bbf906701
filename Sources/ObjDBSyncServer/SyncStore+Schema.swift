import Foundation
import Logging
import ObjDB
import ObjDBSyncProtocol
import PostgresNIO

/// The tables of synced classes: their mappings, the names they may have, and making them
/// match a client's schema (created and extended in development mode, checked otherwise).
extension SyncStore {
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
        // Checked a moment ago by this instance (the usual case: clients of one app reconnect
        // with the schema they had): no transaction, no global lock, no catalog reads. A table
        // changed by hand in the meantime shows as errors of its reads and writes until then.
        let now = ContinuousClock.now
        let fresh = checkedSchemas.withLock { checked in
            classes.allSatisfy { checked[$0].map { now - $0 < Self.schemaCheckLifetime } ?? false }
        }
        if fresh, synced.allSatisfy({ m in mappings.withLock { $0[m.schema.name] } != nil }) { return }
        try await transaction { c in
            for try await _ in try await c.query("SELECT pg_advisory_xact_lock(7349002)", logger: logger) {}
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
        checkedSchemas.withLock { checked in
            checked = checked.filter { now - $0.value < Self.schemaCheckLifetime }
            for c in classes { checked[c] = now }
        }
    }

    /// Forgets every schema check: the next hello of each client checks its schema again.
    func forgetSchemaChecks() {
        checkedSchemas.withLock { $0 = [:] }
    }

    /// Whether PostgreSQL refused a statement because a synced table is not as checked: a table
    /// or column missing, or a column of another type (SQL states 42P01, 42703, 42804).
    static func isTableChange(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return ["42P01", "42703", "42804"].contains(state)
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
}
