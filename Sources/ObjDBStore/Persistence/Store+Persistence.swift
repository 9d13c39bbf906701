import ObjDB

extension Store where State: Codable {
    /// Creates a store whose state persists into a database: the stored state when there is
    /// one (migrated to `persistence`'s version), else `state`, which is then stored.
    ///
    /// ```swift
    /// let store = try Store(
    ///     reducer: appReducer,
    ///     state: AppState(),   // used only when nothing is persisted yet
    ///     persistence: .database(db, key: "app", version: 2, migrations: [2: migrateV1toV2])
    /// )
    /// ```
    ///
    /// The state is read before the store exists: no subscriber or middleware ever sees the
    /// initial state in place of the stored one, and no action is dispatched at launch. After
    /// each dispatch the new state is written within the persistence's write interval — one
    /// write transaction per burst — and ``flush()`` writes it at once.
    ///
    /// - Throws: ``ObjDB/ObjDBError`` — `stateNotDecodable` when the stored state does not
    ///   decode as `State` (the stored data is left as it was), `migrationFailed` when a state
    ///   migration is missing or throws, `migrationRequired` when the stored version is newer
    ///   than `persistence`'s, `unknownClass` when the database's `objectTypes` leave out
    ///   ``StoreStateObject`` or a collection's class, and any error of the write.
    public convenience init(
        reducer: @escaping Reducer<State>, state: State, middleware: [Middleware<State>] = [],
        automaticallySkipsRepeats: Bool = true, persistence: StorePersistence<State>
    ) throws {
        let driver = try PersistenceDriver(persistence, initial: state)
        self.init(
            reducer: reducer, state: driver.state, middleware: middleware,
            automaticallySkipsRepeats: automaticallySkipsRepeats)
        self.persistence = (driver.stateDidChange(to:), driver.flush)
        driver.lifetime = lifetime
        driver.rehydrate = { [weak self] state in self?.dispatch(StoreRehydrated(state: state)) }
        driver.startObserving()
    }
}

extension Store {
    /// Writes the state now if a dispatch changed it since the last write (persisted stores
    /// only; otherwise does nothing). Inside a write transaction of the store's database, the
    /// state is written into it.
    ///
    /// ```swift
    /// store.dispatch(TodoAction.add("milk"))
    /// try store.flush()   // on disk when this returns
    /// ```
    public func flush() throws {
        try persistence?.flush()
    }
}
