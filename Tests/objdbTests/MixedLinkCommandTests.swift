import Foundation
import Testing
@_spi(Inspection) @testable import ObjDB

/// A class with a primary key that mixed values link to.
final class MixedLinkTarget: Object {
    @Persisted(primaryKey: true) var name: String = ""
}

/// A class without a primary key that mixed values link to.
final class MixedKeyless: Object {
    @Persisted var note: String = ""
}

/// An embedded object with a mixed value and an ordinary link beside it.
final class MixedLinkNote: EmbeddedObject {
    @Persisted var value: MixedValue = .none
    @Persisted var target: MixedLinkTarget?
}

/// Holds mixed values that nest and link.
final class MixedLinkHolder: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var value: MixedValue = .none
    @Persisted var items: List<MixedValue>
    @Persisted var note: MixedLinkNote?
}

/// Links and nested lists and dictionaries in mixed values through the `objdb` command: the JSON
/// and text `query`, `export` and `dump` write, what `set`, `import` and `load` read back, and
/// the refusals of bad input.
@Suite(.serialized)
struct MixedLinkCommandTests {
    let scratch = Scratch()

    /// Opens (or creates) `file` with the three classes.
    func open(_ file: String) throws -> Database {
        try Database(configuration: Configuration(
            fileURL: URL(fileURLWithPath: file), objectTypes: [MixedLinkTarget.self, MixedKeyless.self, MixedLinkHolder.self, MixedLinkNote.self]))
    }

    /// A file with targets `t1`, `t2`, a keyless object (key 1) and holders 1…6:
    /// 1 a nested list, 2 a dictionary, 3 a link by primary key, 4 a link by key,
    /// 5 a dictionary with a "$type" key, 6 links inside a list and a dictionary (and `items`).
    func make(_ name: String = "links.objdb") throws -> String {
        let file = scratch.file(name)
        let db = try open(file)
        try db.write {
            let t1 = MixedLinkTarget()
            t1.name = "t1"
            let t2 = MixedLinkTarget()
            t2.name = "t2"
            let keyless = MixedKeyless()
            keyless.note = "k"
            try db.add(t1)
            try db.add(t2)
            try db.add(keyless)
            let values: [MixedValue] = [
                .list([.int(1), .string("a"), .list([.bool(true), .none])]),
                .dictionary(["k": .bool(true), "n": .none, "d": .double(1), "inner": .dictionary(["x": .int(2)])]),
                .object(t1),
                .object(keyless),
                .dictionary(["$type": .string("x"), "v": .int(1)]),
                .list([.object(t2), .dictionary(["t": .object(keyless)]), .string("[not json")]),
            ]
            for (i, value) in values.enumerated() {
                let holder = MixedLinkHolder()
                holder.id = i + 1
                holder.value = value
                holder.items.append(objectsIn: [value, .object(t1)])
                if i == 5 {
                    // A mixed link inside an embedded object, beside an ordinary link (load sets both late).
                    let note = MixedLinkNote()
                    note.value = .list([.object(keyless)])
                    note.target = t2
                    holder.note = note
                }
                try db.add(holder)
            }
        }
        return file
    }

    /// Runs `objdb`, expecting success; its standard output.
    func run(_ arguments: [String]) throws -> String {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.error)")
        return result.output
    }

    /// `value` with links as class and primary key (or key), comparable across files.
    static func canonical(_ value: MixedValue) -> String {
        switch value {
        case .object(let object):
            let schema = object.objectSchema
            if let pk = schema.primaryKeyProperty { return "\(schema.className)(\(object[pk.name] ?? "nil"))" }
            return "\(schema.className)#\(object.objectKey ?? 0)"
        case .list(let values): return "[" + values.map(canonical).joined(separator: ", ") + "]"
        case .dictionary(let entries):
            return "{" + entries.keys.sorted().map { "\($0): \(canonical(entries[$0] ?? .none))" }.joined(separator: ", ") + "}"
        default: return value.description
        }
    }

    /// Every holder's value and items, canonical.
    func holders(_ file: String) throws -> [String] {
        let db = try open(file)
        return db.objects(MixedLinkHolder.self).sorted(by: \.id).map { holder in
            let note = holder.note.map { " note \(Self.canonical($0.value)) \($0.target?.name ?? "nil")" } ?? ""
            return "\(holder.id): \(Self.canonical(holder.value)) items [\(holder.items.map(Self.canonical).joined(separator: "; "))]\(note)"
        }
    }

    /// `query`, `export` and `get` write lists as arrays, dictionaries as objects and links as `$type` objects.
    @Test func jsonWritesNestedValuesAndLinks() throws {
        let file = try make()
        let lines = try run(["query", file, "MixedLinkHolder", "--format", "jsonl"]).split(separator: "\n").map(String.init)
        try #require(lines.count == 6)
        #expect(lines[0].contains("\"value\":[1,\"a\",[true,null]]"), "\(lines[0])")
        #expect(lines[1].contains("\"value\":{\"d\":{\"$type\":\"double\",\"value\":\"1.0\"},\"inner\":{\"x\":2},\"k\":true,\"n\":null}"), "\(lines[1])")
        #expect(lines[2].contains("\"value\":{\"$type\":\"object\",\"class\":\"MixedLinkTarget\",\"primaryKey\":\"t1\"}"), "\(lines[2])")
        #expect(lines[3].contains("\"value\":{\"$type\":\"object\",\"class\":\"MixedKeyless\",\"key\":1}"), "\(lines[3])")
        #expect(lines[4].contains("\"value\":{\"$type\":\"dictionary\",\"value\":{\"$type\":\"x\",\"v\":1}}"), "\(lines[4])")
        #expect(lines[5].contains(
            "\"value\":[{\"$type\":\"object\",\"class\":\"MixedLinkTarget\",\"primaryKey\":\"t2\"},{\"t\":{\"$type\":\"object\",\"class\":\"MixedKeyless\",\"key\":1}},\"[not json\"]"),
            "\(lines[5])")
        #expect(lines[2].contains("\"items\":[{\"$type\":\"object\",\"class\":\"MixedLinkTarget\",\"primaryKey\":\"t1\"},"))
        // The export's row path writes what the query's object path writes.
        let export = try run(["export", file, "--class", "MixedLinkHolder", "--format", "jsonl"]).split(separator: "\n").map(String.init)
        #expect(export == lines)
        // `get` reads through the same writer.
        #expect(try run(["get", file, "MixedLinkHolder", "3", "--format", "jsonl"]).contains("\"primaryKey\":\"t1\""))
        let pretty = try #require(try JSONSerialization.jsonObject(with: Data(run(["get", file, "MixedLinkHolder", "6", "--json"]).utf8)) as? [String: Any])
        let list = try #require(pretty["value"] as? [Any])
        #expect((list.first as? [String: Any])?["primaryKey"] as? String == "t2")
        #expect(((list[1] as? [String: Any])?["t"] as? [String: Any])?["key"] as? Int == 1)
    }

    /// A table shows `[1, "a"]`, `{"k": true}` and `Class(pk)`; CSV holds the JSON.
    @Test func tableAndCSVRenderCompactly() throws {
        let file = try make()
        let table = try run(["query", file, "MixedLinkHolder", "--no-truncate"])
        #expect(table.contains("[1, \"a\", [true, null]]"), "\(table)")
        #expect(table.contains("{\"d\": 1.0, \"inner\": {\"x\": 2}, \"k\": true, \"n\": null}"), "\(table)")
        #expect(table.contains("MixedLinkTarget(t1)"))
        #expect(table.contains("MixedKeyless#1"))
        #expect(table.contains("[MixedLinkTarget(t2), {\"t\": MixedKeyless#1}, \"[not json\"]"), "\(table)")
        let csv = try run(["query", file, "MixedLinkHolder", "--format", "csv"])
        #expect(csv.contains("\"[1,\"\"a\"\",[true,null]]\""), "\(csv)")
        #expect(csv.contains("\"{\"\"$type\"\":\"\"object\"\",\"\"class\"\":\"\"MixedLinkTarget\"\",\"\"primaryKey\"\":\"\"t1\"\"}\""), "\(csv)")
    }

    /// `dump` then `load` into a new file keeps every nested value and link, links inside lists too.
    @Test func dumpAndLoadKeepNestedValuesAndLinks() throws {
        let file = try make()
        let dump = try run(["dump", file])
        let dumpFile = scratch.file("links.jsonl")
        try Data(dump.utf8).write(to: URL(fileURLWithPath: dumpFile))
        let target = scratch.file("loaded.objdb")
        _ = try run(["load", target, dumpFile])
        #expect(try run(["dump", target]) == dump)
        let expected = try holders(file)
        #expect(try holders(target) == expected)
        #expect(expected[5].contains("[MixedLinkTarget(t2), {t: MixedKeyless#1}"), "\(expected[5])")
        #expect(expected[5].hasSuffix(" note [MixedKeyless#1] t2"), "\(expected[5])")
        _ = try run(["check", target])
    }

    /// A CSV export imports back; links by key are refused there, as ordinary ones are.
    @Test func csvExportImportsBack() throws {
        let file = try make()
        let csv = scratch.file("holders.csv")
        try Data(try run(["export", file, "--class", "MixedLinkHolder", "--format", "csv"]).utf8).write(to: URL(fileURLWithPath: csv))
        let copy = scratch.file("copy.objdb")
        do {
            let db = try open(copy)
            try db.write {
                for name in ["t1", "t2"] {
                    let target = MixedLinkTarget()
                    target.name = name
                    try db.add(target)
                }
            }
        }
        // The keyless object cannot be linked to by an import: the CSV holds key links.
        let refused = try CommandRunner.run(["import", copy, "MixedLinkHolder", csv])
        #expect(refused.status == 1)
        #expect(refused.error.contains("cannot be imported (keys are per file)"), "\(refused.error)")
        // Holders 1…3 link by primary key only.
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").prefix(4).joined(separator: "\n")
        try Data(lines.utf8).write(to: URL(fileURLWithPath: csv))
        _ = try run(["import", copy, "MixedLinkHolder", csv])
        #expect(try holders(copy).prefix(3) == holders(file).prefix(3))
    }

    /// `import` and `set` read arrays, dictionaries, wrapped forms and links (to an object imported above).
    @Test func importAndSetReadTheJSON() throws {
        let file = try make()
        let json = scratch.file("new.jsonl")
        let lines = [
            #"{"id": 10, "value": [1, {"k": true}, {"$type": "object", "class": "MixedLinkTarget", "primaryKey": "t2"}], "items": []}"#,
            #"{"id": 11, "value": {"$type": "dictionary", "value": {"$type": "y"}}, "items": [{"$type": "list", "value": [2]}]}"#,
            #"{"id": 12, "value": {"$type": "object", "class": "MixedLinkHolder", "primaryKey": 10}, "items": []}"#,
        ]
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: json))
        _ = try run(["import", file, "MixedLinkHolder", json])
        _ = try run(["set", file, "MixedLinkHolder", "1", #"value={"a": [1.5, {"$type": "object", "class": "MixedKeyless", "key": 1}]}"#, "--write"])
        _ = try run(["set", file, "MixedLinkHolder", "2", #"value={"$type": "string", "value": "[plain"}"#, "--write"])
        _ = try run(["set", file, "MixedLinkHolder", "3", "value=on", "--write"])
        let all = try holders(file)
        #expect(all[0] == #"1: {a: [double(1.5), MixedKeyless#1]} items [[int(1), string("a"), [bool(true), none]]; MixedLinkTarget(t1)]"#, "\(all[0])")
        #expect(all[1].hasPrefix("2: string(\"[plain\")"), "\(all[1])")
        #expect(all[2].hasPrefix("3: string(\"on\")"), "\(all[2])")
        #expect(all[6].hasPrefix("10: [int(1), {k: bool(true)}, MixedLinkTarget(t2)]"), "\(all[6])")
        #expect(all[7] == #"11: {$type: string("y")} items [[int(2)]]"#, "\(all[7])")
        #expect(all[8].hasPrefix("12: MixedLinkHolder(10)"), "\(all[8])")
    }

    /// Bad mixed input, each with the words its refusal must hold.
    static let refusals: [(value: String, says: String)] = [
        (#"{"$type": "object", "class": "MixedLinkTarget", "primaryKey": "nope"}"#, "a link to the MixedLinkTarget with primary key 'nope', and there is none"),
        (#"{"$type": "object", "class": "MixedKeyless", "key": 99}"#, "a link to the MixedKeyless with key 99, and there is none"),
        (#"{"$type": "object", "class": "MixedKeyless", "primaryKey": 1}"#, "MixedKeyless, which has no primary key"),
        (#"{"$type": "object", "class": "Nowhere", "primaryKey": 1}"#, "class 'Nowhere', which the file does not have"),
        (#"{"$type": "object", "class": "MixedLinkTarget", "primaryKey": 5}"#, "by primary key the number 5, which is not of type String"),
        (#"{"$type": "object", "class": "MixedLinkTarget"}"#, "a link needs \"primaryKey\""),
        (#"{"$type": "color", "value": "red"}"#, "a mixed value's $type (binary, bool, date, decimal, dictionary"),
        (#"{"$type": "dictionary", "value": [1]}"#, "needs \"value\": an object"),
        (#"[1, {"k": ]"#, "is not JSON"),
        (#"[1, {"$type": 3}]"#, "\"$type\" is the number 3"),
    ]

    /// `set` refuses each bad value naming the property and leaves the object as it was.
    @Test(arguments: refusals.indices)
    func setRefusesBadInput(_ index: Int) throws {
        let file = try make("refusals-\(index).objdb")
        let (value, says) = Self.refusals[index]
        let result = try CommandRunner.run(["set", file, "MixedLinkHolder", "1", "value=\(value)", "--write"])
        #expect(result.status == 1, "\(value): \(result.output)")
        #expect(result.error.contains("MixedLinkHolder.value is"), "\(result.error)")
        #expect(result.error.contains(says), "\(value): \(result.error)")
        #expect(try holders(file)[0].hasPrefix("1: [int(1)"))
    }

    /// `import` refuses a link to an object that is not there, with file and line, writing nothing.
    @Test func importRefusesALinkToAMissingObject() throws {
        let file = try make()
        let json = scratch.file("bad.jsonl")
        try Data(#"{"id": 20, "value": [{"$type": "object", "class": "MixedLinkTarget", "primaryKey": "gone"}]}"#.utf8).write(to: URL(fileURLWithPath: json))
        let result = try CommandRunner.run(["import", file, "MixedLinkHolder", json])
        #expect(result.status == 1)
        #expect(result.error.contains("bad.jsonl:1: MixedLinkHolder.value is MixedValue"), "\(result.error)")
        #expect(result.error.contains("a link to the MixedLinkTarget with primary key 'gone', and there is none"), "\(result.error)")
        #expect(try holders(file).count == 6)
    }

    /// `load` refuses a link to an object the dump lacks and removes the new file.
    @Test func loadRefusesALinkToAMissingObject() throws {
        let file = try make()
        let dump = try run(["dump", file]).replacingOccurrences(of: "\"primaryKey\":\"t2\"", with: "\"primaryKey\":\"t9\"")
        let dumpFile = scratch.file("bad-dump.jsonl")
        try Data(dump.utf8).write(to: URL(fileURLWithPath: dumpFile))
        let target = scratch.file("bad-load.objdb")
        let result = try CommandRunner.run(["load", target, dumpFile])
        #expect(result.status == 1)
        #expect(result.error.contains("a link to the MixedLinkTarget with primary key 't9', and there is none"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}
