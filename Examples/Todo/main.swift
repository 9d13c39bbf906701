import Foundation
import ObjDB
import ObjDBStore

// A todo list on the command line, kept in an ObjDB file through a persisted Store:
//
//   todo add <title>        todo done <id>      todo undo <id>
//   todo remove <id>        todo clear          todo list [--open]
//   todo watch              (prints every change, made by any process, until interrupted)
//
// An id is 8 hex characters (`3f9a2c01`); commands take any prefix that names one todo
// (`todo done 3f9`). The file is ./todo.objdb, or the path after --file.
//
// Synced (Docs/Sync.md): `--sync ws://host:7800/sync` with `--token <JWT>`, `--token-file
// <path>` or OBJDB_SYNC_TOKEN. Commands download first and upload after, each wait bounded by
// `--wait <seconds>` (10 by default); without the service they work on the local copy.

/// Writes `message` to standard error and exits with status 1.
func fail(_ message: String) -> Never {
    warn("todo: \(message)")
    exit(1)
}

/// Writes `text` and a newline to standard error.
func warn(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

/// Writes `text` and a newline to standard output at once (a watching pipe sees it).
func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

/// One line per todo: `[x] 3f9a2c01 milk`.
func line(_ todo: Todo) -> String { "[\(todo.done ? "x" : " ")] \(todo.id) \(todo.title)" }

/// The commands, as `todo` with no command prints them.
let usage =
    "usage: todo [--file <path>] [--sync <ws URL> (--token <JWT> | --token-file <path>) [--wait <seconds>]] add <title> | list [--open] | done <id> | undo <id> | remove <id> | clear | watch"

var arguments = Array(CommandLine.arguments.dropFirst())

/// Takes `--name <value>` out of the arguments and returns the value (`nil` if absent).
@MainActor func takeOption(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name) else { return nil }
    guard index + 1 < arguments.count else { fail("\(name) needs a value") }
    let value = arguments[index + 1]
    arguments.removeSubrange(index...index + 1)
    return value
}

let path = takeOption("--file") ?? "todo.objdb"
let syncURL = takeOption("--sync")
let tokenArgument = takeOption("--token")
let tokenFile = takeOption("--token-file")
let waitArgument = takeOption("--wait")

guard let command = arguments.first else { fail(usage) }
guard ["add", "list", "done", "undo", "remove", "clear", "watch"].contains(command) else {
    fail("unknown command '\(command)'\n\(usage)")
}
let rest = Array(arguments.dropFirst())

/// The settings of sync mode, `nil` without `--sync`.
@MainActor func syncOptions() -> SyncOptions? {
    guard let syncURL else { return nil }
    guard let url = URL(string: syncURL), ["ws", "wss"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
        fail("--sync needs the service's WebSocket address, like ws://127.0.0.1:7800/sync")
    }
    var token = tokenArgument
    if token == nil, let tokenFile {
        do {
            token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            fail("cannot read the token file \(tokenFile): \(error.localizedDescription)")
        }
    }
    if token == nil { token = ProcessInfo.processInfo.environment["OBJDB_SYNC_TOKEN"] }
    guard let token, !token.isEmpty else { fail("--sync needs a token: --token <JWT>, --token-file <path> or OBJDB_SYNC_TOKEN") }
    var wait = Duration.seconds(10)
    if let waitArgument {
        guard let seconds = Double(waitArgument), seconds.isFinite, seconds >= 0 else { fail("--wait needs a number of seconds") }
        wait = .seconds(seconds)
    }
    return SyncOptions(serverURL: url, token: token, wait: wait)
}

/// The todo that the id (or id prefix) argument of `done`, `undo` and `remove` names.
@MainActor func todoID(_ command: String, _ rest: [String], in store: Store<TodoState>) throws -> String {
    guard rest.count == 1 else { throw TodoFailure("\(command) needs one todo id") }
    return try TodoApp.todo(matching: rest[0], in: store.state.todos).id
}

/// Runs `command` (any but `watch`) on `store`, printing what it prints.
/// `owner`: the user a new todo belongs to (the sync token's subject; empty without sync).
@MainActor func perform(_ command: String, _ rest: [String], on store: Store<TodoState>, owner: String = "") throws {
    switch command {
    case "add":
        let title = rest.joined(separator: " ")
        guard !title.isEmpty else { throw TodoFailure("add needs a title") }
        let id = TodoApp.newID(taken: Set(store.state.todos.map(\.id)))
        store.dispatch(TodoAction.add(id: id, title: title, owner: owner))
        say("added \(id)")
    case "list":
        let todos = rest == ["--open"] ? store.state.todos.filter { !$0.done } : store.state.todos
        for todo in todos { say(line(todo)) }
    case "done", "undo":
        store.dispatch(TodoAction.setDone(try todoID(command, rest, in: store), command == "done"))
    case "remove":
        store.dispatch(TodoAction.remove(try todoID(command, rest, in: store)))
    case "clear":
        store.dispatch(TodoAction.clearDone)
    default:
        throw TodoFailure("unknown command '\(command)'")
    }
}

/// Prints every change of the todos — made by this process, another one or a sync download —
/// until the process is interrupted: the store reads its state again whenever someone else
/// writes it, and a subscriber prints what changed.
@MainActor func watch(_ store: Store<TodoState>, path: String) async throws {
    var previous: [String: Todo] = [:]
    let token = store.subscribe { (state: TodoState) in
        let current = Dictionary(state.todos.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for todo in state.todos where previous[todo.id] != todo {
            say(previous[todo.id] == nil ? "+ \(line(todo))" : "~ \(line(todo))")
        }
        for todo in previous.values.sorted(by: { $0.id < $1.id }) where current[todo.id] == nil {
            say("- \(line(todo))")
        }
        previous = current
    }
    say("watching \(path)")
    while !Task.isCancelled {
        try await Task.sleep(for: .seconds(3_600))
    }
    withExtendedLifetime((store, token)) {}
}

do {
    if let options = syncOptions() {
        try await runSynced(command, rest, path: path, options: options)
    } else {
        let db = try Database(configuration: TodoApp.configuration(URL(fileURLWithPath: path)))
        let store = try TodoApp.store(db, watching: command == "watch")
        if command == "watch" {
            try await watch(store, path: path)
        } else {
            try perform(command, rest, on: store)
        }
        try store.flush()
    }
} catch let failure as TodoFailure {
    fail(failure.description)
} catch {
    fail("\(error)")
}
