import Foundation
import Testing
@_spi(Inspection) import ObjDB
import ObjDBTestModels

/// Bad input to `import`, `load` and `set` — malformed JSON and CSV, values of the wrong kind,
/// numbers out of range, dates that are no dates — stops the command with exit status 1 and one
/// line naming the file, line, class and property, and writes nothing; a value no text can
/// carry stops the writers the same way.
@Suite(.serialized)
struct BadInputCommandTests {
    let scratch = Scratch()

    /// An empty file with the fixture's classes.
    func emptyDatabase() throws -> String {
        let file = scratch.file("\(UUID().uuidString).objdb")
        _ = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: CLIFixture.types))
        return file
    }

    /// Imports `text` as `name` into a new empty file: the status, what was said, and how many
    /// objects of `className` the file holds after.
    func importing(_ text: String, as name: String, into className: String) throws -> (status: Int32, error: String, file: String, count: Int) {
        let target = try emptyDatabase()
        let file = scratch.file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let result = try CommandRunner.run(["import", target, className, file])
        #expect(result.output.isEmpty)
        let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: target), readOnly: true))
        return (result.status, result.error, file, db.objectCount(ofClassNamed: className))
    }

    static let jsonLines: [(className: String, line: String, message: String)] = [
        ("AllTypes", #"{"id":1,"int":"5"}"#, #"AllTypes.int is Int: the string "5" is not of type Int"#),
        ("AllTypes", #"{"id":1,"int":1.5}"#, "AllTypes.int is Int: the number 1.5 is not an integer"),
        ("AllTypes", #"{"id":1,"int":1e3}"#, "AllTypes.int is Int: the number 1e3 is not an integer"),
        ("AllTypes", #"{"id":1,"int":9223372036854775808}"#,
         "AllTypes.int is Int: the number 9223372036854775808 is not within 64-bit range (-9223372036854775808...9223372036854775807)"),
        ("AllTypes", #"{"id":1,"int8":-129}"#, "AllTypes.int8 is Int8: the number -129 is not within 8-bit range (-128...127)"),
        ("AllTypes", #"{"id":1,"int16":32768}"#, "AllTypes.int16 is Int16: the number 32768 is not within 16-bit range (-32768...32767)"),
        ("AllTypes", #"{"id":1,"int32":2147483648}"#,
         "AllTypes.int32 is Int32: the number 2147483648 is not within 32-bit range (-2147483648...2147483647)"),
        ("AllTypes", #"{"id":1,"bool":1}"#, "AllTypes.bool is Bool: the number 1 is not of type Bool"),
        ("AllTypes", #"{"id":1,"string":5}"#, "AllTypes.string is String: the number 5 is not of type String"),
        ("AllTypes", #"{"id":1,"float":1e39}"#, "AllTypes.float is Float: the number 1e39 is not within Float's range (±3.4028235e+38)"),
        ("AllTypes", #"{"id":1,"double":1e400}"#,
         "AllTypes.double is Double: the number 1e400 is not within Double's range (±1.7976931348623157e+308)"),
        ("AllTypes", #"{"id":1,"double":"1.5"}"#, #"AllTypes.double is Double: the string "1.5" is not of type Double"#),
        ("AllTypes", #"{"id":1,"double":"NaN"}"#, #"AllTypes.double is Double: the string "NaN" is not of type Double"#),
        ("AllTypes", #"{"id":1,"date":1764064800}"#,
         "AllTypes.date is Date: the number 1764064800 is not an ISO 8601 date (2026-11-25T10:00:00.000Z)"),
        ("AllTypes", #"{"id":1,"date":"2026-02-30T00:00:00Z"}"#,
         #"AllTypes.date is Date: the string "2026-02-30T00:00:00Z" is not an ISO 8601 date (2026-11-25T10:00:00.000Z)"#),
        ("AllTypes", #"{"id":1,"date":"2026-01-01T00:00:00"}"#,
         #"AllTypes.date is Date: the string "2026-01-01T00:00:00" is not an ISO 8601 date (2026-11-25T10:00:00.000Z)"#),
        ("AllTypes", #"{"id":1,"data":"not base64!"}"#, #"AllTypes.data is Data: the string "not base64!" is not base64"#),
        ("AllTypes", #"{"id":1,"decimal":"12abc"}"#, #"AllTypes.decimal is Decimal: the string "12abc" is not a decimal number"#),
        ("AllTypes", #"{"id":1,"decimal":"1e200"}"#,
         #"AllTypes.decimal is Decimal: the string "1e200" is not within Decimal's range (38 digits, exponent -128...127)"#),
        ("AllTypes", #"{"id":1,"uuid":"xyz"}"#, #"AllTypes.uuid is UUID: the string "xyz" is not a UUID"#),
        ("AllTypes", #"{"id":1,"objectId":"123"}"#, #"AllTypes.objectId is ObjectId: the string "123" is not an ObjectId (24 hex digits)"#),
        ("AllTypes", #"{"id":1,"bool":null}"#, "AllTypes.bool is Bool: null is not a value (the property is not optional)"),
        ("AllTypes", #"{"id":1,"height":1}"#, "class 'AllTypes' has no stored property 'height'"),
        ("AllTypes", #"{"id":1,"string":}"#, "not valid JSON: unexpected character at column 18"),
        ("AllTypes", #"{"id":1} x"#, "not valid JSON: text after the value at column 10"),
        ("AllTypes", #"{"id":1,"id":2}"#, #"not valid JSON: the member "id" appears twice at column 9"#),
        ("AllTypes", #"{"id":1,"string":"a"#, "not valid JSON: a string is not closed at column 20"),
        ("AllTypes", "[1]", "expected an object, found an array"),
        ("Owner", #"{"id":1,"tags":"a"}"#, #"Owner.tags is List<String>: the string "a" is not an array"#),
        ("Owner", #"{"id":1,"scores":{"x":"high"}}"#, #"Owner.scores is Map<String, Double>: the string "high" is not of type Double"#),
        ("Owner", #"{"id":1,"favorite":1}"#, #"Owner.favorite is Pet?: the number 1 is not a link ({"$class": "Pet", …})"#),
        ("Owner", #"{"id":1,"favorite":{"$class":"Pet","$key":1}}"#,
         #"Owner.favorite: a link by "$key" to Pet cannot be imported (keys are per file); give its primary key, {"$class": "Pet", "$pk": …}"#),
        ("Owner", #"{"id":1,"favorite":{"$class":"Pet","$pk":"1"}}"#, #"Pet.id is Int: the string "1" is not of type Int"#),
        ("Owner", #"{"id":1,"address":"Lyon"}"#, #"Owner.address is Address?: the string "Lyon" is not an object"#),
        ("Owner", #"{"id":1,"address":{"town":"Lyon"}}"#, "class 'Address' has no stored property 'town'"),
    ]

    // Each bad line of a JSON lines file: the file, its line, the class and property; nothing
    // written, not even the good line before it.
    @Test(arguments: jsonLines.indices)
    func aBadJSONLineIsNamed(_ index: Int) throws {
        let (className, line, message) = Self.jsonLines[index]
        let result = try importing("{\"id\": 100}\n" + line + "\n", as: "bad.jsonl", into: className)
        #expect(result.status == 1)
        #expect(result.error == "objdb: \(result.file):2: \(message)\n")
        #expect(result.count == 0)
    }

    // A JSON file (an array, or the export's object) names the line each object starts on,
    // and where its syntax breaks, by line and column.
    @Test func aJSONFileNamesLines() throws {
        let array = try importing("[\n  {\"id\": 1, \"name\": \"Ann\"},\n\n  {\"id\": 2,\n   \"name\": 5}\n]\n", as: "people.json", into: "Person")
        #expect(array.error == "objdb: \(array.file):4: Person.name is String: the number 5 is not of type String\n")
        #expect(array.status == 1 && array.count == 0)
        let export = try importing("{\n  \"Note\": [],\n  \"Person\": [\n    {\"id\": 1}\n    , {\"id\": \"2\"}\n  ]\n}\n", as: "export.json", into: "Person")
        #expect(export.error == "objdb: \(export.file):5: Person.id is Int: the string \"2\" is not of type Int\n")
        let broken = try importing("[\n  {\"id\": 1,\n   \"name\": \"Ann\"\n  ,\n]\n", as: "broken.json", into: "Person")
        #expect(broken.error == "objdb: \(broken.file):5: not valid JSON: a member name (a string) is missing at column 1\n")
        let notObjects = try importing("{\"Person\": 3}", as: "odd.json", into: "Person")
        #expect(notObjects.error == "objdb: \(notObjects.file): \"Person\" is the number 3, not an array of objects\n")
    }

    // CSV: lines counted with line breaks inside quotes; fields checked as text.
    @Test func aBadCSVRowIsNamed() throws {
        let cases: [(text: String, message: String)] = [
            ("id,name,age\n1,\"two\nlines\",3\n2,Bob,old\n", ":4: Person.age is Int?: 'old' is not an integer"),
            ("id,int8\n1,300\n", ":2: AllTypes.int8 is Int8: '300' is not within 8-bit range (-128...127)"),
            ("id,date\n1,1764064800\n", ":2: AllTypes.date is Date: '1764064800' is not an ISO 8601 date (2026-11-25T10:00:00.000Z)"),
            ("id,float\n1,1e39\n", ":2: AllTypes.float is Float: '1e39' is not within Float's range (±3.4028235e+38)"),
            ("id,double\n1,0x10\n", ":2: AllTypes.double is Double: '0x10' is not a number"),
            ("id,int\n1,\n", ":2: AllTypes.int is Int: '' is not an integer"),
            ("id,tags\n1,a\n", ":2: Owner.tags is List<String>: 'a' is not JSON (unexpected character at column 1)"),
            ("id,name\n1,\"open\n", ":2: a quoted field is not closed"),
            ("id,name,age\n1,Ann\n", ":2: 2 fields, the header has 3"),
            ("id,favorite\n1,{\"$class\":\"Pet\"}\n", ":2: Pet.id is Int: '{\"$class\":\"Pet\"}' is not an integer"),
        ]
        for (text, message) in cases {
            let className = text.hasPrefix("id,name") ? "Person" : text.hasPrefix("id,tags") || text.hasPrefix("id,favorite") ? "Owner" : "AllTypes"
            let result = try importing(text, as: "rows.csv", into: className)
            #expect(result.status == 1)
            #expect(result.error == "objdb: \(result.file)\(message)\n", "\(text)")
            #expect(result.count == 0)
        }
    }

    // In CSV an empty field is nil and `""` an empty string: both come back as they were.
    @Test func csvTellsNilFromTheEmptyString() throws {
        let target = try emptyDatabase()
        let file = scratch.file("strings.csv")
        try Data("id,optString,string\n1,,\"\"\n2,\"\",\n3,null,\n".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try CommandRunner.run(["import", target, "AllTypes", file]).status == 0)
        let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: target), objectTypes: CLIFixture.types))
        let strings = Array(db.objects(AllTypes.self)).sorted { $0.id < $1.id }.map { ($0.optString, $0.string) }
        #expect(strings.map(\.0) == [nil, "", "null"])  // the text "null" is a string in CSV
        #expect(strings.map(\.1) == ["", "", ""])  // not optional: an empty field is the empty string
        let export = try CommandRunner.run(["export", target, "--class", "AllTypes", "--format", "csv"]).output
        let rows = export.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let header = try #require(export.split(separator: "\n").first?.split(separator: ","))
        let column = try #require(header.firstIndex(of: "optString"))
        #expect(rows.map { String($0[column]) } == ["", "\"\"", "null"])
    }

    /// A version 1 dump (objdb before dump format 2): dates as numbers of seconds since 2001.
    static let versionOneDump = """
        {"objdb-dump":1,"schemaVersion":0,"classes":[{"name":"Note","embedded":false,"nextKey":4,"properties":[{"name":"text","type":"string","optional":false},{"name":"created","type":"date","optional":false}]}]}
        {"$class":"Note","$key":1,"created":785714400.1234568,"text":"sub-microsecond"}
        {"$class":"Note","$key":2,"created":-6437577600.0,"text":"1797"}
        {"$class":"Note","$key":3,"created":"-inf","text":"never"}

        """

    // Version 1 dumps load exactly as they did; a dump again is version 2, dates as ISO 8601.
    @Test func versionOneDumpsLoadExactly() throws {
        let dump = scratch.file("v1.dump")
        try Data(Self.versionOneDump.utf8).write(to: URL(fileURLWithPath: dump))
        let target = scratch.file("from-v1.objdb")
        let load = try CommandRunner.run(["load", target, dump])
        #expect(load.status == 0, "\(load.error)")
        let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: target), objectTypes: [Note.self]))
        let created = db.objects(Note.self).map(\.created.timeIntervalSinceReferenceDate)
        #expect(created.map(\.bitPattern) == [785_714_400.123_456_8, -6_437_577_600.0, -.infinity].map(\.bitPattern))
        let again = try CommandRunner.run(["dump", target]).output.split(separator: "\n")
        #expect(again.first?.hasPrefix("{\"objdb-dump\":2,") == true)
        #expect(Array(again.dropFirst()) == [
            #"{"$class":"Note","$key":1,"created":"2025-11-24T22:00:00.1234568Z","text":"sub-microsecond"}"#,
            #"{"$class":"Note","$key":2,"created":"1797-01-01T00:00:00.000Z","text":"1797"}"#,
            #"{"$class":"Note","$key":3,"created":"-inf","text":"never"}"#,
        ])
    }

    // Each version's dates in the other's form are refused, naming the line.
    @Test func eachDumpVersionReadsItsOwnDates() throws {
        let dump = scratch.file("mixed.dump")
        let v1 = Self.versionOneDump.replacingOccurrences(of: "\"created\":-6437577600.0", with: "\"created\":\"1797-01-01T00:00:00.000Z\"")
        try Data(v1.utf8).write(to: URL(fileURLWithPath: dump))
        let old = try CommandRunner.run(["load", scratch.file("v1.objdb"), dump])
        #expect(old.status == 1)
        #expect(old.error == "objdb: \(dump):3: Note.created is Date: the string \"1797-01-01T00:00:00.000Z\" is not a date (seconds since 2001-01-01T00:00:00Z)\n")
        let v2 = Self.versionOneDump.replacingOccurrences(of: "\"objdb-dump\":1", with: "\"objdb-dump\":2")
        try Data(v2.utf8).write(to: URL(fileURLWithPath: dump))
        let new = try CommandRunner.run(["load", scratch.file("v2.objdb"), dump])
        #expect(new.status == 1)
        #expect(new.error == "objdb: \(dump):2: Note.created is Date: the number 785714400.1234568 is not an ISO 8601 date (2026-11-25T10:00:00.000Z)\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("v2.objdb")))
    }

    @Test func setRefusesWhatIsNotTheType() throws {
        let file = scratch.file("fixture.objdb")
        try CLIFixture.make(file)
        let cases: [(assignment: String, message: String)] = [
            ("date=1764064800", "AllTypes.date is Date: '1764064800' is not an ISO 8601 date (2026-11-25T10:00:00.000Z)"),
            ("float=1e39", "AllTypes.float is Float: '1e39' is not within Float's range (±3.4028235e+38)"),
            ("double=0x10", "AllTypes.double is Double: '0x10' is not a number"),
            ("decimal=12abc", "AllTypes.decimal is Decimal: '12abc' is not a decimal number"),
            ("int=99999999999999999999", "AllTypes.int is Int: '99999999999999999999' is not within 64-bit range (-9223372036854775808...9223372036854775807)"),
            ("int16=-32769", "AllTypes.int16 is Int16: '-32769' is not within 16-bit range (-32768...32767)"),
            ("bool=maybe", "AllTypes.bool is Bool: 'maybe' is not true or false"),
            ("uuid=null", "AllTypes.uuid is UUID: 'null' is not a value (the property is not optional)"),
        ]
        for (assignment, message) in cases {
            let result = try CommandRunner.run(["set", file, "AllTypes", "1", assignment, "--write"])
            #expect(result.status == 1)
            #expect(result.error == "objdb: \(message)\n", "\(assignment)")
        }
        let good = try CommandRunner.run(["set", file, "AllTypes", "1", "date=2026-11-25T12:00:00.5+02:00", "decimal=NaN", "optDouble=-inf", "--write"])
        #expect(good.status == 0, "\(good.error)")
        let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: CLIFixture.types))
        let all = try #require(db.object(ofType: AllTypes.self, forPrimaryKey: 1))
        #expect(all.date == Date(timeIntervalSince1970: 1_795_600_800.5))
        #expect(all.decimal.isNaN && all.optDouble == -.infinity)
    }

    // A date that no ISO 8601 text here names stops every writer, naming the object.
    @Test func aDateBeyondTheTextStopsTheWriters() throws {
        let file = scratch.file("far.objdb")
        do {
            let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: [Note.self]))
            try db.write {
                let note = Note()
                note.created = Date(timeIntervalSinceReferenceDate: 1e300)
                try db.add(note)
            }
        }
        let reason = "created: the date 1e+300 seconds from 2001-01-01 is beyond the years ISO 8601 text names here (±73 billion)"
        for arguments in [
            ["export", file], ["export", file, "--class", "Note", "--format", "csv"], ["dump", file],
            ["query", file, "Note", "--format", "jsonl"], ["query", file, "Note", "--format", "csv"],
        ] {
            let result = try CommandRunner.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.error == "objdb: Note key 1: \(reason)\n", "\(arguments)")
        }
    }
}
