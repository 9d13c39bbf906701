import Foundation
import Logging
import ObjDB
import ObjDBSyncProtocol
import PostgresNIO

/// The write path: clients and their last applied sequence, uploads applied once under the
/// client's row lock (their statements in `SyncStore+Encoding`).
extension SyncStore {
    // MARK: Clients

    enum ClientStatus {
        case known(lastSequence: UInt64)
        case otherUser
    }

    /// Registers a client id for a user (first hello) and returns its last applied sequence.
    func register(clientID: UUID, user: String) async throws -> ClientStatus {
        // One statement (a hello waits for it before its welcome): registered, or marked
        // connected when the id is the user's (what `objdb-sync status` shows).
        let rows = try await client.query(
            """
            INSERT INTO objdb_clients AS c (client_id, user_id, last_sequence, connected_at, seen_at) VALUES (\(clientID), \(user), 0, now(), now())
            ON CONFLICT (client_id) DO UPDATE SET connected_at = CASE WHEN c.user_id = \(user) THEN now() ELSE c.connected_at END,
                seen_at = CASE WHEN c.user_id = \(user) THEN now() ELSE c.seen_at END
            RETURNING user_id, last_sequence
            """, logger: logger)
        for try await (owner, last) in rows.decode((String, Int64).self) {
            return owner == user ? .known(lastSequence: UInt64(max(0, last))) : .otherUser
        }
        return .known(lastSequence: 0)
    }

    /// Records that a client left, with the last checkpoint the service sent it (kept when
    /// this connection sent none), for `objdb-sync status`.
    func recordDisconnection(clientID: UUID, checkpoint: String?) async throws {
        try await client.query(
            "UPDATE objdb_clients SET connected_at = NULL, seen_at = now(), checkpoint = COALESCE(\(checkpoint), checkpoint) WHERE client_id = \(clientID)",
            logger: logger)
    }

    // MARK: Write path

    /// What applying an upload gave.
    struct UploadResult {
        var rejected: [(SyncOperation, String)] = []
        var through: UInt64
    }

    /// Applies operations in one transaction that locks the client's row first; operations at
    /// or below the client's last sequence are skipped.
    ///
    /// Usually every operation applies: they are tried together, a statement for many creates
    /// and no savepoint; on the first refusal that transaction rolls back and a second one
    /// applies them one by one, each under a savepoint, recording the refused ones. Under rules
    /// (not ``SyncRules/allowAll``) each operation is checked against its class's write rule, one
    /// by one (see ``applyOne(_:on:rules:savepoint:)``).
    ///
    /// Two uploads that write the same objects in different orders can deadlock; PostgreSQL
    /// then aborts one of them, which is tried again (up to 5 times) rather than failing the
    /// client's connection.
    ///
    /// `more` gives the operations of the client's next upload, when one is already queued
    /// right behind these (it is passed the last sequence so far and how many operations it may
    /// give at most): applied together, they join this transaction, up to
    /// ``maxOperationsPerTransaction`` in all, so that PostgreSQL runs the client's batches back
    /// to back, with one lock, one commit and one acknowledgement.
    func apply(
        _ ops: [SyncOperation], clientID: UUID, user: String, view: ClientView,
        more: @escaping @Sendable (_ after: UInt64, _ atMost: Int) -> [SyncOperation]? = { _, _ in nil }
    ) async throws -> UploadResult {
        let rules = view.rules.isAllowAll ? nil : WriteRules(view: view, lowercase: lowercase.withLock { $0 })
        // Every operation taken so far, the ones `more` gave too: a retry applies them all.
        let taken = Locked(ops)
        let next: @Sendable () -> [SyncOperation]? = {
            taken.withLock { all in
                let room = Self.maxOperationsPerTransaction - all.count
                guard room > 0, let last = all.last, let ops = more(last.sequence, room) else { return nil }
                all.append(contentsOf: ops)
                return ops
            }
        }
        var attempt = 0
        while true {
            attempt += 1
            do {
                if rules != nil { return try await apply(taken.withLock { $0 }, clientID: clientID, user: user, together: false, rules: rules) }
                do {
                    return try await apply(taken.withLock { $0 }, clientID: clientID, user: user, together: true, rules: nil, more: next)
                } catch is RefusedTogether {
                    return try await apply(taken.withLock { $0 }, clientID: clientID, user: user, together: false, rules: nil)
                }
            } catch let error as PSQLError where attempt < 5 && Self.isRetryable(error) {
                logger.info("Sync upload deadlocked with another; trying again", metadata: ["attempt": "\(attempt)"])
                try await Task.sleep(for: .milliseconds(Int64.random(in: 1...20) * Int64(attempt)))
            }
        }
    }

    /// Whether PostgreSQL aborted a transaction for what another one did (a deadlock, a
    /// serialization failure): it is tried again, not refused.
    static func isRetryable(_ error: PSQLError) -> Bool {
        ["40P01", "40001"].contains(error.serverInfo?[.sqlState] ?? "")
    }

    /// The most operations one upload transaction takes from a client's queued batches.
    static let maxOperationsPerTransaction = SyncLimits.maxOperationsPerUpload

    /// The write rules of a client's view, as conditions on a class's rows.
    struct WriteRules {
        let view: ClientView
        let lowercase: String

        /// The write condition of a class over its table's columns, parameters from `$2` on.
        func condition(_ m: ClassMapping) throws -> SQLCondition {
            try view.writeCondition(m, alias: quoted(m.schema.name), lowercase: lowercase, firstParameter: 2)
        }
    }

    /// An operation of a batch tried together was refused: its transaction rolls back.
    private struct RefusedTogether: Error {}

    private func apply(
        _ ops: [SyncOperation], clientID: UUID, user: String, together: Bool, rules: WriteRules?, more: @Sendable () -> [SyncOperation]? = { nil }
    ) async throws -> UploadResult {
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
            if rules != nil { try await self.lockKeys(of: todo, on: c) }
            if together && !todo.isEmpty {
                guard let last = try await self.applyTogether(todo, on: c, more: more) else { throw RefusedTogether() }
                result.through = last
            } else {
                for op in todo {
                    if let reason = try await self.applyOne(op, on: c, rules: rules) { result.rejected.append((op, reason)) }
                    result.through = op.sequence
                    if SyncFaults.diesMidBatch && op.sequence != todo.last?.sequence { SyncFaults.die() }
                }
            }
            if result.through > lastApplied {
                try await c.query(
                    "UPDATE objdb_clients SET last_sequence = \(Int64(clamping: result.through)) WHERE client_id = \(clientID)", logger: logger)
            }
            if !result.rejected.isEmpty {
                // In the same transaction: a client that disconnects before it is sent the
                // rejected objects' states gets them at its next hello.
                let classes = result.rejected.map(\.0.className)
                let keys = result.rejected.map { SyncValueJSON.encode($0.0.primaryKey).text }
                try await c.query(
                    "INSERT INTO objdb_rejections (client_id, class, pk) SELECT \(clientID), * FROM unnest(\(classes)::text[], \(keys)::text[])",
                    logger: logger)
            }
            return result
        }
    }

    /// Applies operations without a savepoint, then those `more` gives; returns the last
    /// sequence applied, or `nil` if one is refused (by PostgreSQL or before it), when the
    /// transaction must roll back.
    func applyTogether(_ ops: [SyncOperation], on c: PostgresConnection, more: @Sendable () -> [SyncOperation]? = { nil }) async throws -> UInt64? {
        // The statement sent last, while it runs: the next rows are encoded meanwhile, so this
        // process's work overlaps PostgreSQL's. Statements still run one at a time, in order.
        var running: Task<Void, any Error>?
        var lastSequence: UInt64?
        do {
            func send(_ statement: PostgresQuery) async throws {
                try await running?.value
                let logger = self.logger
                running = Task { try await c.query(statement, logger: logger) }
            }
            // Consecutive creates of one class writing the same properties, distinct keys:
            // one statement for them (up to `rowsPerStatement`). The fast path `insertColumns`
            // appends each to the statement's columns as it comes (`run`); its slow twin keeps
            // each one's cells (`group`, `keys`) and builds the columns from them.
            let fast = FastPaths.enabled.contains(.insertColumns)
            var run: InsertColumns?
            var group: [EncodedOperation] = []
            var keys = Set<String>()
            #if OBJDB_INTERNAL_CHECKS
            // Under internal checks, `run`'s rows as the slow twin encodes them, and their keys'
            // cells: each row appended must be one the twin would have put in the same statement.
            var twin: [EncodedOperation] = []
            var twinKeys = Set<[UInt8]?>()
            #endif
            func flush() async throws {
                if let columns = run {
                    let statement = columns.statement
                    #if OBJDB_INTERNAL_CHECKS
                    if internalChecksEnabled {
                        let slow = insertStatement(twin)
                        internalCheck(
                            statement.sql == slow.sql && statement.binds == slow.binds,
                            "InsertColumns and insertStatement disagree on \(twin.count) rows of '\(columns.mapping.schema.name)'")
                    }
                    twin = []
                    #endif
                    try await send(statement)
                } else if !group.isEmpty {
                    try await send(insertStatement(group))
                }
                run = nil
                group = []
                keys = []
            }
            var chunk = ops
            while true {
                for op in chunk {
                    if run?.append(op, limit: Self.rowsPerStatement) == true {
                        lastSequence = op.sequence
                        #if OBJDB_INTERNAL_CHECKS
                        if internalChecksEnabled {
                            if case .encoded(let e) = try await encode(op, previous: run?.mapping) {
                                internalCheck(
                                    twin.first?.sharesStatement(with: e) == true && e.pk.bytes != nil && twinKeys.insert(e.pk.bytes).inserted,
                                    "InsertColumns appended to a run an operation its slow twin would not: '\(op.className)' \(op.sequence)")
                                twin.append(e)
                            } else {
                                internalCheck(false, "InsertColumns took an operation its slow twin refuses: '\(op.className)' \(op.sequence)")
                            }
                        }
                        #endif
                        if SyncFaults.diesMidBatch && op.sequence != chunk.last?.sequence {
                            try await flush()
                            try await running?.value
                            SyncFaults.die()
                        }
                        continue
                    }
                    let e: EncodedOperation
                    switch try await encode(op, previous: run?.mapping ?? group.last?.mapping) {
                    case .refused:
                        _ = await running?.result
                        return nil
                    case .encoded(let encoded): e = encoded
                    }
                    lastSequence = op.sequence
                    guard op.kind == .create, e.appends.isEmpty else {
                        try await flush()
                        for s in statements(op, e) { try await send(s) }
                        continue
                    }
                    if fast {
                        try await flush()
                        run = InsertColumns(first: e)
                        #if OBJDB_INTERNAL_CHECKS
                        twin = [e]
                        twinKeys = [e.pk.bytes]
                        #endif
                    } else {
                        if let first = group.first, !first.sharesStatement(with: e) || keys.contains(e.pkText) || group.count >= Self.rowsPerStatement {
                            try await flush()
                        }
                        group.append(e)
                        keys.insert(e.pkText)
                    }
                    if SyncFaults.diesMidBatch && op.sequence != chunk.last?.sequence {
                        // A crash inside the batch's transaction, with part of it written.
                        try await flush()
                        try await running?.value
                        SyncFaults.die()
                    }
                }
                // The next queued batch, if one arrived while these were encoded, or else while
                // their last statement runs; its rows are encoded while that statement runs.
                try await flush()
                if let next = more() {
                    chunk = next
                    continue
                }
                try await running?.value
                running = nil
                guard let next = more() else { break }
                chunk = next
            }
        } catch let error as PSQLError where Self.isRetryable(error) {
            _ = await running?.result
            throw error
        } catch is PSQLError {
            _ = await running?.result
            return nil
        } catch {
            _ = await running?.result
            throw error
        }
        return lastSequence
    }

    /// The most rows one multi-row insert writes: small enough that encoding the next ones
    /// overlaps its run, large enough that a statement's own cost is small beside its rows'.
    static let rowsPerStatement = 5000

    /// Applies one operation inside a savepoint; returns the reason when it is refused.
    /// `savepoint: false` runs its statements as they are, a refusal by PostgreSQL thrown.
    ///
    /// With `rules`, the object must meet its class's write rule before the operation (if it
    /// exists; its row is locked meanwhile) and after it (unless deleted); otherwise the
    /// operation is undone (rolled back to the savepoint) and refused.
    func applyOne(_ op: SyncOperation, on c: PostgresConnection, rules: WriteRules? = nil, savepoint: Bool = true) async throws -> String? {
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
        var rule: SQLCondition?
        if let rules {
            let condition = try rules.condition(e.mapping)
            if condition.sql == SQLCondition.never.sql {
                return "The rules let this user write no object of '\(op.className)' (no rule, or one whose claim the token lacks)"
            }
            if !condition.isAlways {
                rule = condition
                // The object's key is locked (``lockKeys(of:on:)``), so that another user's
                // create of the same key cannot slip in between this check and the write.
                if try await meetsRule(e, condition, lock: true, on: c) == false { return Self.forbidden(op) }
            }
        }
        try await c.query("SAVEPOINT objdb_op", logger: logger)
        do {
            for s in statements { try await c.query(s, logger: logger) }
            // The object as the write left it (an update of an object that no longer exists
            // changed nothing, as without rules).
            if let rule, op.kind != .delete, try await meetsRule(e, rule, lock: false, on: c) == false {
                try await c.query("ROLLBACK TO SAVEPOINT objdb_op", logger: logger)
                return Self.forbidden(op)
            }
            try await c.query("RELEASE SAVEPOINT objdb_op", logger: logger)
            return nil
        } catch let error as PSQLError where SyncStore.isTableChange(error) {
            // Not the operation's fault: the table changed since this instance checked it. The
            // connection fails (the client retries) and the next hello checks the schema again.
            forgetSchemaChecks()
            throw error
        } catch let error as PSQLError where Self.isRetryable(error) {
            // Not the operation's fault: the whole transaction is tried again (`apply`).
            throw error
        } catch let error as PSQLError {
            try await c.query("ROLLBACK TO SAVEPOINT objdb_op", logger: logger)
            return "PostgreSQL refused the write: \(error.serverInfo?[.message] ?? String(describing: error.code))"
        }
    }

    /// Locks the objects `ops` write until the transaction ends (advisory locks on their keys),
    /// in one global order, so that uploads writing the same objects wait for each other
    /// instead of deadlocking.
    func lockKeys(of ops: [SyncOperation], on c: PostgresConnection) async throws {
        var keys = Set<Int64>()
        for op in ops {
            guard case .encoded(let e) = try await encode(op) else { continue }
            keys.insert(Self.lockKey(className: op.className, pkText: e.pkText))
        }
        for key in keys.sorted() {
            // Its rows read: an error (a deadlock with a SQL client) comes with them.
            for try await _ in try await c.query("SELECT pg_advisory_xact_lock(\(key))", logger: logger) {}
        }
    }

    /// The advisory lock key of an object: FNV-1a of its class and key text.
    static func lockKey(className: String, pkText: String) -> Int64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in Array(className.utf8) + [0] + Array(pkText.utf8) {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
        }
        return Int64(bitPattern: hash)
    }

    /// The reason of a write the rules forbid: one for the object before and after the write,
    /// which tells the writer no more than the object's existence.
    static func forbidden(_ op: SyncOperation) -> String {
        "The write rule of '\(op.className)' does not allow this write"
    }

    /// Whether the object an operation writes meets a write rule's condition now; `nil` when it
    /// does not exist. `lock`: its row is locked until the transaction ends.
    private func meetsRule(_ e: EncodedOperation, _ rule: SQLCondition, lock: Bool, on c: PostgresConnection) async throws -> Bool? {
        let table = quoted(e.mapping.schema.name)
        let pkType = ColumnKind.scalar(e.mapping.primaryKey.type, isLink: false).sqlType
        var binds = PostgresBindings()
        binds.append(e.pkText)
        for cell in rule.parameters { binds.append(cell) }
        let sql = "SELECT \(rule.sql) FROM \(table) WHERE \(quoted(e.mapping.primaryKey.name)) = $1::\(pkType)" + (lock ? " FOR UPDATE" : "")
        var meets: Bool?
        for try await value in try await c.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).decode(Bool.self) { meets = value }
        return meets
    }
}
