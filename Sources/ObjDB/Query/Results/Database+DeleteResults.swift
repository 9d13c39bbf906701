extension Database {
    /// Deletes every object of live results, without reading them into objects.
    public func delete<T: Object>(_ results: Results<T>) {
        let context = requireWriteForDelete()
        guard let info = results.classInfo, !context.transaction.isDoomed else { return }
        _ = dooming(context) {
            try flushPendingWrites(context)
            if results.query.isPlainTable && !info.hasLinks && incomingLinks(info).isEmpty,
                try !mayHaveMixedLinks(to: info, context.transaction.requireTxn())
            {
                try deleting(context) { try deleteAllRows(info, context) }
                return
            }
            let keys = results.objectKeys()
            try deleting(context) {
                for key in keys { try deleteObject(info, key: key, context) }
            }
        }
    }
}
