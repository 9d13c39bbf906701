import Foundation
import ObjDB
import ObjDBStore

// A todo list on the command line, kept in an ObjDB file through a persisted Store:
//
//   todo add <title>        todo done <id>      todo undo <id>
//   todo remove <id>        todo clear          todo list [--open]
//   todo watch              (prints every change, made by any process, until interrupted)
//
// The file is ./todo.objdb, or the path after --file.

/// Writes `message` to standard error and exits with status 1.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("todo: \(message)\n".utf8))
    exit(1)
}

/// Writes `text` and a newline to standard output at once (a watching pipe sees it).
func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

/// One line per todo: `[x] 2 bread`.
func line(_ todo: Todo) -> String { "[\(todo.done ? "x" : " ")] \(todo.id) \(todo.title)" }

var arguments = Array(CommandLine.arguments.dropFirst())
var path = "todo.objdb"
if let index = arguments.firstIndex(of: "--file") {
    guard index + 1 < arguments.count else { fail("--file needs a path") }
    path = arguments[index + 1]
    arguments.removeSubrange(index...index + 1)
}
guard let command = arguments.first else {
    fail("usage: todo add <title> | list [--open] | done <id> | undo <id> | remove <id> | clear | watch [--file <path>]")
}
let rest = Array(arguments.dropFirst())

/// The id argument of `done`, `undo` and `remove`, which must name a todo.
@MainActor func todoID(in store: Store<TodoState>) -> Int {
    guard rest.count == 1, let id = Int(rest[0]) else { fail("\(command) needs one todo id") }
    guard store.state.todos.contains(where: { $0.id == id }) else { fail("there is no todo \(id)") }
    return id
}

do {
    let db = try Database(configuration: TodoApp.configuration(URL(fileURLWithPath: path)))
    let store = try TodoApp.store(db, watching: command == "watch")
    switch command {
    case "add":
        let title = rest.joined(separator: " ")
        guard !title.isEmpty else { fail("add needs a title") }
        store.dispatch(TodoAction.add(title))
        say("added \(store.state.nextID - 1)")
    case "list":
        let todos = rest == ["--open"] ? store.state.todos.filter { !$0.done } : store.state.todos
        for todo in todos { say(line(todo)) }
    case "done", "undo":
        store.dispatch(TodoAction.setDone(todoID(in: store), command == "done"))
    case "remove":
        store.dispatch(TodoAction.remove(todoID(in: store)))
    case "clear":
        store.dispatch(TodoAction.clearDone)
    case "watch":
        // The store reads its state again whenever another process writes it; a subscriber
        // prints what changed.
        var previous: [Int: Todo] = [:]
        let token = store.subscribe { (state: TodoState) in
            let current = Dictionary(uniqueKeysWithValues: state.todos.map { ($0.id, $0) })
            for todo in state.todos where previous[todo.id] != todo {
                say(previous[todo.id] == nil ? "+ \(line(todo))" : "~ \(line(todo))")
            }
            for todo in previous.values.sorted(by: { $0.id < $1.id }) where current[todo.id] == nil {
                say("- \(line(todo))")
            }
            previous = current
        }
        say("watching \(path)")
        withExtendedLifetime((db, store, token)) { dispatchMain() }
    default:
        fail("unknown command '\(command)'")
    }
    try store.flush()
} catch {
    fail("\(error)")
}
