import Foundation
import Logging
import ObjDB
import ObjDBSyncProtocol
import PostgresNIO

/// The read of a fan-out round: what changed since each of the connected clients' checkpoints,
/// read once for all of them in one snapshot (see ``FeedFanout``).
extension SyncStore {
    /// The changes since some checkpoints, read in one REPEATABLE READ transaction.
    struct SharedRead {
        /// The new checkpoint.
        var snapshot: String
        /// For each base checkpoint, the changed objects: class → primary key texts.
        var changed: [String: [String: [String]]] = [:]
        /// Base checkpoints older than the feed's trim point (their clients bootstrap).
        var trimmed: Set<String> = []
        /// The current rows of the changed objects: class → primary key text → row (absent when
        /// deleted or unreadable).
        var rows: [String: [ExactText: SyncObjectBatch.Row]] = [:]
        /// The property names of each class's rows.
        var propertyNames: [String: [String]] = [:]
        /// For each base checkpoint, the rows changed objects had before each of their changes
        /// since it: class → primary key text → old rows' values.
        var oldRows: [String: [String: [ExactText: [[SyncValue]]]]] = [:]
        /// Each client's last applied sequence.
        var sequences: [UUID: UInt64] = [:]
    }

    /// Reads, in one snapshot, the objects of `classes` changed since each of `checkpoints`,
    /// their current rows, their old rows (for the classes in `oldRowsOf`), and the sequences
    /// of `clients`.
    func readShared(since checkpoints: Set<String>, classes: [String], oldRowsOf: Set<String>, clients: [UUID]) async throws -> SharedRead {
        var mappings: [ClassMapping] = []
        for name in Set(classes).sorted() { if let m = try await mapping(name) { mappings.append(m) } }
        let names = mappings.map(\.schema.name)
        return try await snapshotTransaction { c in
            var read = SharedRead(snapshot: "")
            for try await s in try await c.query("SELECT pg_current_snapshot()::text", logger: logger).decode(String.self) { read.snapshot = s }
            var keys: [String: Set<ExactText>] = [:]
            for old in checkpoints.sorted() {
                let trimmed = try await c.query(
                    "SELECT EXISTS (SELECT 1 FROM objdb_feed_trim WHERE before >= pg_snapshot_xmin(\(old)::pg_snapshot))", logger: logger)
                var isTrimmed = false
                for try await t in trimmed.decode(Bool.self) { isTrimmed = t }
                if isTrimmed {
                    read.trimmed.insert(old)
                    continue
                }
                let rows = try await c.query(
                    """
                    SELECT DISTINCT f.class, k.pk FROM objdb_changes f CROSS JOIN LATERAL unnest(coalesce(f.pks, ARRAY[f.pk])) AS k(pk)
                    WHERE f.xid >= pg_snapshot_xmin(\(old)::pg_snapshot) AND pg_visible_in_snapshot(f.xid, \(read.snapshot)::pg_snapshot)
                      AND NOT pg_visible_in_snapshot(f.xid, \(old)::pg_snapshot) AND f.class = ANY(\(names))
                    """, logger: logger)
                var changed: [String: [String]] = [:]
                for try await (cls, pk) in rows.decode((String, String).self) {
                    changed[cls, default: []].append(pk)
                    keys[cls, default: []].insert(ExactText(pk))
                }
                read.changed[old] = changed
            }
            for m in mappings {
                // The names of the values this read decodes (a round uses them, not a mapping
                // read again, which a schema change may have extended meanwhile).
                read.propertyNames[m.schema.name] = m.columns.map(\.property.name)
                guard let pks = keys[m.schema.name], !pks.isEmpty else { continue }
                let (texts, batch) = try await self.keyedRows(of: m, keys: pks.map(\.text).sorted(), condition: .always, on: c)
                read.rows[m.schema.name] = Dictionary(zip(texts.map(ExactText.init), batch.rows), uniquingKeysWith: { first, _ in first })
                guard oldRowsOf.contains(m.schema.name) else { continue }
                for old in read.changed.keys {
                    guard let changed = read.changed[old]?[m.schema.name], !changed.isEmpty else { continue }
                    read.oldRows[old, default: [:]][m.schema.name] = try await self.oldRows(
                        of: m, keys: changed, since: old, snapshot: read.snapshot, on: c)
                }
            }
            if !clients.isEmpty {
                let rows = try await c.query("SELECT client_id, last_sequence FROM objdb_clients WHERE client_id = ANY(\(clients))", logger: logger)
                for try await (id, sequence) in rows.decode((UUID, Int64).self) { read.sequences[id] = UInt64(max(0, sequence)) }
            }
            return read
        }
    }

    /// The rows `keys` had before each of their changes between two snapshots: the feed's old
    /// row images read back as rows of the class's table.
    func oldRows(of m: ClassMapping, keys: [String], since old: String, snapshot: String, on c: PostgresConnection) async throws
        -> [ExactText: [[SyncValue]]]
    {
        let select = m.columns.map { Self.selection("r.\(quoted($0.property.name))", $0.kind) }
        var binds = PostgresBindings()
        binds.append(m.schema.name)
        binds.append(keys)
        binds.append(old)
        binds.append(snapshot)
        let sql = """
            SELECT f.pk, \(select.joined(separator: ", "))
            FROM objdb_changes f CROSS JOIN LATERAL jsonb_populate_record(NULL::\(quoted(m.schema.name)), f.old) AS r
            WHERE f.class = $1 AND f.pk = ANY($2::text[]) AND f.old IS NOT NULL
              AND f.xid >= pg_snapshot_xmin($3::pg_snapshot) AND pg_visible_in_snapshot(f.xid, $4::pg_snapshot)
              AND NOT pg_visible_in_snapshot(f.xid, $3::pg_snapshot)
            """
        var result: [ExactText: [[SyncValue]]] = [:]
        for try await row in try await c.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) {
            let cells = row.makeRandomAccess()
            guard let pk = try cells[0].decode(String?.self) else { continue }
            // An old row that does not read as the class's values cannot have been sent.
            guard let values = try? m.columns.enumerated().map({ i, col in try Self.value(of: cells[i + 1], col.kind, property: col.property) })
            else { continue }
            result[ExactText(pk), default: []].append(values)
        }
        return result
    }
}
