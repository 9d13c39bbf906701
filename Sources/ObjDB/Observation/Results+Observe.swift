import Foundation

extension Results {
    /// Calls `block` with the results now (`.initial`) and whenever they change (`.update`,
    /// with Realm's indices; see ``CollectionChange``).
    ///
    /// ```swift
    /// let token = people.where { $0.age > 50 }.observe { change in
    ///     if case .update(_, let deletions, let insertions, let modifications) = change { … }
    /// }
    /// ```
    ///
    /// The first call comes at the database's next delivery point: ``Database/refresh()``, a
    /// commit of this database, or — on the main thread — the main queue's next turn. Later
    /// calls come when a commit changes what the results hold or what `keyPaths` watch (every
    /// property, and the objects linked from them, without `keyPaths`); a commit that changes
    /// nothing they show calls nothing.
    ///
    /// - Parameters:
    ///   - keyPaths: The properties whose changes count as modifications (`"dogs.name"` through
    ///     links); objects added and removed are always reported.
    ///   - block: Called in this database's isolation domain.
    /// - Returns: A token; notifications stop when it is invalidated or released.
    public func observe(
        keyPaths: [String]? = nil, _ block: @escaping (CollectionChange<Results<Element>>) -> Void
    ) -> NotificationToken {
        guard let info = classInfo else {
            objdbFatal("Results.observe: the class '\(query.className)' is not in this database's schema")
        }
        let observer = ResultsObserver(results: self, watch: Watch.parse(keyPaths, info, database, caller: "Results.observe"), block: block)
        database.observation().add(observer)
        return observer.control.token()
    }

    /// ``observe(keyPaths:_:)`` delivering on `queue`: the results are re-created there, on a
    /// database instance of the same file confined to that queue, and `block` receives those.
    ///
    /// Registration happens on `queue`: a commit made before the queue runs is part of the
    /// `.initial` state. Results of a table (filtered, sorted, limited) can be observed on a
    /// queue; for those of a list or linking objects, observe without a queue.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue?,
        _ block: @escaping @Sendable (CollectionChange<Results<Element>>) -> Void
    ) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        guard case .table = query.source else {
            objdbFatal("Results.observe(on:) is available for results of a table; observe results of a list or linking objects without a queue")
        }
        let control = ObserverControl()
        let request = UnsafeQueueRequest(configuration: database.configuration, query: query, keyPaths: keyPaths)
        let token = NotificationToken(control: control)
        queue.async {
            guard !control.isCancelled else { return }
            request.register(on: queue, control: control, block)
        }
        return token
    }
}

/// What `observe(on:)` sends to the queue: the configuration and the query of the results.
/// A query holds no objects or database (table results only), so it crosses as a value.
private struct UnsafeQueueRequest: @unchecked Sendable {
    let configuration: Configuration
    let query: ResultsQuery
    let keyPaths: [String]?

    /// On `queue`: opens a database there and registers the observer with it. The database
    /// lives until the observer is cancelled.
    func register<Element: ObjectBase>(
        on queue: DispatchQueue, control: ObserverControl, _ block: @escaping @Sendable (CollectionChange<Results<Element>>) -> Void
    ) {
        let database: Database
        do {
            database = try Database(configuration: configuration)
        } catch {
            control.cancel()
            block(.error(error))
            return
        }
        database.deliveryQueue = queue
        let results = Results<Element>(database: database, query: query)
        guard let info = results.classInfo else {
            control.cancel()
            block(.error(ObjDBError(.unknownClass, "The class '\(query.className)' is not in the file's schema")))
            return
        }
        let observer = ResultsObserver(
            results: results, watch: Watch.parse(keyPaths, info, database, caller: "Results.observe(on:)"), block: block, control: control)
        database.observation().add(observer)
    }
}
