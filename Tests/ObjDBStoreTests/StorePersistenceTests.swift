import Foundation
import Testing
@_spi(Inspection) import ObjDB
import ObjDBStore
import ObjDBTestProcesses

/// The state persisted into the database: rehydrated at launch, written in coalesced
/// transactions, flushed, and failures reported and retried.
@MainActor
struct StorePersistenceTests {
    let scratch = Scratch()

    func makeStore(_ db: Database, initial: CounterState = CounterState(), middleware: [Middleware<CounterState>] = [],
                   interval: Duration = .seconds(3600)) throws -> Store<CounterState> {
        try Store(
            reducer: counterReducer, state: initial, middleware: middleware,
            persistence: .database(db, key: "app").writeInterval(interval))
    }

    // A new store over the reopened file has exactly the state the last one flushed.
    @Test func relaunchRestoresTheState() throws {
        do {
            let store = try makeStore(try scratch.open())
            for _ in 0..<3 { store.dispatch(CounterStateAction.increase) }
            store.dispatch(CounterStateAction.rename("saved"))
            try store.flush()
        }
        let store = try makeStore(try scratch.open(), initial: CounterState(count: 99, name: "ignored"))
        #expect(store.state == CounterState(count: 3, name: "saved"))
    }

    // With nothing stored, the initial state is used and stored at once (for objdb to read).
    @Test func theInitialStateIsStoredWhenNothingIs() throws {
        let db = try scratch.open()
        let store = try makeStore(db, initial: CounterState(count: 7))
        #expect(store.state.count == 7)
        let stored = try #require(try storedState(scratch.file(), key: "app"))
        #expect(stored.version == 1)
        #expect(stored.json == #"{"count":7,"items":[],"name":"initial"}"#)
    }

    // No subscriber or middleware ever sees the initial state in place of the stored one, and
    // nothing is dispatched at launch.
    @Test func nothingSeesTheInitialStateOfAStoredStore() throws {
        do {
            let store = try makeStore(try scratch.open())
            store.dispatch(CounterStateAction.rename("stored"))
            try store.flush()
        }
        var middlewareSaw: [String] = []
        let recording: Middleware<CounterState> = { _, getState in { next in { action in
            middlewareSaw.append(getState()?.name ?? "nil")
            next(action)
        } } }
        let store = try makeStore(try scratch.open(), initial: CounterState(name: "initial"), middleware: [recording])
        var seen: [String] = []
        store.subscribe { (state: CounterState) in seen.append(state.name) }
        store.dispatch(CounterStateAction.increase)
        #expect(seen == ["stored", "stored"])
        #expect(middlewareSaw == ["stored"])
    }

    // A burst of 1,000 dispatches is one write transaction, made after the interval.
    @Test func aBurstOfDispatchesIsOneWriteTransaction() async throws {
        let db = try scratch.open()
        let store = try makeStore(db, interval: .milliseconds(20))
        let before = db.lastCommittedTransactionID
        for _ in 0..<1_000 { store.dispatch(CounterStateAction.increase) }
        #expect(db.lastCommittedTransactionID == before)  // nothing written during the burst
        #expect(await eventually { db.lastCommittedTransactionID > before })
        try await Task.sleep(for: .milliseconds(100))
        #expect(db.lastCommittedTransactionID - before == 1)
        #expect(try storedState(scratch.file(), key: "app")?.json.contains(#""count":1000"#) == true)
    }

    // flush() writes at once; a second flush without a new state writes nothing.
    @Test func flushWritesNow() throws {
        let db = try scratch.open()
        let store = try makeStore(db)
        store.dispatch(CounterStateAction.increase)
        #expect(try storedState(scratch.file(), key: "app")?.json.contains(#""count":0"#) == true)
        try store.flush()
        #expect(try storedState(scratch.file(), key: "app")?.json.contains(#""count":1"#) == true)
        let id = db.lastCommittedTransactionID
        try store.flush()
        #expect(db.lastCommittedTransactionID == id)
    }

    // Inside a write transaction of the database, flush() writes into it: both commit together.
    @Test func flushInsideAWriteJoinsIt() throws {
        let db = try scratch.open()
        let store = try makeStore(db)
        store.dispatch(CounterStateAction.increase)
        try db.write {
            try store.flush()
            db.cancelWrite()
        }
        #expect(try storedState(scratch.file(), key: "app")?.json.contains(#""count":0"#) == true)
        try store.flush()  // still pending: the cancelled write did not count
        #expect(try storedState(scratch.file(), key: "app")?.json.contains(#""count":1"#) == true)
    }

    // A failed write goes to the error handler, keeps the state in memory, and is retried.
    @Test func failedWritesAreReportedAndRetried() async throws {
        let db = try scratch.open()
        var errors: [ObjDBError] = []
        let store = try Store(
            reducer: counterReducer, state: CounterState(),
            persistence: .database(db, key: "app").collection(\.items, as: ItemObject.self)
                .writeInterval(.milliseconds(10)).onError { errors.append(($0 as? ObjDBError) ?? ObjDBError(.storage, "\($0)")) })
        // Two elements with one id cannot be stored as two objects.
        store.dispatch(CounterStateAction.setItems([Item(id: 1, title: "a"), Item(id: 1, title: "b")]))
        #expect(await eventually { !errors.isEmpty })
        #expect(errors.first?.code == .primaryKeyExists)
        #expect(errors.first?.message.contains("have the id 1") == true)
        #expect(store.state.items.count == 2)  // the state in memory is kept
        store.dispatch(CounterStateAction.setItems([Item(id: 1, title: "a"), Item(id: 2, title: "b")]))
        #expect(await eventually { db.objects(ItemObject.self).count == 2 })
        let reopened = try Store(
            reducer: counterReducer, state: CounterState(),
            persistence: .database(try scratch.open(name: "store.objdb"), key: "app").collection(\.items, as: ItemObject.self))
        #expect(reopened.state.items.map(\.title) == ["a", "b"])
    }

    // A store released before its scheduled write still writes.
    @Test func aReleasedStoreStillWritesItsLastState() async throws {
        let db = try scratch.open()
        do {
            let store = try makeStore(db, interval: .milliseconds(10))
            store.dispatch(CounterStateAction.rename("last"))
        }
        #expect(await eventually { (try? storedState(scratch.file(), key: "app")?.json.contains("last")) == true })
    }

    // Listed classes must include the store's: a clear error otherwise.
    @Test func configuredClassesMustIncludeTheStoresClasses() throws {
        let db = try scratch.open([ItemObject.self])
        #expect {
            try makeStore(db)
        } throws: { error in
            let error = error as? ObjDBError
            return error?.code == .unknownClass && error?.message.contains("add StoreStateObject.self to Configuration.objectTypes") == true
        }
        let listed = try scratch.open([StoreStateObject.self], name: "listed.objdb")
        #expect {
            try Store(reducer: counterReducer, state: CounterState(),
                      persistence: .database(listed, key: "app").collection(\.items, as: ItemObject.self))
        } throws: { error in
            (error as? ObjDBError)?.message.contains("add ItemObject.self") == true
        }
    }

    // A killed process loses nothing it flushed.
    @Test func aProcessKilledAfterFlushLosesNothing() throws {
        let url = scratch.file()
        let helper = try TestProcess("ObjDBTestHelper", ["store-count", url.path, "250"])
        #expect(helper.readLine() == "flushed")
        helper.kill()
        let stored = try #require(try storedState(url, key: "counter"))
        #expect(stored.json == #"{"count":250}"#)
    }

    // A flush inside the app's write that commits, then a return to the earlier state: the
    // file ends with the state in memory (the joined write is not trusted as written).
    @Test func aJoinedFlushThatCommitsIsNotTrustedAsWritten() throws {
        let db = try scratch.open()
        let store = try Store(
            reducer: counterReducer, state: CounterState(),
            persistence: .database(db, key: "app").collection(\.items, as: ItemObject.self).writeInterval(.seconds(3600)))
        store.dispatch(CounterStateAction.rename("x"))
        store.dispatch(CounterStateAction.setItems([Item(id: 1, title: "one")]))
        try db.write { try store.flush() }
        #expect(try storedState(scratch.file(), key: "app")?.json.contains(#""name":"x""#) == true)
        store.dispatch(CounterStateAction.rename("initial"))
        store.dispatch(CounterStateAction.setItems([]))
        try store.flush()
        let reopened = try Store(
            reducer: counterReducer, state: CounterState(name: "fresh"),
            persistence: .database(try scratch.open(), key: "app").collection(\.items, as: ItemObject.self))
        #expect(reopened.state == CounterState(name: "initial"))
        #expect(db.objects(ItemObject.self).isEmpty)
    }

    // A write that keeps failing is retried without new dispatches, but less and less often.
    @Test func failingWritesAreRetriedWithBackoff() async throws {
        let db = try scratch.open()
        var calls = 0
        let store = try Store(
            reducer: counterReducer, state: CounterState(),
            persistence: .database(db, key: "app").collection(\.items, as: ItemObject.self)
                .writeInterval(.zero).onError { _ in calls += 1 })
        store.dispatch(CounterStateAction.setItems([Item(id: 1, title: "a"), Item(id: 1, title: "b")]))
        #expect(await eventually { calls >= 3 })  // retried twice without a dispatch
        let reached = calls
        try await Task.sleep(for: .milliseconds(500))
        // Delays of 50, 100, 200, 400 ms… : at most a few more in half a second (a busy loop
        // made thousands).
        #expect(calls - reached <= 4)
    }

    // A store never writes over a state a newer version of the app stored meanwhile.
    @Test func aNewerStoredVersionIsNotOverwritten() throws {
        let db = try scratch.open()
        var errors: [ObjDBError] = []
        let store = try Store(
            reducer: counterReducer, state: CounterState(),
            persistence: .database(db, key: "app").writeInterval(.seconds(3600)).onError { errors.append(($0 as? ObjDBError) ?? ObjDBError(.storage, "")) })
        let other = try Database(configuration: Configuration(fileURL: scratch.file()))
        try other.write {
            let object = try #require(other.object(ofType: StoreStateObject.self, forPrimaryKey: "app"))
            object.version = 2
            object.json = #"{"v2":true}"#
        }
        store.dispatch(CounterStateAction.increase)
        #expect {
            try store.flush()
        } throws: { error in
            (error as? ObjDBError)?.code == .migrationRequired
                && (error as? ObjDBError)?.message.contains("written at version 2 by a newer version of the app") == true
        }
        let stored = try #require(try storedState(scratch.file(), key: "app"))
        #expect(stored.version == 2)
        #expect(stored.json == #"{"v2":true}"#)
    }

    // A stored state at the store's version is read without a write transaction: a read-only
    // database can host the store, and the launch commits nothing.
    @Test func aCurrentStoredStateIsReadWithoutWriting() throws {
        do {
            let store = try makeStore(try scratch.open())
            store.dispatch(CounterStateAction.rename("stored"))
            try store.flush()
        }
        let db = try scratch.open()
        let before = db.lastCommittedTransactionID
        let store = try makeStore(db)
        #expect(store.state.name == "stored")
        #expect(db.lastCommittedTransactionID == before)
        let readOnly = try Database(configuration: Configuration(fileURL: scratch.file(), readOnly: true))
        let reader = try Store(reducer: counterReducer, state: CounterState(), persistence: .database(readOnly, key: "app"))
        #expect(reader.state.name == "stored")
    }
}
