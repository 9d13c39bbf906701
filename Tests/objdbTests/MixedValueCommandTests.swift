import Foundation
import Testing
@testable import ObjDB

final class MixedSetting: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var value: MixedValue = .none
    @Persisted var history: List<MixedValue>
}

/// Mixed values through the `objdb` command: the schema it prints, `query` in text and JSON,
/// and a `dump`/`load` round trip that keeps every case.
@Suite(.serialized)
struct MixedValueCommandTests {
    let scratch = Scratch()

    /// `nonisolated(unsafe)`: `MixedValue` is not `Sendable`; these values hold no object.
    nonisolated(unsafe) static let values: [MixedValue] = [
        .int(1), .double(1), .float(1.5), .string("on"), .bool(true), .none, .data(Data([1, 2])),
        .date(Date(timeIntervalSinceReferenceDate: 0.5)), .decimal(Decimal(string: "2.5")!),
        .uuid(UUID(uuidString: "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9")!), .objectId(ObjectId(string: "64b7f0c2a1b2c3d4e5f60718")!),
        .double(.nan), .double(2.5),
    ]

    func make() throws -> String {
        let file = scratch.file("mixed.objdb")
        let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: [MixedSetting.self]))
        try db.write {
            for (i, value) in Self.values.enumerated() {
                let setting = MixedSetting()
                setting.id = i + 1
                setting.value = value
                setting.history.append(objectsIn: [value, .string("x")])
                try db.add(setting)
            }
        }
        return file
    }

    func run(_ arguments: [String]) throws -> String {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.error)")
        return result.output
    }

    @Test func schemaNamesTheType() throws {
        let file = try make()
        let schema = try run(["schema", file, "MixedSetting", "--swift"])
        #expect(schema.contains("@Persisted var value: MixedValue = .none"), "\(schema)")
        #expect(schema.contains("List<MixedValue>"))
    }

    @Test func queryPrintsTheHeldValues() throws {
        let file = try make()
        let text = try run(["query", file, "MixedSetting", "value == 1"])
        #expect(text.contains("on") == false)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(run(["query", file, "MixedSetting", "value == 1", "--json"]).utf8)) as? [[String: Any]])
        #expect(objects.map { $0["id"] as? Int } == [1, 2])
        #expect(objects[0]["value"] as? Int == 1)
        // A double that is a whole number keeps its type in JSON.
        let double = try #require(objects[1]["value"] as? [String: Any])
        #expect(double["$type"] as? String == "double")
        let strings = try #require(try JSONSerialization.jsonObject(with: Data(run(["query", file, "MixedSetting", "value == 'on'", "--json"]).utf8)) as? [[String: Any]])
        #expect(strings.first?["value"] as? String == "on")
    }

    @Test func dumpAndLoadKeepEveryCase() throws {
        let file = try make()
        let dump = try run(["dump", file])
        let dumpFile = scratch.file("mixed.jsonl")
        try Data(dump.utf8).write(to: URL(fileURLWithPath: dumpFile))
        let target = scratch.file("loaded.objdb")
        _ = try run(["load", target, dumpFile])
        #expect(try run(["dump", target]) == dump)
        let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: target), objectTypes: [MixedSetting.self]))
        let loaded = db.objects(MixedSetting.self).sorted(by: \.id).map(\.value)
        #expect(loaded.count == Self.values.count)
        for (value, expected) in zip(loaded, Self.values) where expected.doubleValue?.isNaN != true {
            #expect(value == expected)
        }
        #expect(loaded[11].doubleValue?.isNaN == true)
    }
}
