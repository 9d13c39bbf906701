import Foundation
import ObjDB
import ObjDBStore

/// One todo, as the app's state holds it.
struct Todo: Identifiable, Codable, Equatable {
    var id: Int
    var title: String
    var done = false
}

/// The app's state. Version 2 of its shape: version 1 called `nextID` `lastID` and held the
/// last id given out (see ``TodoApp/stateMigrations``).
struct TodoState: Codable, Equatable {
    var nextID = 1
    var todos: [Todo] = []
}

/// Each todo is stored as one object (not inside the state's JSON), so `objdb query` finds
/// them and marking one done writes one object.
///
/// Schema version 1: version 0 called `title` `text` (see ``TodoApp/configuration(_:)``).
final class TodoObject: Object, StoreEntity {
    override class var className: String { "Todo" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var title: String = ""
    @Persisted(indexed: true) var done: Bool = false

    var value: Todo { Todo(id: id, title: title, done: done) }

    func update(from todo: Todo) {
        id = todo.id
        title = todo.title
        done = todo.done
    }
}

/// What can happen to the todos.
enum TodoAction: Action {
    case add(String)
    case setDone(Int, Bool)
    case remove(Int)
    case clearDone
}

/// The reducer: pure, no saving — the store persists what it returns.
func todoReducer(action: any Action, state: TodoState) -> TodoState {
    var state = state
    switch action as? TodoAction {
    case .add(let title):
        state.todos.append(Todo(id: state.nextID, title: title))
        state.nextID += 1
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
