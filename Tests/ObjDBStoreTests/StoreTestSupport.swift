import Foundation
import ObjDB
import ObjDBStore

/// A temporary directory removed when released.
final class Scratch: Sendable {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("objdb-store-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    /// A file in the directory.
    func file(_ name: String = "store.objdb") -> URL { url.appendingPathComponent(name) }

    /// Opens the directory's database on the main actor, its classes listed when `types` is given.
    @MainActor func open(_ types: [ObjectBase.Type]? = nil, name: String = "store.objdb") throws -> Database {
        try Database(configuration: Configuration(fileURL: file(name), objectTypes: types))
    }
}

/// The state of most persistence tests.
struct CounterState: Codable, Equatable {
    var count = 0
    var name = "initial"
    var items: [Item] = []
}

/// An element of a collection stored as objects.
struct Item: Identifiable, Codable, Equatable {
    var id: Int
    var title: String
    var done = false
}

/// Stores an ``Item``.
final class ItemObject: Object, StoreEntity {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var title: String = ""
    @Persisted var done: Bool = false

    var value: Item { Item(id: id, title: title, done: done) }
    func update(from item: Item) {
        id = item.id
        title = item.title
        done = item.done
    }
}

/// The actions of ``counterReducer``.
enum CounterStateAction: Action {
    case increase
    case rename(String)
    case setItems([Item])
    case setTitle(id: Int, String)
}

func counterReducer(action: any Action, state: CounterState) -> CounterState {
    var state = state
    switch action as? CounterStateAction {
    case .increase: state.count += 1
    case .rename(let name): state.name = name
    case .setItems(let items): state.items = items
    case .setTitle(let id, let title):
        if let index = state.items.firstIndex(where: { $0.id == id }) { state.items[index].title = title }
    case nil: break
    }
    return state
}

/// The stored state object of `key`, read by a fresh instance of the file.
func storedState(_ url: URL, key: String) throws -> (version: Int, json: String)? {
    let db = try Database(configuration: Configuration(fileURL: url))
    guard let object = db.object(ofType: StoreStateObject.self, forPrimaryKey: key) else { return nil }
    return (object.version, object.json)
}

/// Waits for `condition`, letting the main actor run meanwhile: gives up after `seconds` and at
/// least `rounds` turns. Both limits are generous: in a full parallel test run, long synchronous
/// tests can hold every thread of the cooperative pool for a minute, and the main actor (and a
/// store's scheduled write on it) runs only between them; counting turns, not only time, keeps
/// a starved wait from giving up before the work it waits for had its turn.
@MainActor func eventually(_ seconds: Double = 60, rounds: Int = 1_000, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    var round = 0
    while !condition() {
        if Date() > deadline && round >= rounds { return false }
        round += 1
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
