extension Database {
    /// Makes the pages freed by a transaction that only deleted reusable by the next write, with
    /// one small transaction of its own. Runs when the deletes left the file near
    /// `maximumSize` or past it (``Environment/deletesLeftFileNearLimit()``).
    ///
    /// LMDB keeps the newest two versions of the file intact (one per meta page, so that a crash
    /// during a commit falls back to the one before), so a page freed by transaction n can be
    /// reused only from transaction n + 2 on. Without this commit, the first write after
    /// deleting at a full map would find none of the freed space and take new pages from the
    /// reserve kept for deletes (``SpaceReserve``). It rewrites the `format` record with the
    /// bytes it holds: the file's contents do not change. Best effort: if it cannot run (this
    /// thread writes through another instance, the reserve is used up), the space becomes
    /// reusable one transaction later instead.
    func settleAfterDeletes() {
        // try?: best effort (see above): the deletes are committed either way.
        guard let write = try? WriteTransaction(environment) else { return }
        let txn = write.txn
        do {
            if let format = try FileMeta.get(txn, metaTable, FileMeta.Key.format).map(Array.init) {
                try FileMeta.put(txn, metaTable, FileMeta.Key.format, format)
            }
            try write.commit(mayUseReserve: true)
        } catch {
            // Nothing was kept; the deletes were committed before.
        }
    }
}
