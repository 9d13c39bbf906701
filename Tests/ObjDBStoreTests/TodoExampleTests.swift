import Foundation
import Testing
@_spi(Inspection) import ObjDB
import ObjDBStore
import ObjDBTestProcesses

/// The example app (`Examples/Todo`), driven as a user drives it: add, list, done, relaunch,
/// a migration of an older file at launch, and `todo watch` seeing another process's change.
@Suite(.serialized)
struct TodoExampleTests {
    let scratch = Scratch()

    func todo(_ arguments: String...) throws -> TestProcess.Result {
        try TestProcess.run("todo", arguments + ["--file", scratch.file("todo.objdb").path])
    }

    @Test func addListDoneAndRelaunch() throws {
        #expect(try todo("add", "milk").output == "added 1\n")
        #expect(try todo("add", "whole", "bread").output == "added 2\n")
        #expect(try todo("done", "1").status == 0)
        #expect(try todo("list").output == "[x] 1 milk\n[ ] 2 whole bread\n")
        // Each command is a new process: the list above was read back from the file.
        #expect(try todo("list", "--open").output == "[ ] 2 whole bread\n")
        let missing = try todo("done", "9")
        #expect(missing.status == 1)
        #expect(missing.error == "todo: there is no todo 9\n")
        #expect(try todo("clear").status == 0)
        #expect(try todo("list").output == "[ ] 2 whole bread\n")
        #expect(try todo("add", "eggs").output == "added 3\n")  // ids are never reused
    }

    /// The schema of the todo class before the app's schema version 1 (`title` was `text`).
    final class TodoV0: Object {
        override class var className: String { "Todo" }
        @Persisted(primaryKey: true) var id: Int = 0
        @Persisted var text: String = ""
        @Persisted(indexed: true) var done: Bool = false
    }

    /// The schema of the todo class at the app's schema version 1.
    final class TodoV1: Object {
        override class var className: String { "Todo" }
        @Persisted(primaryKey: true) var id: Int = 0
        @Persisted var title: String = ""
        @Persisted(indexed: true) var done: Bool = false
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
        #expect(try todo("list").output == "[x] 2 old two\n[ ] 1 old one\n")
        #expect(try todo("add", "new").output == "added 3\n")
        var config = Configuration(fileURL: scratch.file("todo.objdb"))
        config.schemaVersion = 1  // the file was migrated to the app's version
        let db = try Database(configuration: config)
        #expect(db.storedSchemaVersion == 1)
        #expect(db.objects(TodoV1.self).map(\.title).sorted() == ["new", "old one", "old two"])
        #expect(db.object(ofType: StoreStateObject.self, forPrimaryKey: "todo")?.version == 2)
    }

    // `todo watch` prints a change made by another process.
    @Test func watchSeesAnotherProcess() throws {
        #expect(try todo("add", "milk").status == 0)
        let watcher = try TestProcess("todo", ["watch", "--file", scratch.file("todo.objdb").path])
        defer { watcher.kill() }
        #expect(watcher.readLine() == "+ [ ] 1 milk")
        #expect(watcher.readLine() == "watching \(scratch.file("todo.objdb").path)")
        #expect(try todo("add", "eggs").status == 0)
        #expect(watcher.readLine() == "+ [ ] 2 eggs")
        #expect(try todo("done", "1").status == 0)
        #expect(watcher.readLine() == "~ [x] 1 milk")
    }
}
