import Foundation
import ObjDB
import ObjDBStore

/// Opens the database (migrating it at launch) and the persisted store.
@MainActor
enum TodoApp {
    /// The database's configuration. Schema version 1 renames `text` to `title`; version 2
    /// makes ids strings (sync needs a `String`, `UUID` or `ObjectId` primary key): an old id
    /// becomes its decimal text, and the store's recorded order of the todos follows; version 3
    /// adds each todo's `owner` (empty for the todos made before).
    static func configuration(_ url: URL) -> Configuration {
        var config = Configuration(fileURL: url)
        config.objectTypes = [TodoObject.self, StoreStateObject.self]
        config.schemaVersion = 3
        config.migrationBlock = { migration, oldVersion in
            if oldVersion < 1 {
                migration.renameProperty(onType: "Todo", from: "text", to: "title")
            }
            if oldVersion < 2 {
                try migration.enumerateObjects(ofType: "Todo") { old, new in
                    guard let old, let new else { return }
                    try new.setValue(try decimalID(old.value(forKey: "id")), forKey: "id")
                }
                // The store reads its array's order from the state object: its ids must be
                // strings too, or the order would no longer decode.
                try migration.enumerateObjects(ofType: StoreStateObject.className) { _, new in
                    guard let new, let order = try new.value(forKey: "collectionOrder") as? String else { return }
                    try new.setValue(try orderWithStringIDs(order, of: "Todo"), forKey: "collectionOrder")
                }
            }
        }
        return config
    }

    /// An `Int` id of schema version 1 as its decimal text.
    nonisolated static func decimalID(_ value: Any?) throws -> String {
        guard let id = value as? Int else {
            throw ObjDBError(.migrationFailed, "A Todo has the id \(value.map { "\($0)" } ?? "nil"), not an integer", className: "Todo")
        }
        return String(id)
    }

    /// `order` (a state object's `collectionOrder`, `{"Todo":[2,1]}`) with the ids of
    /// `className` as strings (`{"Todo":["2","1"]}`); other classes as they were.
    nonisolated static func orderWithStringIDs(_ order: String, of className: String) throws -> String {
        guard !order.isEmpty, var orders = try JSONSerialization.jsonObject(with: Data(order.utf8)) as? [String: Any],
            let ids = orders[className] as? [Any]
        else { return order }
        orders[className] = try ids.map { id -> String in
            if let text = id as? String { return text }
            return try decimalID(id)
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: orders, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The state migrations: version 2 stores the next id instead of the last one; version 3
    /// drops the counter (ids are random now).
    static let stateMigrations: [Int: StorePersistence<TodoState>.StateMigration] = [
        2: { state in
            let last = state["lastID"] as? Int ?? 0
            state["lastID"] = nil
            state["nextID"] = last + 1
        },
        3: { state in
            state["nextID"] = nil
        },
    ]

    /// The store over `db`, its todos stored as ``TodoObject``s.
    static func store(_ db: Database, watching: Bool = false) throws -> Store<TodoState> {
        var persistence = StorePersistence<TodoState>
            .database(db, key: "todo", version: 3, migrations: stateMigrations)
            .collection(\.todos, as: TodoObject.self)
        if watching { persistence = persistence.rehydratingExternalChanges() }
        return try Store(reducer: todoReducer, state: TodoState(), persistence: persistence)
    }

    /// A new todo id: the first 8 hex characters of a random UUID, lowercased (`3f9a2c01`),
    /// drawn again while `taken` has it.
    ///
    /// 32 random bits, not the UUID's 122: short enough to type, and unique enough for a todo
    /// list, but not certain: two devices can draw the same id (among 1,000 todos the chance
    /// that two share one is about 1 in 8,600), and sync would then merge the two todos into
    /// one. The local check covers only the todos this device knows.
    static func newID(taken: Set<String>) -> String {
        while true {
            let id = String(UUID().uuidString.lowercased().prefix(8))
            if !taken.contains(id) { return id }
        }
    }

    /// The todo `argument` names: the one whose id it is, else the one whose id starts with it.
    ///
    /// - Throws: ``TodoFailure`` when no todo matches or several do (naming them).
    static func todo(matching argument: String, in todos: [Todo]) throws -> Todo {
        let prefix = argument.lowercased()
        if let exact = todos.first(where: { $0.id == prefix }) { return exact }
        let candidates = prefix.isEmpty ? [] : todos.filter { $0.id.hasPrefix(prefix) }
        guard let first = candidates.first else { throw TodoFailure("there is no todo \(argument)") }
        guard candidates.count == 1 else {
            throw TodoFailure("'\(argument)' names several todos: \(candidates.map(\.id).joined(separator: ", "))")
        }
        return first
    }
}

/// A mistake of the user's (an unknown id, a missing argument): printed as `todo: <message>`,
/// exit status 1.
struct TodoFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
