import CLMDB

/// A table of the current write transaction that is still being filled by one walk, and what
/// must happen before anything else uses it.
///
/// The layer above installs a guard (``Environment/writerTableGuard``) while it fills a table
/// through a cursor it opened before: any other use of the table in the write transaction — a
/// cursor opened on it, a get, put, reserve, delete, count or empty through ``Txn`` — first
/// runs ``hook`` once, which completes the table, and then goes on. Cursors open before the
/// guard (the filling walk's own) are not watched. Read-only transactions read committed
/// versions and never see the table being filled, so they do not look at the guard.
///
/// Used by migrations that rewrite a class's rows together with the migration block's
/// enumeration of them (``FusedRewrite``).
final class TableGuard {
    /// The guarded table.
    let dbi: MDB_dbi
    /// Runs once, at the first watched use; `nil` once it has run.
    private var hook: (() -> Void)?

    init(_ table: Table, hook: @escaping () -> Void) {
        dbi = table.dbi
        self.hook = hook
    }

    /// Runs the hook if it has not run yet, having removed the guard from `environment`, so
    /// that the hook's own uses of the table are not watched.
    func fire(in environment: Environment) {
        guard let hook else { return }
        self.hook = nil
        if environment.writerTableGuard === self { environment.writerTableGuard = nil }
        hook()
    }
}

extension Txn {
    /// Runs the write transaction's table guard (``TableGuard``) if `table` is the guarded one.
    @inline(__always)
    func useOf(_ table: Table) {
        guard !isReadOnly else { return }
        Unmanaged.passUnretained(environment)._withUnsafeGuaranteedRef { environment in
            if let tableGuard = environment.writerTableGuard, tableGuard.dbi == table.dbi { tableGuard.fire(in: environment) }
        }
    }
}
