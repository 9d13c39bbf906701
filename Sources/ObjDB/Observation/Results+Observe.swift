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
    /// commit of this database, or — opened by main-actor code or an actor — the main queue's
    /// or the actor's next turn. Later
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
    /// `.initial` state. Results of a list or linking objects find their object again there;
    /// if it was deleted meanwhile, `block` gets `.error` (``ObjDBError/Code/objectInvalidated``).
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue?,
        _ block: @escaping @Sendable (CollectionChange<Results<Element>>) -> Void
    ) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        let query = FrozenQuery(query)
        return QueueObservation.start(database.configuration, on: queue, failed: { block(.error($0)) }) { database, control in
            guard let query = query.query(in: database) else { throw QueueObservation.vanished(query.className) }
            let results = Results<Element>(database: database, query: query)
            guard let info = results.classInfo else {
                throw ObjDBError(.unknownClass, "The class '\(query.className)' is not in the file's schema")
            }
            return ResultsObserver(
                results: results, watch: Watch.parse(keyPaths, info, database, caller: "Results.observe(on:)"), block: block, control: control)
        }
    }
}

/// Observations delivered on a queue: a database instance of the same file is opened on the
/// queue, and the observer is registered with it there.
enum QueueObservation {
    /// Opens a database on `queue`, then registers the observer `make` builds with it (with
    /// the control of the returned token); `failed` gets what went wrong instead, on the queue.
    /// The database lives as long as the observer holds what it observes.
    ///
    /// Everything runs on a serial queue of its own that targets `queue`: a concurrent queue
    /// (a global queue, say) would otherwise run two deliveries at once on the same instance.
    /// Blocks still run on `queue`'s threads, and `dispatchPrecondition(condition: .onQueue(queue))`
    /// holds in them.
    static func start(
        _ configuration: Configuration, on target: DispatchQueue, failed: @escaping @Sendable (any Error) -> Void,
        _ make: @escaping @Sendable (Database, ObserverControl) throws -> any Observer
    ) -> NotificationToken {
        let control = ObserverControl()
        let token = NotificationToken(control: control)
        let queue = DispatchQueue(label: "ObjDB observation", target: target)
        queue.async {
            guard !control.isCancelled else { return }
            do {
                let database = try Database(configuration: configuration)
                // The queue's instance serves this observation alone: thaw() never hands it out.
                LiveInstances.shared.unregister(database)
                database.notifications.queue = queue
                database.observation().add(try make(database, control))
            } catch {
                control.cancel()
                failed(error)
            }
        }
        return token
    }

    /// The error for an observed collection whose object was deleted before the queue ran.
    static func vanished(_ className: String) -> ObjDBError {
        ObjDBError(
            .objectInvalidated, "The object holding the observed '\(className)' collection was deleted before the queue registered the observer",
            className: className)
    }
}
