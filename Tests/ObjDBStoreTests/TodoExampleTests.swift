import Foundation
import Testing
@_spi(Inspection) import ObjDB
import ObjDBStore
import ObjDBTestProcesses

/// The example app (`Examples/Todo`), driven as a user drives it: add, list, done, relaunch,
/// ids and their prefixes, a migration of older files at launch, `todo watch` seeing another
/// process's change, and sync mode without a reachable service.
@Suite(.serialized)
struct TodoExampleTests {
    let scratch = Scratch()

    func todo(_ arguments: String...) throws -> TestProcess.Result {
        try TestProcess.run("todo", arguments + ["--file", scratch.file("todo.objdb").path])
    }

    /// The id of an `add`'s `added <id>` line, which must be its whole output.
    func added(_ result: TestProcess.Result, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        #expect(result.status == 0, "\(result.error)", sourceLocation: sourceLocation)
        let output = result.output
        try #require(output.hasPrefix("added ") && output.hasSuffix("\n"), "\(output)", sourceLocation: sourceLocation)
        return String(output.dropFirst("added ".count).dropLast())
    }

    /// Whether `id` is what the app draws: 8 lowercase hex characters.
    func isNewID(_ id: String) -> Bool {
        id.count == 8 && id.allSatisfy { "0123456789abcdef".contains($0) }
    }

    /// The shortest prefix of `id` that no id of `others` starts with.
    func uniquePrefix(of id: String, among others: [String]) -> String {
        for length in 1...id.count {
            let prefix = String(id.prefix(length))
            if !others.contains(where: { $0.hasPrefix(prefix) }) { return prefix }
        }
        return id
    }

    @Test func addListDoneAndRelaunch() throws {
        let milk = try added(todo("add", "milk"))
        let bread = try added(todo("add", "whole", "bread"))
        #expect(isNewID(milk) && isNewID(bread) && milk != bread)
        #expect(try todo("done", milk).status == 0)
        #expect(try todo("list").output == "[x] \(milk) milk\n[ ] \(bread) whole bread\n")
        // Each command is a new process: the list above was read back from the file.
        #expect(try todo("list", "--open").output == "[ ] \(bread) whole bread\n")
        let missing = try todo("done", "zz")
        #expect(missing.status == 1)
        #expect(missing.error == "todo: there is no todo zz\n")
        // A prefix that names one todo is enough.
        #expect(try todo("done", uniquePrefix(of: bread, among: [milk])).status == 0)
        #expect(try todo("undo", uniquePrefix(of: bread, among: [milk])).status == 0)
        #expect(try todo("clear").status == 0)
        #expect(try todo("list").output == "[ ] \(bread) whole bread\n")
        let eggs = try added(todo("add", "eggs"))
        #expect(eggs != milk && eggs != bread)
        #expect(try todo("list").output == "[ ] \(bread) whole bread\n[ ] \(eggs) eggs\n")
    }

    // Ids are drawn at random, one process at a time, and never repeat.
    @Test func fiftyAddsGetFiftyIDs() throws {
        var ids: [String] = []
        for n in 1...50 { ids.append(try added(todo("add", "todo \(n)"))) }
        #expect(Set(ids).count == 50)
        #expect(ids.allSatisfy(isNewID))
        let lines = try todo("list").output.split(separator: "\n").map(String.init)
        #expect(lines == (1...50).map { "[ ] \(ids[$0 - 1]) todo \($0)" })
    }

    /// The schema of the todo class before the app's schema version 1 (`title` was `text`).
    final class TodoV0: Object {
        override class var className: String { "Todo" }
        @Persisted(primaryKey: true) var id: Int = 0
        @Persisted var text: String = ""
        @Persisted(indexed: true) var done: Bool = false
    }

    /// The schema of the todo class at the app's schema version 1 (`Int` ids).
    final class TodoV1: Object {
        override class var className: String { "Todo" }
        @Persisted(primaryKey: true) var id: Int = 0
        @Persisted var title: String = ""
        @Persisted(indexed: true) var done: Bool = false
    }

    /// The schema of the todo class at the app's schema version 3 (`String` ids, owners).
    final class TodoV3: Object {
        override class var className: String { "Todo" }
        @Persisted(primaryKey: true) var id: String = ""
        @Persisted var title: String = ""
        @Persisted(indexed: true) var done: Bool = false
        @Persisted var owner: String = ""
    }

    /// The file as the app left it: schema version 3, the todos and the store's state object.
    func openMigrated() throws -> Database {
        var config = Configuration(fileURL: scratch.file("todo.objdb"))
        config.schemaVersion = 3  // the file was migrated to the app's version
        let db = try Database(configuration: config)
        #expect(db.storedSchemaVersion == 3)
        return db
    }

    // A file written by the first version of the app: schema version 0 and state version 1.
    @Test @MainActor func anOlderFileIsMigratedAtLaunch() throws {
        do {
            let db = try Database(configuration: Configuration(fileURL: scratch.file("todo.objdb"), objectTypes: [TodoV0.self, StoreStateObject.self]))
            try db.write {
                for (id, text, done) in [(1, "old one", false), (2, "old two", true)] {
                    let todo = TodoV0()
                    todo.id = id
                    todo.text = text
                    todo.done = done
                    try db.add(todo)
                }
                let state = StoreStateObject()
                state.key = "todo"
                state.version = 1
                state.json = #"{"lastID":2,"todos":[]}"#
                state.collectionOrder = #"{"Todo":[2,1]}"#
                try db.add(state)
            }
        }
        // The order survived the ids' change of type.
        #expect(try todo("list").output == "[x] 2 old two\n[ ] 1 old one\n")
        let new = try added(todo("add", "new"))
        #expect(isNewID(new))
        #expect(try todo("done", "1").status == 0)  // an old id still names its todo
        let db = try openMigrated()
        #expect(db.objects(TodoV3.self).map(\.id).sorted() == ["1", "2", new].sorted())
        #expect(db.objects(TodoV3.self).map(\.title).sorted() == ["new", "old one", "old two"])
        let state = try #require(db.object(ofType: StoreStateObject.self, forPrimaryKey: "todo"))
        #expect(state.version == 3)
        #expect(state.json == #"{"todos":[]}"#)  // no counter any more
        #expect(state.collectionOrder == #"{"Todo":["2","1","\#(new)"]}"#)
    }

    // A file of schema version 1 and state version 2, with ids 10, 11 and 2: the ids become
    // "10", "11" and "2", and a prefix naming two todos is refused.
    @Test @MainActor func aVersionOneFileIsMigratedAndPrefixesAreChecked() throws {
        do {
            var config = Configuration(fileURL: scratch.file("todo.objdb"), objectTypes: [TodoV1.self, StoreStateObject.self])
            config.schemaVersion = 1
            let db = try Database(configuration: config)
            try db.write {
                for (id, title) in [(10, "ten"), (11, "eleven"), (2, "two")] {
                    let todo = TodoV1()
                    todo.id = id
                    todo.title = title
                    try db.add(todo)
                }
                let state = StoreStateObject()
                state.key = "todo"
                state.version = 2
                state.json = #"{"nextID":12,"todos":[]}"#
                state.collectionOrder = #"{"Todo":[10,11,2]}"#
                try db.add(state)
            }
        }
        #expect(try todo("list").output == "[ ] 10 ten\n[ ] 11 eleven\n[ ] 2 two\n")
        let ambiguous = try todo("done", "1")
        #expect(ambiguous.status == 1)
        #expect(ambiguous.error == "todo: '1' names several todos: 10, 11\n")
        #expect(try todo("done", "11").status == 0)
        #expect(try todo("remove", "2").status == 0)
        #expect(try todo("list").output == "[ ] 10 ten\n[x] 11 eleven\n")
        let db = try openMigrated()
        #expect(db.objects(TodoV3.self).map(\.id).sorted() == ["10", "11"])
        #expect(db.object(ofType: StoreStateObject.self, forPrimaryKey: "todo")?.version == 3)
    }

    // `todo watch` prints a change made by another process.
    @Test func watchSeesAnotherProcess() throws {
        let milk = try added(todo("add", "milk"))
        let watcher = try TestProcess("todo", ["watch", "--file", scratch.file("todo.objdb").path])
        defer { watcher.kill() }
        #expect(watcher.readLine() == "+ [ ] \(milk) milk")
        #expect(watcher.readLine() == "watching \(scratch.file("todo.objdb").path)")
        let eggs = try added(todo("add", "eggs"))
        #expect(watcher.readLine() == "+ [ ] \(eggs) eggs")
        #expect(try todo("done", milk).status == 0)
        #expect(watcher.readLine() == "~ [x] \(milk) milk")
    }

    /// Sync mode's arguments for a service that is not there (nothing listens on port 1).
    let offline = ["--sync", "ws://127.0.0.1:1/sync", "--token", "x", "--wait", "1"]

    // Without the service, a synced `add` saves locally, waits at most --wait for the upload,
    // says so and succeeds; the todo is in the file and in its outbox, for a later upload.
    @Test func anOfflineAddIsSavedAndWaitsForTheService() throws {
        let start = ContinuousClock.now
        let result = try TestProcess.run("todo", offline + ["add", "milk", "--file", scratch.file("todo.objdb").path])
        #expect(ContinuousClock.now - start < .seconds(8))
        let milk = try added(result)
        #expect(result.error == "todo: offline; the change is saved and will upload when the service is reachable\n")
        #expect(try todo("list").output == "[ ] \(milk) milk\n")
        let db = try openMigrated()
        #expect(db.objects(TodoV3.self).map(\.id) == [milk])
        // The file is synced now: the add waits in its outbox.
        #expect(try db.syncFileState()?.outboxCount == 1)
        #expect(try db.outboxOperations(after: 0).map(\.primaryKey) == [.string(milk)])
    }

    // Without the service, a synced `list` shows the local copy and says so; other commands
    // work on the local copy too.
    @Test func anOfflineListShowsTheLocalCopy() throws {
        let milk = try added(todo("add", "milk"))
        let file = ["--file", scratch.file("todo.objdb").path]
        let done = try TestProcess.run("todo", offline + ["done", milk] + file)
        #expect(done.status == 0)
        #expect(done.output.isEmpty)
        #expect(done.error == "todo: offline; the change is saved and will upload when the service is reachable\n")
        let list = try TestProcess.run("todo", offline + ["list"] + file)
        #expect(list.status == 0)
        #expect(list.output == "[x] \(milk) milk\n")
        #expect(list.error == "todo: offline; showing the local copy\n")
        let missing = try TestProcess.run("todo", ["--sync", "ws://127.0.0.1:1/sync", "list"] + file)
        #expect(missing.status == 1)
        #expect(missing.error.hasPrefix("todo: --sync needs a token"))
    }

    // A synced `todo watch` keeps running without the service and prints other processes'
    // changes as the local one does.
    @Test func anOfflineWatchSeesAnotherProcess() throws {
        let milk = try added(todo("add", "milk"))
        let path = scratch.file("todo.objdb").path
        let watcher = try TestProcess("todo", offline + ["watch", "--file", path])
        defer { watcher.kill() }
        #expect(watcher.readLine() == "+ [ ] \(milk) milk")
        #expect(watcher.readLine() == "watching \(path)")
        let eggs = try added(todo("add", "eggs"))
        #expect(watcher.readLine() == "+ [ ] \(eggs) eggs")
        #expect(try todo("remove", milk).status == 0)
        #expect(watcher.readLine() == "- [ ] \(milk) milk")
    }
}
