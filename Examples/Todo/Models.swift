import Foundation
import ObjDB
import ObjDBStore

/// One todo, as the app's state holds it.
struct Todo: Identifiable, Codable, Equatable {
    /// 8 lowercase hex characters (``TodoApp/newID(taken:)``); `"1"`, `"2"`… for todos made
    /// before ids became strings (schema version 2).
    var id: String
    var title: String
    var done = false
    /// The user who made it: the subject of the sync token it was added with, empty for a
    /// todo added without sync. The example's sync rules let each user read and write only
    /// their own (`Examples/Todo/sync-rules.json`).
    var owner = ""

    init(id: String, title: String, done: Bool = false, owner: String = "") {
        self.id = id
        self.title = title
        self.done = done
        self.owner = owner
    }

    /// Decodes a todo; one saved before todos had owners has none.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        title = try c.decode(String.self, forKey: .title)
        done = try c.decodeIfPresent(Bool.self, forKey: .done) ?? false
        owner = try c.decodeIfPresent(String.self, forKey: .owner) ?? ""
    }
}

/// The app's state. Version 3 of its shape: version 1 held the last id given out as `lastID`,
/// version 2 the next one as `nextID`; version 3 has no counter, since ids are random and a
/// counter would hand out the same ids on two devices (see ``TodoApp/stateMigrations``).
struct TodoState: Codable, Equatable {
    var todos: [Todo] = []
}

/// Each todo is stored as one object (not inside the state's JSON), so `objdb query` finds
/// them and marking one done writes one object.
///
/// Schema version 2: version 0 called `title` `text`, versions 0 and 1 had `Int` ids (see
/// ``TodoApp/configuration(_:)``). Sync needs a `String` primary key.
final class TodoObject: Object, StoreEntity {
    override class var className: String { "Todo" }
    @Persisted(primaryKey: true) var id: String = ""
    @Persisted var title: String = ""
    @Persisted(indexed: true) var done: Bool = false
    /// Schema version 3: the user who made it.
    @Persisted var owner: String = ""

    var value: Todo { Todo(id: id, title: title, done: done, owner: owner) }

    func update(from todo: Todo) {
        id = todo.id
        title = todo.title
        done = todo.done
        owner = todo.owner
    }
}

/// What can happen to the todos.
enum TodoAction: Action {
    /// A new todo: its id (drawn by ``TodoApp/newID(taken:)``, so the reducer stays pure),
    /// title and owner.
    case add(id: String, title: String, owner: String)
    case setDone(String, Bool)
    case remove(String)
    case clearDone
}

/// The reducer: pure, no saving — the store persists what it returns.
func todoReducer(action: any Action, state: TodoState) -> TodoState {
    var state = state
    switch action as? TodoAction {
    case .add(let id, let title, let owner):
        guard !state.todos.contains(where: { $0.id == id }) else { break }
        state.todos.append(Todo(id: id, title: title, owner: owner))
    case .setDone(let id, let done):
        if let index = state.todos.firstIndex(where: { $0.id == id }) { state.todos[index].done = done }
    case .remove(let id):
        state.todos.removeAll { $0.id == id }
    case .clearDone:
        state.todos.removeAll(where: \.done)
    case nil:
        break
    }
    return state
}
