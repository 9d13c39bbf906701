import Foundation
import Testing
@testable import ObjDB
import ObjDBStore
import ObjDBTestModels
import ObjDBTestProcesses

/// `check` (healthy and deliberately broken files), `backup`, `stat`, `info`, `store` and
/// `watch` across processes.
@Suite(.serialized)
struct FileCommandTests {
    let scratch = Scratch()

    /// Changes the fixture's file behind ObjDB's back, in a raw write transaction.
    func damage(_ file: String, _ change: (Txn, Database) throws -> Void) throws {
        let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: CLIFixture.types))
        let write = try WriteTransaction(db.environment)
        try change(write.txn, db)
        try write.commit()
    }

    @Test func checkPassesAHealthyFile() throws {
        let file = scratch.file("healthy.objdb")
        try CLIFixture.make(file)
        let check = try CommandRunner.run(["check", file])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.hasPrefix("\(file): healthy ("))
        #expect(check.output.contains("11 objects in 7 classes"))  // 2 + 1 + 2 + 4 + 1 + 1 embedded
    }

    enum Damage: String, CaseIterable { case indexEntryRemoved, backlinkRemoved, rowTruncated }

    @Test(arguments: Damage.allCases)
    func checkFindsABrokenFile(_ kind: Damage) throws {
        let file = scratch.file("\(kind).objdb")
        try CLIFixture.make(file)
        try damage(file) { txn, db in
            switch kind {
            case .indexEntryRemoved:
                let people = try #require(try db.classInfo(for: Person.self))
                let index = try #require(people.tables.indexes[try people.column(named: "name")])
                var key: UInt64 = 2
                let name: [UInt8] = [KeyEncoding.valueTag] + Array("Bob".utf8)
                _ = try name.withUnsafeBytes { k in try withUnsafeBytes(of: &key) { try txn.delete(index, key: k, value: $0) } }
            case .backlinkRemoved:
                let owners = try #require(try db.classInfo(for: Owner.self))
                let backlinks = try #require(owners.tables.backlinks[try owners.column(named: "favorite")])
                var target: UInt64 = 1, origin: UInt64 = 1
                _ = try withUnsafeBytes(of: &target) { t in try withUnsafeBytes(of: &origin) { try txn.delete(backlinks, key: t, value: $0) } }
            case .rowTruncated:
                let people = try #require(try db.classInfo(for: Person.self))
                let row = Array(try #require(try txn.get(people.objectsTable, key: 3)))
                try Array(row.prefix(row.count / 2)).withUnsafeBytes { _ = try txn.put(people.objectsTable, key: 3, value: $0) }
            }
        }
        let check = try CommandRunner.run(["check", file, "--json"])
        #expect(check.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(check.output.utf8)) as? [String: Any])
        #expect(report["healthy"] as? Bool == false)
        let problems = try #require(report["problems"] as? [[String: Any]])
        let kinds = Set(problems.compactMap { $0["kind"] as? String })
        switch kind {
        case .indexEntryRemoved: #expect(problems.contains { $0["kind"] as? String == "index" && $0["key"] as? Int == 2 }, "\(problems)")
        case .backlinkRemoved: #expect(kinds.contains("backlink"), "\(problems)")
        case .rowTruncated: #expect(problems.contains { $0["class"] as? String == "Person" && $0["key"] as? Int == 3 }, "\(problems)")
        }
        let text = try CommandRunner.run(["check", file])
        #expect(text.status == 1)
    }

    // A compacted backup of a file whose objects were mostly deleted is smaller, and healthy.
    @Test func backupCompactsAndChecks() throws {
        let file = scratch.file("big.objdb")
        do {
            let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: [Person.self]))
            try db.write {
                for id in 0..<5_000 {
                    let person = Person()
                    person.id = id
                    person.name = "person \(id) with a name long enough to fill pages"
                    try db.add(person)
                }
            }
            try db.write { db.delete(db.objects(Person.self).where { $0.id >= 500 }) }
        }
        let copy = scratch.file("copy.objdb")
        let backup = try CommandRunner.run(["backup", file, copy, "--compact"])
        #expect(backup.status == 0, "\(backup.error)")
        let size = { (path: String) in (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        #expect(try size(copy) < size(file) / 2)
        #expect(try CommandRunner.run(["check", copy]).status == 0)
        let classes = try CommandRunner.run(["classes", copy, "--format", "csv"])
        #expect(classes.output == "class,objects,embedded\nPerson,500,false\n")
        let again = try CommandRunner.run(["backup", file, copy])
        #expect(again.status == 1)
        #expect(again.error.contains("exists"))
        let plain = scratch.file("plain.objdb")
        #expect(try CommandRunner.run(["backup", file, plain]).status == 0)
        #expect(try size(plain) == size(file))
    }

    @Test func statAndInfo() throws {
        let file = scratch.file("fixture.objdb")
        try CLIFixture.make(file)
        let stat = try #require(try JSONSerialization.jsonObject(with: Data(CommandRunner.run(["stat", file, "--json"]).output.utf8)) as? [String: Any])
        let tables = try #require(stat["tables"] as? [[String: Any]])
        #expect(tables.first { $0["name"] as? String == "Person objects" }?["entries"] as? Int == 4)
        #expect(tables.first { $0["name"] as? String == "Person index name" }?["entries"] as? Int == 4)
        #expect(tables.first { $0["name"] as? String == "Owner backlinks favorite" }?["entries"] as? Int == 1)
        #expect(stat["pageSize"] as? Int == 4096)
        let info = try #require(try JSONSerialization.jsonObject(with: Data(CommandRunner.run(["info", file, "--json"]).output.utf8)) as? [String: Any])
        let pages = try #require(info["pages"] as? Int)
        #expect((info["usedPages"] as? Int ?? 0) + (info["freePages"] as? Int ?? 0) == pages)
        #expect(info["size"] as? Int == pages * 4096)
    }

    // A file at a schema version above 0 opens (the tool has no model classes).
    @Test func anyStoredSchemaVersionOpens() throws {
        let file = scratch.file("versioned.objdb")
        var config = Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: [Person.self])
        config.schemaVersion = 7
        _ = try Database(configuration: config)
        let info = try CommandRunner.run(["info", file])
        #expect(info.status == 0, "\(info.error)")
        #expect(info.output.contains("Schema version:  7"))
        // Opening did not change the file's version.
        #expect(try CommandRunner.run(["info", file]).output.contains("Schema version:  7"))
    }

    @Test @MainActor func storePrintsPersistedState() throws {
        struct AppState: Codable, Equatable { var count = 3; var name = "x" }
        let file = scratch.file("store.objdb")
        do {
            let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file)))
            let store = try Store(reducer: { (_: any Action, state: AppState) in state }, state: AppState(), persistence: .database(db, key: "app", version: 4))
            try store.flush()
        }
        let all = try #require(try JSONSerialization.jsonObject(with: Data(CommandRunner.run(["store", file]).output.utf8)) as? [String: [String: Any]])
        #expect(all.keys.sorted() == ["app"])
        #expect(all["app"]?["version"] as? Int == 4)
        let state = try #require(all["app"]?["state"] as? [String: Any])
        #expect(state["count"] as? Int == 3)
        #expect(state["name"] as? String == "x")
        #expect(state.count == 2)
        let one = try #require(try JSONSerialization.jsonObject(with: Data(CommandRunner.run(["store", file, "app"]).output.utf8)) as? [String: Any])
        #expect((one["type"] as? String)?.hasSuffix("AppState") == true)
        let unknown = try CommandRunner.run(["store", file, "other"])
        #expect(unknown.status == 1)
        #expect(unknown.error.contains("keys: app"))
    }

    // `watch` in one process prints the change `set` makes in another.
    @Test func watchPrintsAnotherProcessesChange() throws {
        let file = scratch.file("watched.objdb")
        try CLIFixture.make(file)
        let watcher = try TestProcess("objdb", ["watch", file, "Person", "--format", "jsonl"])
        defer { watcher.kill() }
        let first = try #require(watcher.readLine())
        #expect(first.contains("\"watching\""))
        #expect(try CommandRunner.run(["set", file, "Person", "3", "age=18", "--write"]).status == 0)
        let line = try #require(watcher.readLine())
        let change = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(change["class"] as? String == "Person")
        let modified = try #require(change["modified"] as? [[String: Any]])
        #expect(modified.count == 1)
        #expect(modified.first?["age"] as? Int == 18)
        #expect(change["deleted"] as? [String] == [])
        #expect(try CommandRunner.run(["delete", file, "Person", "4", "--write"]).status == 0)
        let deletionLine = try #require(watcher.readLine())
        let deletion = try #require(try JSONSerialization.jsonObject(with: Data(deletionLine.utf8)) as? [String: Any])
        #expect(deletion["deleted"] as? [String] == ["4"])
    }
}
