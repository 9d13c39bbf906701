import Foundation
import Testing
@_spi(Inspection) import ObjDB
import ObjDBStore

/// Collections of the state stored as objects (one per element, written by difference), and
/// rehydration when someone else changes the stored state.
@MainActor
struct StoreCollectionTests {
    let scratch = Scratch()

    func makeStore(_ db: Database, external: Bool = false) throws -> Store<CounterState> {
        var persistence = StorePersistence<CounterState>.database(db, key: "app")
            .collection(\.items, as: ItemObject.self).writeInterval(.seconds(3600))
        if external { persistence = persistence.rehydratingExternalChanges() }
        return try Store(reducer: counterReducer, state: CounterState(), persistence: persistence)
    }

    static func items(_ count: Int) -> [Item] { (0..<count).map { Item(id: $0, title: "item \($0)") } }

    // Changing 1 of 10,000 elements writes that object only, and not the state object.
    @Test func changingOneElementWritesOneObject() throws {
        let db = try scratch.open()
        let store = try makeStore(db)
        store.dispatch(CounterStateAction.setItems(Self.items(10_000)))
        try store.flush()
        #expect(db.objects(ItemObject.self).count == 10_000)
        let stateStamp = try #require(db.object(ofType: StoreStateObject.self, forPrimaryKey: "app")).updatedAt

        var changes: [(deletions: [Int], insertions: [Int], modifications: [Int])] = []
        let token = db.objects(ItemObject.self).observe { change in
            if case .update(_, let d, let i, let m) = change { changes.append((d, i, m)) }
        }
        db.refresh()
        store.dispatch(CounterStateAction.setTitle(id: 4_321, "changed"))
        try store.flush()
        #expect(changes.count == 1)
        #expect(changes.first?.deletions == [])
        #expect(changes.first?.insertions == [])
        #expect(changes.first?.modifications.count == 1)
        #expect(db.object(ofType: ItemObject.self, forPrimaryKey: 4_321)?.title == "changed")
        #expect(db.object(ofType: StoreStateObject.self, forPrimaryKey: "app")?.updatedAt == stateStamp)
        token.invalidate()
    }

    // The state's JSON leaves the collection out; relaunching restores elements and order.
    @Test func relaunchRestoresTheCollectionInOrder() throws {
        do {
            let store = try makeStore(try scratch.open())
            store.dispatch(CounterStateAction.setItems([Item(id: 3, title: "c"), Item(id: 1, title: "a"), Item(id: 2, title: "b", done: true)]))
            try store.flush()
            store.dispatch(CounterStateAction.setItems([Item(id: 2, title: "b", done: true), Item(id: 3, title: "c")]))
            try store.flush()
        }
        #expect(try storedState(scratch.file(), key: "app")?.json == #"{"count":0,"items":[],"name":"initial"}"#)
        let db = try scratch.open()
        #expect(db.objects(ItemObject.self).count == 2)  // the removed element's object is deleted
        let store = try makeStore(db)
        #expect(store.state.items == [Item(id: 2, title: "b", done: true), Item(id: 3, title: "c")])
    }

    // A dictionary of elements by id is stored the same way.
    @Test func dictionariesAreStoredAsObjects() throws {
        struct Keyed: Codable, Equatable { var items: [Int: Item] = [:] }
        struct Put: Action { var item: Item }
        func open() throws -> Store<Keyed> {
            try Store(reducer: { (action: any Action, state: Keyed) in
                var state = state
                if let put = action as? Put { state.items[put.item.id] = put.item }
                return state
            }, state: Keyed(), persistence: .database(try scratch.open(), key: "keyed").collection(\.items, as: ItemObject.self))
        }
        do {
            let store = try open()
            store.dispatch(Put(item: Item(id: 7, title: "seven")))
            store.dispatch(Put(item: Item(id: 8, title: "eight")))
            try store.flush()
        }
        #expect(try open().state.items == [7: Item(id: 7, title: "seven"), 8: Item(id: 8, title: "eight")])
    }

    // With rehydration on, a change by another instance of the file (as another process or
    // objdb would make) reaches the store as a StoreRehydrated action.
    @Test func externalChangesRehydrateTheStore() async throws {
        let db = try scratch.open()
        var actions: [String] = []
        let store = try Store(
            reducer: counterReducer, state: CounterState(),
            middleware: [{ _, _ in { next in { action in
                actions.append("\(type(of: action))")
                next(action)
            } } }],
            persistence: .database(db, key: "app").collection(\.items, as: ItemObject.self).rehydratingExternalChanges())
        store.dispatch(CounterStateAction.setItems([Item(id: 1, title: "mine")]))
        try store.flush()

        let other = try Database(configuration: Configuration(fileURL: scratch.file()))
        try other.write {
            let object = try #require(other.object(ofType: ItemObject.self, forPrimaryKey: 1))
            object.title = "theirs"
            let added = ItemObject()
            added.update(from: Item(id: 2, title: "added"))
            try other.add(added)
        }
        #expect(await eventually { store.state.items.count == 2 })
        #expect(store.state.items == [Item(id: 1, title: "theirs"), Item(id: 2, title: "added")])
        #expect(actions.last == "StoreRehydrated<CounterState>")
        // A state read from the database is not written back.
        let committed = db.lastCommittedTransactionID
        try await Task.sleep(for: .milliseconds(300))
        #expect(db.lastCommittedTransactionID == committed)

        // The state object changed from outside.
        try other.write {
            let object = try #require(other.object(ofType: StoreStateObject.self, forPrimaryKey: "app"))
            object.json = #"{"count":41,"items":[],"name":"edited"}"#
        }
        #expect(await eventually { store.state.count == 41 })
        #expect(store.state.name == "edited")
        #expect(store.state.items.count == 2)
        // The store's own writes do not come back as rehydrations.
        let rehydrations = actions.filter { $0.hasPrefix("StoreRehydrated") }.count
        store.dispatch(CounterStateAction.increase)
        try store.flush()
        try await Task.sleep(for: .milliseconds(100))
        #expect(actions.filter { $0.hasPrefix("StoreRehydrated") }.count == rehydrations)
        #expect(store.state.count == 42)
    }

    /// A store that rehydrates, with the names of the actions its middleware saw.
    func rehydratingStore(_ db: Database) throws -> (Store<CounterState>, () -> [String]) {
        final class Log { var actions: [String] = [] }
        let log = Log()
        let store = try Store(
            reducer: counterReducer, state: CounterState(),
            middleware: [{ _, _ in { next in { action in
                log.actions.append("\(type(of: action))")
                next(action)
            } } }],
            persistence: .database(db, key: "app").collection(\.items, as: ItemObject.self).rehydratingExternalChanges())
        return (store, { log.actions })
    }

    // The state object deleted from outside is written again, whole.
    @Test func aDeletedStateIsWrittenAgain() async throws {
        let db = try scratch.open()
        let (store, _) = try rehydratingStore(db)
        store.dispatch(CounterStateAction.rename("mine"))
        try store.flush()
        let other = try Database(configuration: Configuration(fileURL: scratch.file()))
        try other.write {
            other.delete(try #require(other.object(ofType: StoreStateObject.self, forPrimaryKey: "app")))
        }
        #expect(await eventually { (try? storedState(scratch.file(), key: "app")?.json.contains("mine")) == true })
        #expect(store.state.name == "mine")
    }

    // The store's own commit made inside the app's write comes back as a notification; it
    // is not a change, and dispatches nothing.
    @Test func theStoresOwnWritesAreNotRehydrated() async throws {
        let db = try scratch.open()
        let (store, actions) = try rehydratingStore(db)
        store.dispatch(CounterStateAction.rename("joined"))
        try db.write { try store.flush() }
        try store.flush()
        try await Task.sleep(for: .milliseconds(300))
        #expect(!actions().contains { $0.hasPrefix("StoreRehydrated") })
        #expect(store.state.name == "joined")
    }
}
