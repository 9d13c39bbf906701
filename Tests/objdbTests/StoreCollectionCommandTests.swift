import Foundation
import Testing
import ObjDB
import ObjDBStore
import ObjDBTestProcesses

/// An element of a store's array kept as objects.
struct Reading: Identifiable, Codable, Equatable {
    var id: Int
    var amount: Double
}

/// The object a `Reading` is kept in (class `Reading` in the file).
final class ReadingObject: Object, StoreEntity {
    override class var className: String { "Reading" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var amount: Double = 0

    var value: Reading { Reading(id: id, amount: amount) }
    func update(from reading: Reading) {
        id = reading.id
        amount = reading.amount
    }
}

/// `objdb store` shows an array a store keeps as objects (`.collection(_:as:)`) with its class,
/// count and objects, instead of only the state's empty array.
@Suite(.serialized)
struct StoreCollectionCommandTests {
    let scratch = Scratch()

    /// `objdb store` of `file` (with `key`), parsed.
    func store(_ file: String, _ key: String? = nil) throws -> [String: Any] {
        let result = try CommandRunner.run(["store", file] + (key.map { [$0] } ?? []))
        #expect(result.status == 0, "\(result.error)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    }

    // The todo example app's file, written by the app as a user runs it.
    @Test func theTodoAppsTodosAreShown() throws {
        let file = scratch.file("todo.objdb")
        var ids: [String] = []
        for title in ["milk", "whole bread", "eggs"] {
            let added = try TestProcess.run("todo", ["add", title, "--file", file])
            #expect(added.status == 0)
            ids.append(String(added.output.dropFirst("added ".count).dropLast()))  // "added <id>\n"
        }
        #expect(try TestProcess.run("todo", ["done", ids[0], "--file", file]).status == 0)
        let entry = try #require(try store(file)["todo"] as? [String: Any])
        let state = try #require(entry["state"] as? [String: Any])
        #expect(state.keys.sorted() == ["todos"])
        #expect((state["todos"] as? [Any])?.isEmpty == true)  // kept as objects, not in the JSON
        let todos = try #require((entry["collections"] as? [String: Any])?["Todo"] as? [String: Any])
        #expect(todos["count"] as? Int == 3)
        let objects = try #require(todos["objects"] as? [[String: Any]])
        #expect(objects.map { $0["title"] as? String } == ["milk", "whole bread", "eggs"])
        #expect(objects.map { $0["done"] as? Bool } == [true, false, false])
        #expect(objects.map { $0["id"] as? String } == ids)
        #expect(objects.allSatisfy { $0["$class"] as? String == "Todo" })
        // The objects are the ones query finds.
        let query = try CommandRunner.run(["query", file, "Todo", "--format", "jsonl"]).output
        #expect(query.split(separator: "\n").count == 3)
        // The one-key form shows the same entry.
        let one = try store(file, "todo")
        #expect(((one["collections"] as? [String: Any])?["Todo"] as? [String: Any])?["count"] as? Int == 3)
    }

    // The array's order (not the keys'), objects the order does not list after the others, and
    // values written as query writes them (a whole Double as 1.0).
    @Test @MainActor func theArraysOrderAndQuerysValues() throws {
        struct Meter: Codable, Equatable { var name = "m"; var readings: [Reading] = [] }
        enum Set: Action { case readings([Reading]) }
        let file = scratch.file("meter.objdb")
        do {
            let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file)))
            let store = try Store(
                reducer: { (action: any Action, state: Meter) in
                    guard case .readings(let readings)? = action as? Set else { return state }
                    var state = state
                    state.readings = readings
                    return state
                },
                state: Meter(), persistence: .database(db, key: "meter").collection(\.readings, as: ReadingObject.self))
            store.dispatch(Set.readings([Reading(id: 3, amount: 1), Reading(id: 1, amount: 2.5), Reading(id: 2, amount: 3)]))
            try store.flush()
            // An object someone else added, which the order does not list.
            try db.write {
                let extra = ReadingObject()
                extra.id = 9
                extra.amount = 4
                try db.add(extra)
            }
        }
        let output = try CommandRunner.run(["store", file, "meter"]).output
        let query = try CommandRunner.run(["query", file, "Reading", "--format", "jsonl"]).output.split(separator: "\n").map(String.init)
        #expect(query.count == 4)
        let byID = Dictionary(uniqueKeysWithValues: query.map { line in (line.firstMatch(of: /"id":(\d+)/).map { String($0.1) } ?? "", line) })
        let expected = ["3", "1", "2", "9"].compactMap { byID[$0] }
        #expect(expected.count == 4)
        #expect(output.contains("\"objects\": [\n        " + expected.joined(separator: ",\n        ") + "\n      ]"), "\(output)")
        #expect(output.contains("\"amount\":1.0"))
        #expect(output.contains("\"count\": 4"))
    }

    // Bad input: a state that is not JSON is shown as its text; an order that is not JSON
    // shows no collections; a store without collections has no "collections".
    @Test func damagedRecordsAreShownAsTheyAre() throws {
        let file = scratch.file("odd.objdb")
        do {
            let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: [StoreStateObject.self]))
            try db.write {
                let broken = StoreStateObject()
                broken.key = "broken"
                broken.json = "{not json"
                broken.collectionOrder = "[also not"
                try db.add(broken)
                let plain = StoreStateObject()
                plain.key = "plain"
                plain.json = #"{"count":1.5,"name":"x"}"#
                try db.add(plain)
                let missing = StoreStateObject()
                missing.key = "missing"
                missing.json = #"{"items":[]}"#
                missing.collectionOrder = #"{"Gone":[1,2]}"#
                try db.add(missing)
            }
        }
        let all = try store(file)
        let broken = try #require(all["broken"] as? [String: Any])
        #expect(broken["state"] as? String == "{not json")
        #expect(broken["collections"] == nil)
        let plain = try #require(all["plain"] as? [String: Any])
        #expect(plain["collections"] == nil)
        #expect((plain["state"] as? [String: Any])?["count"] as? Double == 1.5)
        let missing = try #require(all["missing"] as? [String: Any])
        let gone = try #require((missing["collections"] as? [String: Any])?["Gone"] as? [String: Any])
        #expect(gone["count"] as? Int == 0)
        #expect((gone["objects"] as? [Any])?.isEmpty == true)
    }
}
