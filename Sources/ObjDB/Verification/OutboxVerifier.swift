/// Checks the tables of a synced file: every outbox entry one this build can read, under an
/// integer key; the `sync` table's records of their expected sizes.
enum OutboxVerifier {
    /// Checks the `outbox` table.
    static func check(_ tree: NamedTree, _ walk: FileWalk) {
        var reported = 0
        walk.walkOpened(tree, visit: { key, value in
            guard reported < 10 else { return }
            guard key.count == 8 else {
                walk.report.add(VerificationProblem(.table, "The outbox has a key of \(key.count) bytes", table: TableName.outbox))
                reported += 1
                return
            }
            let sequence = key.loadUnaligned(as: UInt64.self)
            do {
                _ = try OutboxFormat.decode(value, sequence: sequence, path: nil)
            } catch {
                let message = (error as? ObjDBError)?.message ?? "\(error)"
                walk.report.add(VerificationProblem(.table, message, table: TableName.outbox))
                reported += 1
            }
        }, failed: { _ in
            walk.report.add(VerificationProblem(.table, "An encrypted outbox entry does not authenticate: it was damaged or altered", table: TableName.outbox))
        })
    }

    /// Checks the `sync` table.
    static func checkState(_ tree: NamedTree, _ walk: FileWalk) {
        walk.walkOpened(tree, visit: { key, value in
            let name = String(decoding: key, as: UTF8.self)
            let expected: Int?
            switch name {
            case SyncTables.Key.clientID, SyncTables.Key.fileIdentity: expected = 16
            case SyncTables.Key.nextSequence, SyncTables.Key.acknowledged, SyncTables.Key.includedSequence: expected = 8
            case SyncTables.Key.checkpoint: expected = nil
            case SyncTables.Key.lastRejection, SyncTables.Key.subscriptions:
                if OutboxFormat.decodeValue(value) == nil {
                    walk.report.add(VerificationProblem(.table, "The sync record '\(name)' is damaged", table: TableName.sync))
                }
                return
            default:
                walk.report.add(VerificationProblem(.table, "The sync table holds an unknown record '\(name)'", table: TableName.sync))
                return
            }
            if let expected, value.count != expected {
                walk.report.add(VerificationProblem(
                    .table, "The sync record '\(name)' has \(value.count) bytes instead of \(expected)", table: TableName.sync))
            }
        }, failed: { key in
            walk.report.add(VerificationProblem(
                .table, "The encrypted sync record '\(String(decoding: key, as: UTF8.self))' does not authenticate: it was damaged or altered",
                table: TableName.sync))
        })
    }
}
