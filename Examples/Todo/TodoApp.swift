import Foundation
import ObjDB
import ObjDBStore

/// Opens the database (migrating it at launch) and the persisted store.
@MainActor
enum TodoApp {
    /// The database's configuration: schema version 1 renames `text` to `title`.
    static func configuration(_ url: URL) -> Configuration {
        var config = Configuration(fileURL: url)
        config.objectTypes = [TodoObject.self, StoreStateObject.self]
        config.schemaVersion = 1
        config.migrationBlock = { migration, oldVersion in
            if oldVersion < 1 {
                migration.renameProperty(onType: "Todo", from: "text", to: "title")
            }
        }
        return config
    }

    /// The state migrations: version 2 stores the next id instead of the last one.
    static let stateMigrations: [Int: StorePersistence<TodoState>.StateMigration] = [
        2: { state in
            let last = state["lastID"] as? Int ?? 0
            state["lastID"] = nil
            state["nextID"] = last + 1
        }
    ]

    /// The store over `db`, its todos stored as ``TodoObject``s.
    static func store(_ db: Database, watching: Bool = false) throws -> Store<TodoState> {
        var persistence = StorePersistence<TodoState>
            .database(db, key: "todo", version: 2, migrations: stateMigrations)
            .collection(\.todos, as: TodoObject.self)
        if watching { persistence = persistence.rehydratingExternalChanges() }
        return try Store(reducer: todoReducer, state: TodoState(), persistence: persistence)
    }
}
