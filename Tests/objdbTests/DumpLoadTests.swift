import Foundation
import Testing
@_spi(Inspection) import ObjDB
import ObjDBTestModels

/// `dump` and `load`: a round trip keeps every value exactly, object keys, key counters, the
/// schema and its version; bad input stops the load with the file and line, and nothing is
/// written.
@Suite(.serialized)
struct DumpLoadTests {
    let scratch = Scratch()

    /// A date below the millisecond, which export's ISO 8601 text would cut.
    static let preciseDate = Date(timeIntervalSinceReferenceDate: 785_714_400.123_456_789)
    static let schemaVersion: UInt64 = 3

    /// A database at schema version 3 with every property type, links in cycles, collections,
    /// embedded objects two levels deep, and deleted objects leaving key gaps: Note keys 1 and 3
    /// remain of 4 (next key 5), Person keys 1 and 2 of 3 (next key 4).
    static func makeSource(_ path: String) throws {
        var configuration = Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: CLIFixture.types)
        configuration.schemaVersion = schemaVersion
        let db = try Database(configuration: configuration)
        try db.write {
            let all = AllTypes()
            all.id = 1
            all.bool = true
            all.int = .max
            all.int8 = .min
            all.int16 = -1_600
            all.int32 = .max
            all.int64 = .min
            all.float = 0.1
            all.double = 0.1 + 0.2
            all.string = "é, \"quoted\"\nnew line\t\u{1F600} \\ /"
            all.data = Data([0, 1, 0xFE, 0xFF])
            all.date = preciseDate
            all.uuid = CLIFixture.uuid
            all.decimal = Decimal(string: "-12345678901234567890.125")!
            all.objectId = CLIFixture.objectId
            all.kind = .vip
            all.level = .high
            all.optBool = false
            all.optInt = 9_007_199_254_740_993  // 2^53 + 1: not a Double
            all.optInt8 = 8
            all.optInt16 = 16
            all.optInt32 = 32
            all.optInt64 = 64
            all.optFloat = 3.4e38
            all.optDouble = .leastNonzeroMagnitude
            all.optString = ""
            all.optData = Data()
            all.optDate = Date(timeIntervalSinceReferenceDate: -1e9 - 0.000_1)
            all.optUUID = CLIFixture.uuid
            all.optDecimal = Decimal(string: "0.001")!
            all.optObjectId = CLIFixture.objectId
            all.optKind = .regular
            all.optLevel = .low
            try db.add(all)
            let empty = AllTypes()  // every optional nil
            empty.id = 2
            try db.add(empty)

            let rex = Pet(), tom = Pet(), kit = Pet()
            (rex.id, rex.name, tom.id, tom.name, kit.id, kit.name) = (1, "Rex", 2, "Tom", 3, "Kit")
            let ann = Owner(), bob = Owner()
            (ann.id, ann.name, bob.id, bob.name) = (1, "Ann", 2, "Bob")
            ann.pets.append(objectsIn: [rex, tom, rex])
            ann.favorite = rex
            ann.tags.append(objectsIn: ["a", "b", "a"])
            ann.numbers.append(objectsIn: [1, nil, 3])
            ann.nicknames.insert(objectsIn: ["annie", "a."])
            ann.scores["math"] = 9.5
            ann.scores["art"] = -0.25
            ann.petsByName["rex"] = rex
            ann.petsByName["none"] = .some(nil)
            let address = Address()
            address.city = "Lyon"
            let location = Location()
            (location.latitude, location.longitude) = (45.764, 4.8357)
            address.location = location
            ann.address = address
            let past = Address()
            past.city = "Oslo"
            ann.pastAddresses.append(past)
            ann.ownedPets.append(kit)
            ann.best = bob
            bob.best = ann
            bob.friends.insert(ann)
            ann.friends.insert(bob)
            try db.add(ann)
            rex.owner = ann
            kit.owner = ann

            for (id, name, age) in [(1, "Ann", 31), (2, "Bob", Int?.none), (3, "Cid", 17)] {
                let person = Person()
                (person.id, person.name, person.age) = (id, name, age)
                try db.add(person)
            }
            for text in ["one", "two", "three", "four"] {
                let note = Note()
                note.text = text
                note.created = preciseDate
                try db.add(note)
            }
        }
        try db.write {
            db.delete(db.objects(Note.self).where { $0.text == "two" || $0.text == "four" })
            db.delete(db.objects(Person.self).where { $0.id == 3 })
        }
    }

    /// Runs `objdb` with `arguments`; its standard output must be all it printed.
    func run(_ arguments: [String]) throws -> String {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.error)")
        return result.output
    }

    /// `dump` of `file` written to a file; returns its path and text.
    func dump(_ file: String, to name: String = "dump.jsonl") throws -> (path: String, text: String) {
        let text = try run(["dump", file])
        let path = scratch.file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return (path, text)
    }

    @Test func roundTripKeepsEveryValueKeyAndTheSchema() throws {
        let source = scratch.file("source.objdb")
        try Self.makeSource(source)
        let (dumpFile, text) = try dump(source)
        #expect(text.hasPrefix("{\"objdb-dump\":2,\"schemaVersion\":3,\"classes\":["))
        #expect(text.split(separator: "\n").count == 1 + 2 + 2 + 2 + 2 + 3)  // header, AllTypes, Note, Owner, Person, Pet

        let target = scratch.file("target.objdb")
        let load = try run(["load", target, dumpFile])
        #expect(load == "loaded 11 objects in 7 classes into \(target) (schema version 3)\n")
        #expect(try run(["export", target, "--format", "jsonl"]) == run(["export", source, "--format", "jsonl"]))
        #expect(try run(["dump", target]) == text)  // the schema and key counters too
        #expect(try run(["check", target]).hasPrefix("\(target): healthy ("))
        #expect(try Database.schemaVersion(at: URL(fileURLWithPath: target)) == 3)

        // The loaded file opens with the model classes (the same schema), values exact.
        var configuration = Configuration(fileURL: URL(fileURLWithPath: target), objectTypes: CLIFixture.types)
        configuration.schemaVersion = Self.schemaVersion
        let db = try Database(configuration: configuration)
        let all = try #require(db.object(ofType: AllTypes.self, forPrimaryKey: 1))
        #expect(all.date == Self.preciseDate)
        #expect(all.optDate == Date(timeIntervalSinceReferenceDate: -1e9 - 0.000_1))
        #expect(all.float == 0.1 && all.double == 0.1 + 0.2 && all.optFloat == 3.4e38 && all.optDouble == .leastNonzeroMagnitude)
        #expect(all.int == .max && all.int64 == .min && all.int8 == .min && all.optInt == 9_007_199_254_740_993)
        #expect(all.decimal == Decimal(string: "-12345678901234567890.125"))
        #expect(all.string == "é, \"quoted\"\nnew line\t\u{1F600} \\ /")
        #expect(all.data == Data([0, 1, 0xFE, 0xFF]) && all.optData == Data() && all.optString == "")
        let empty = try #require(db.object(ofType: AllTypes.self, forPrimaryKey: 2))
        #expect(empty.optInt == nil && empty.optDate == nil && empty.optKind == nil)
        let rex = try #require(db.object(ofType: Pet.self, forPrimaryKey: 1))
        let tom = try #require(db.object(ofType: Pet.self, forPrimaryKey: 2))
        #expect(tom.owners.map(\.id) == [1])
        #expect(rex.fans.count == 1)
        #expect(rex.owner?.name == "Ann")
        let ann = try #require(db.object(ofType: Owner.self, forPrimaryKey: 1))
        #expect(ann.pets.map(\.id) == [1, 2, 1] && ann.best?.best?.id == 1)
        #expect(ann.address?.location?.longitude == 4.8357 && ann.pastAddresses.first?.city == "Oslo")

        // New objects get keys the source never handed out (Note 2 and 4, Person 3 were deleted).
        let (note, person) = try db.write {
            let note = Note(), person = Person()
            person.id = 9
            try db.add(note)
            try db.add(person)
            return (note, person)
        }
        #expect(note.objectKey == 5)
        #expect(person.objectKey == 4)
    }

    @Test func loadIntoAnEmptyDatabaseWithTheSameClasses() throws {
        let source = scratch.file("source.objdb")
        try Self.makeSource(source)
        let (dumpFile, text) = try dump(source)
        let target = scratch.file("empty.objdb")
        var configuration = Configuration(fileURL: URL(fileURLWithPath: target), objectTypes: [Person.self])
        configuration.schemaVersion = 1
        _ = try Database(configuration: configuration)
        _ = try run(["load", target, dumpFile])
        #expect(try run(["dump", target]) == text)
    }

    /// Status, standard error and whether `target` exists after loading `dumpText` into it.
    func load(_ dumpText: String, into target: String) throws -> (status: Int32, error: String) {
        let path = scratch.file("input.jsonl")
        try Data(dumpText.utf8).write(to: URL(fileURLWithPath: path))
        let result = try CommandRunner.run(["load", target, path])
        #expect(result.output.isEmpty)
        return (result.status, result.error)
    }

    @Test func aBadObjectLineStopsTheLoadAndWritesNothing() throws {
        let source = scratch.file("source.objdb")
        try Self.makeSource(source)
        var lines = try dump(source).text.split(separator: "\n").map(String.init)
        let index = try #require(lines.firstIndex { $0.hasPrefix("{\"$class\":\"Person\"") })
        lines[index] = lines[index].replacingOccurrences(of: "\"age\":31", with: "\"age\":\"old\"")
        let input = scratch.file("input.jsonl")
        let target = scratch.file("bad.objdb")
        let result = try load(lines.joined(separator: "\n"), into: target)
        #expect(result.status == 1)
        #expect(result.error == "objdb: \(input):\(index + 1): Person.age is Int?: the string \"old\" is not of type Int\n")
        #expect(!FileManager.default.fileExists(atPath: target))

        // Into an existing empty database: nothing written, not even the classes.
        let empty = scratch.file("empty.objdb")
        _ = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: empty)))
        #expect(try load(lines.joined(separator: "\n"), into: empty).status == 1)
        #expect(try run(["classes", empty, "--format", "jsonl"]).isEmpty)
        #expect(try Database.schemaVersion(at: URL(fileURLWithPath: empty)) == 0)
    }

    @Test func aLinkToAnObjectTheDumpLacksNamesItsLine() throws {
        let source = scratch.file("source.objdb")
        try Self.makeSource(source)
        var lines = try dump(source).text.split(separator: "\n").map(String.init)
        let index = try #require(lines.firstIndex { $0.hasPrefix("{\"$class\":\"Pet\",\"$key\":1,") })
        lines[index] = lines[index].replacingOccurrences(of: "\"owner\":{\"$class\":\"Owner\",\"$key\":1}", with: "\"owner\":{\"$class\":\"Owner\",\"$key\":7}")
        let result = try load(lines.joined(separator: "\n"), into: scratch.file("dangling.objdb"))
        #expect(result.status == 1)
        #expect(result.error.hasSuffix(":\(index + 1): Pet.owner links to the Owner with key 7, which the dump does not have\n"))
    }

    @Test func notADumpFails() throws {
        let target = scratch.file("target.objdb")
        let missing = try CommandRunner.run(["load", target, scratch.file("missing.jsonl")])
        #expect(missing.status == 1 && missing.error == "objdb: \(scratch.file("missing.jsonl")): no such file\n")

        let csv = try load("id,name\n1,Ann\n", into: target)
        #expect(csv.status == 1)
        #expect(csv.error.hasPrefix("objdb: \(scratch.file("input.jsonl")):1: not an objdb dump: the first line is not JSON"))

        let export = try load("{\"$class\":\"Person\",\"$key\":1,\"id\":1}\n", into: target)
        #expect(export.error.hasSuffix(":1: not an objdb dump: the first line has no \"objdb-dump\" version\n"))

        let newer = try load("{\"objdb-dump\":3,\"schemaVersion\":0,\"classes\":[]}\n", into: target)
        #expect(newer.status == 1)
        #expect(newer.error.hasSuffix(":1: dump format version 3 is not supported: this objdb reads versions 1 and 2\n"))
        #expect(!FileManager.default.fileExists(atPath: target))

        let notObjDB = scratch.file("notes.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notObjDB))
        let dumped = try CommandRunner.run(["dump", notObjDB])
        #expect(dumped.status == 1 && dumped.output.isEmpty)
    }

    @Test func loadRefusesADatabaseWithObjects() throws {
        let source = scratch.file("source.objdb")
        try Self.makeSource(source)
        let (dumpFile, text) = try dump(source)
        let result = try CommandRunner.run(["load", source, dumpFile])
        #expect(result.status == 1)
        #expect(result.error == "objdb: \(source): load needs a database without objects, and this one holds 11 (AllTypes: 2, Note: 2, Owner: 2, Person: 2, Pet: 3); load into a new file\n")
        #expect(try run(["dump", source]) == text)
    }

    @Test func loadRefusesAClassThatDiffers() throws {
        let source = scratch.file("source.objdb")
        try Self.makeSource(source)
        let dumpFile = try dump(source).path
        let target = scratch.file("other.objdb")
        _ = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: target), objectTypes: [MigratingItemV0.self]))
        var lines = try String(contentsOfFile: dumpFile, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[0] = lines[0].replacingOccurrences(of: "{\"name\":\"Note\"", with: "{\"name\":\"MigratingItem\"")
        lines = lines.map { $0.replacingOccurrences(of: "{\"$class\":\"Note\"", with: "{\"$class\":\"MigratingItem\"") }
        let result = try load(lines.joined(separator: "\n"), into: target)
        #expect(result.status == 1)
        #expect(result.error.hasPrefix("objdb: \(target): class 'MigratingItem' differs from the dump's (here: "))
    }

    @Test func usageErrors() throws {
        #expect(try CommandRunner.run(["load", scratch.file("x.objdb")]).status == 64)
        #expect(try CommandRunner.run(["dump"]).status == 64)
    }
}
