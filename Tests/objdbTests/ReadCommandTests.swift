import Foundation
import Testing

/// The read commands run as a user runs them, on a database made by the library: `classes`,
/// `schema`, `query`, `get`, `export`, with their formats, and the errors every command shares.
@Suite(.serialized)
struct ReadCommandTests {
    let scratch = Scratch()
    let file: String

    init() throws {
        file = scratch.file("fixture.objdb")
        try CLIFixture.make(file)
    }

    func json(_ arguments: [String]) throws -> Any {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.error)")
        return try JSONSerialization.jsonObject(with: Data(result.output.utf8))
    }

    @Test func classesWithCounts() throws {
        let classes = try #require(try json(["classes", file, "--json"]) as? [[String: Any]])
        let counts = Dictionary(uniqueKeysWithValues: classes.map { ($0["class"] as? String ?? "", $0["objects"] as? Int ?? -1) })
        #expect(counts == ["Address": 1, "AllTypes": 2, "Location": 0, "Note": 1, "Owner": 1, "Person": 4, "Pet": 2])
        #expect(classes.first { $0["class"] as? String == "Address" }?["embedded"] as? Bool == true)
    }

    // Every value type in the documented JSON form.
    @Test func queryWritesEveryValueTypeAsDocumented() throws {
        let objects = try #require(try json(["query", file, "AllTypes", "id == 1", "--json"]) as? [[String: Any]])
        let object = try #require(objects.first)
        #expect(objects.count == 1)
        #expect(object["$class"] as? String == "AllTypes")
        #expect(object["$key"] as? Int == 1)
        #expect(object["bool"] as? Bool == true)
        #expect(object["int"] as? Int == -42)
        #expect(object["int8"] as? Int == -8)
        #expect(object["int16"] as? Int == 1_600)
        #expect(object["int32"] as? Int == 32_000)
        #expect(object["int64"] as? Int == 6_400_000_000)
        #expect(object["float"] as? Double == 1.5)
        #expect(object["double"] as? Double == 2.25)
        #expect(object["data"] as? String == "3q2+7w==")  // DE AD BE EF
        #expect(object["date"] as? String == "2025-11-25T10:00:00.250Z")
        #expect(object["uuid"] as? String == "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9")
        #expect(object["decimal"] as? String == "12.345")
        #expect(object["objectId"] as? String == "64b7f0c2a1b2c3d4e5f60718")
        #expect(object["kind"] as? String == "vip")
        #expect(object["level"] as? Int == 9)
        #expect(object["optInt"] as? Int == 7)
        #expect(object["optString"] is NSNull)
        #expect(object["string"] as? String == "comma, \"quote\" and a long text that goes past forty characters")
    }

    // Links as references, followed with --link-depth; embedded objects inline; collections.
    @Test func linksCollectionsAndEmbeddedObjects() throws {
        let shallow = try #require(try json(["get", file, "Owner", "1", "--json", "--link-depth", "0"]) as? [String: Any])
        let favorite = try #require(shallow["favorite"] as? [String: Any])
        #expect(favorite["$class"] as? String == "Pet")
        #expect(favorite["$pk"] as? Int == 1)
        let address = try #require(shallow["address"] as? [String: Any])
        #expect(address["city"] as? String == "Lyon")
        #expect(address["$key"] == nil)  // embedded objects have no key of their own
        #expect(shallow["tags"] as? [String] == ["a", "b"])
        let numbers = try #require(shallow["numbers"] as? [Any])
        #expect(numbers.count == 3)
        #expect(numbers[0] as? Int == 1)
        #expect(numbers[1] is NSNull)
        #expect(shallow["nicknames"] as? [String] == ["annie"])
        #expect(shallow["scores"] as? [String: Double] == ["math": 9.5])
        let pets = try #require(shallow["pets"] as? [[String: Any]])
        #expect(pets.map { $0["$pk"] as? Int } == [1, 2])

        let deep = try #require(try json(["get", file, "Owner", "1", "--json", "--link-depth", "1"]) as? [String: Any])
        let deepPets = try #require(deep["pets"] as? [[String: Any]])
        #expect(deepPets.map { $0["name"] as? String } == ["Rex", "Tom"])
        #expect(deepPets.first?["$key"] as? Int == 1)
    }

    @Test func queryFiltersSortsAndPages() throws {
        func names(_ extra: [String]) throws -> [String] {
            let objects = try #require(try json(["query", file, "Person"] + extra + ["--format", "json"]) as? [[String: Any]])
            return objects.compactMap { $0["name"] as? String }
        }
        #expect(try names(["age >= 18"]) == ["Ann", "Bob", "Dee"])
        #expect(try names(["age >= 18", "--sort", "age,desc"]) == ["Dee", "Bob", "Ann"])
        #expect(try names(["--sort", "name", "--offset", "1", "--limit", "2"]) == ["Bob", "Cid"])
        #expect(try names(["name BEGINSWITH[c] 'd'"]) == ["Dee"])
        let lines = try CommandRunner.run(["query", file, "Person", "age < 40", "--format", "jsonl"]).output.split(separator: "\n")
        #expect(lines.count == 2)
        let explain = try CommandRunner.run(["query", file, "Person", "id == 2", "--explain"])
        #expect(explain.status == 0)
        #expect(explain.output.lowercased().contains("primary key"))
    }

    // Tables are aligned and cut wide cells; CSV quotes what needs quoting.
    @Test func tablesAndCSV() throws {
        let table = try CommandRunner.run(["query", file, "AllTypes", "id == 1"])
        let lines = table.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("$key  id  bool"))
        #expect(lines[2].contains("comma, \"quote\" and a long text that goe…"))
        let whole = try CommandRunner.run(["query", file, "AllTypes", "id == 1", "--no-truncate"])
        #expect(whole.output.contains("goes past forty characters"))
        let csv = try CommandRunner.run(["query", file, "Person", "id <= 2", "--format", "csv", "--sort", "id"])
        #expect(csv.output == "$key,id,name,age,kind\n1,1,Ann,31,regular\n2,2,Bob,45,regular\n")
        let quoted = try CommandRunner.run(["export", file, "--class", "AllTypes", "--format", "csv"])
        #expect(quoted.output.contains("\"comma, \"\"quote\"\" and a long text that goes past forty characters\""))
    }

    @Test func exportWritesEveryClass() throws {
        let export = try #require(try json(["export", file]) as? [String: [[String: Any]]])
        #expect(export.keys.sorted() == ["AllTypes", "Note", "Owner", "Person", "Pet"])  // embedded ones inline
        #expect(export["Person"]?.count == 4)
        #expect(export["Note"]?.first?["$key"] as? Int == 1)
        let lines = try CommandRunner.run(["export", file, "--format", "jsonl"]).output.split(separator: "\n")
        #expect(lines.count == 10)
    }

    @Test func schemaAsJSONAndAsSwift() throws {
        let schema = try #require(try json(["schema", file, "Owner", "--json"]) as? [[String: Any]])
        let properties = try #require(schema.first?["properties"] as? [[String: Any]])
        let pets = try #require(properties.first { $0["name"] as? String == "pets" })
        #expect(pets["collection"] as? String == "list")
        #expect(pets["objectClass"] as? String == "Pet")
        #expect(schema.first?["primaryKey"] as? String == "id")
        let linkedFrom = try #require(schema.first?["linkedFrom"] as? [[String: String]])
        #expect(linkedFrom.contains(["class": "Owner", "property": "best"]))
        let swift = try CommandRunner.run(["schema", file, "--swift"]).output
        #expect(swift.contains("final class Owner: Object {"))
        #expect(swift.contains("    @Persisted(primaryKey: true) var id: Int = 0"))
        #expect(swift.contains("    @Persisted var pets: List<Pet>"))
        #expect(swift.contains("    @Persisted var numbers: List<Int?>"))
        #expect(swift.contains("    @Persisted var scores: Map<String, Double>"))
        #expect(swift.contains("    @Persisted var address: Address?"))
        #expect(swift.contains("final class Address: EmbeddedObject {"))
        #expect(swift.contains("    @Persisted var int8: Int8 = 0"))
        // The default a model gets without an initial value (Models.md): 2001-01-01.
        #expect(swift.contains("    @Persisted var date: Date = Date(timeIntervalSinceReferenceDate: 0)"))
        #expect(swift.contains("    @Persisted(originProperty: \"pets\") var owners: LinkingObjects<Owner>"))
    }

    // Exit status and one-line messages for what goes wrong.
    @Test func errorsNameWhatIsWrong() throws {
        let missing = try CommandRunner.run(["query", scratch.file("missing.objdb"), "Person"])
        #expect(missing.status == 1)
        #expect(missing.error == "objdb: \(scratch.file("missing.objdb")): no such file\n")

        let foreign = scratch.file("foreign.objdb")
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: foreign))
        let notObjDB = try CommandRunner.run(["info", foreign])
        #expect(notObjDB.status == 1)
        #expect(notObjDB.error.contains("not an ObjDB file"))
        #expect(notObjDB.error.split(separator: "\n").count == 1)

        let unknownClass = try CommandRunner.run(["query", file, "Nobody"])
        #expect(unknownClass.status == 1)
        #expect(unknownClass.error == "objdb: \(file): no class 'Nobody' (classes: Address, AllTypes, Location, Note, Owner, Person, Pet)\n")

        let badPredicate = try CommandRunner.run(["query", file, "Person", "age >"])
        #expect(badPredicate.status == 1)
        #expect(badPredicate.error.contains("position 5"))

        let badSort = try CommandRunner.run(["query", file, "Person", "--sort", "height"])
        #expect(badSort.status == 1)
        #expect(badSort.error.contains("no property 'height'"))

        let usage = try CommandRunner.run(["query", file])
        #expect(usage.status == 64)
        let unknownCommand = try CommandRunner.run(["frobnicate"])
        #expect(unknownCommand.status == 64)
    }
}
