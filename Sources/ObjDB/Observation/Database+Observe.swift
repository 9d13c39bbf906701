import Foundation

extension Database {
    /// What a database observer is told.
    public enum Notification: Sendable {
        /// The database moved to a new version: its own commit, ``refresh()``, or a commit by
        /// another instance or process delivered while ``autorefresh`` is on.
        case didChange
        /// Another instance or process committed, and ``autorefresh`` is off: call
        /// ``refresh()`` to see it.
        case refreshRequired
    }

    /// Calls `block` whenever the database moves to a new version.
    ///
    /// ```swift
    /// let token = db.observe { notification, db in
    ///     if notification == .didChange { updateBadge(db.objects(Message.self).count) }
    /// }
    /// ```
    ///
    /// Calls come at this instance's commits, at ``refresh()``, and — for a database opened by
    /// main-actor code or an actor — on the main queue or the actor when another instance or
    /// process commits.
    public func observe(_ block: @escaping (Notification, Database) -> Void) -> NotificationToken {
        let observer = DatabaseObserver(database: self, block: block)
        observation().add(observer)
        return observer.control.token()
    }

    /// Whether notifications of commits by other instances and processes move this database to
    /// the newest version by themselves (the default). When off, observers are called at
    /// ``refresh()`` only, and database observers get ``Notification/refreshRequired``.
    public var autorefresh: Bool {
        get { notifications.refreshesAutomatically }
        set { notifications.refreshesAutomatically = newValue }
    }

    /// Runs `block` in a write transaction and commits it without notifying the observers of
    /// `tokens` of its changes (they will not hear of them later either), as
    /// ``write(_:)`` does otherwise.
    ///
    /// ```swift
    /// try db.write(withoutNotifying: [tableToken]) { person.name = editedName }
    /// ```
    public func write<Result>(withoutNotifying tokens: [NotificationToken], _ block: () throws -> Result) throws -> Result {
        try write {
            let result = try block()
            skipNotifications(for: tokens)
            return result
        }
    }

    /// Commits the write transaction begun with ``beginWrite()`` without notifying the
    /// observers of `tokens` of its changes.
    @available(*, noasync, message: "Use write(withoutNotifying:_:) in asynchronous code: a write transaction must end on the thread that began it")
    public func commitWrite(withoutNotifying tokens: [NotificationToken]) throws {
        skipNotifications(for: tokens)
        try commitWrite()
    }

    private func skipNotifications(for tokens: [NotificationToken]) {
        guard !tokens.isEmpty else { return }
        let center = observation()
        objdbPrecondition(
            tokens.allSatisfy { $0.control.isCancelled || center.observes($0.control) },
            "write(withoutNotifying:) was given the token of an observer registered on another Database instance (or through observe(on:), which observes on the queue's own instance); only this instance's observers can be skipped")
        center.skipping.formUnion(tokens.map { ObjectIdentifier($0.control) })
    }

    /// The observation center, created on first use.
    /// The observers of this instance, if any were registered (``Database/observers``).
    var observationCenter: ObservationCenter? {
        notifications.observers.map { unsafeDowncast($0, to: ObservationCenter.self) }
    }

    func observation() -> ObservationCenter {
        if let center = observationCenter { return center }
        objdbPrecondition(
            frozenVersion == nil,
            "observe was called on a frozen database, object or collection; a frozen version never changes, so it has no notifications. Observe the live one (thaw() it)")
        let center = ObservationCenter(database: self, queue: notifications.queue, actor: notifications.actor)
        notifications.observers = center
        return center
    }
}
