import Foundation
import Testing
@_spi(Inspection) import ObjDB
import ObjDBTestModels

/// `dump` then `load`, and `export` then `import` in JSON lines, JSON and CSV, give back every
/// value of every type exactly — alone, optional, nil, and in lists, sets and maps — checked
/// against the values the test wrote, not against another output of the tool.
@Suite(.serialized)
struct RoundTripCommandTests {
    let scratch = Scratch()

    /// The ways out of a file and back in.
    static let paths = ["dump", "jsonl", "json", "csv"]

    /// A property type and values of it chosen to be awkward, each stored differently.
    enum Kind: String, CaseIterable, Sendable {
        case bool, int8, int16, int32, int64, float, double, string, data, date, decimal, uuid, objectId

        var type: PropertyType {
            switch self {
            case .bool: .bool
            case .int8, .int16, .int32, .int64: .int
            case .float: .float
            case .double: .double
            case .string: .string
            case .data: .data
            case .date: .date
            case .decimal: .decimal
            case .uuid: .uuid
            case .objectId: .objectId
            }
        }

        var bits: Int? {
            switch self {
            case .int8: 8
            case .int16: 16
            case .int32: 32
            case .int64: 64
            default: nil
            }
        }

        var values: [Any] {
            switch self {
            case .bool: [true, false]
            case .int8: [Int8.min, Int8(-1), Int8(0), Int8.max]
            case .int16: [Int16.min, Int16(0), Int16.max]
            case .int32: [Int32.min, Int32(0), Int32.max]
            case .int64: [Int.min, Int.max, 0, 9_007_199_254_740_993, -9_007_199_254_740_993]
            case .float:
                [Float.nan, .infinity, -.infinity, -0.0, 0, 0.1, .greatestFiniteMagnitude, .leastNonzeroMagnitude, -1e-30, 16_777_215] as [Float]
            case .double:
                [Double.nan, .infinity, -.infinity, -0.0, 0, 0.1 + 0.2, .greatestFiniteMagnitude, .leastNonzeroMagnitude, 1e16, -123.456] as [Double]
            case .string:
                [
                    "", "é 😀 ﬁ Ω ключ", "e\u{301}", "\u{0}", String((1...31).map { Character(Unicode.Scalar(UInt8($0))) }) + "\u{7F}",
                    "\r\n", "\r", "line\nbreak", "quote \" comma , backslash \\ slash /", "null", "  spaced  ", "nan", "\u{FEFF}bom",
                ]
            case .data: [Data(), Data([0]), Data((0...255).map { UInt8($0) }), Data([0xFF, 0xFE, 0x00])]
            case .date:
                [
                    785_714_400.123_456_789, -1e9 - 0.000_1, 0, Date(timeIntervalSince1970: 1_764_064_800.123).timeIntervalSinceReferenceDate,
                    Date.distantPast.timeIntervalSinceReferenceDate, Date.distantFuture.timeIntervalSinceReferenceDate, 1e-300, 3e11, -7e10,
                    0x1p60, .nan, .infinity, -.infinity,
                ].map { Date(timeIntervalSinceReferenceDate: $0) }
            case .decimal:
                [
                    "-12345678901234567890.125", "12345678901234567890123456789012345678", "1e127", "1e-128", "0", "-0.001",
                    "0.000000000000000000000000000000000000000001", "NaN",
                ].map { $0 == "NaN" ? Decimal.nan : Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) ?? .nan }
            case .uuid:
                ["00000000-0000-0000-0000-000000000000", "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"]
                    .compactMap(UUID.init(uuidString:))
            case .objectId:
                ["000000000000000000000000", "64b7f0c2a1b2c3d4e5f60718", "ffffffffffffffffffffffff"].compactMap { ObjectId($0) }
            }
        }
    }

    /// The class `Values` for `kind`: the value alone, optional, and in each collection.
    static func schema(_ kind: Kind) -> ObjectSchema {
        func property(_ name: String, optional: Bool = false, _ collection: CollectionKind? = nil) -> Property {
            Property(name: name, type: kind.type, isOptional: optional, bitWidth: kind.bits, collection: collection)
        }
        return ObjectSchema(className: "Values", properties: [
            Property(name: "id", type: .int, isPrimaryKey: true), property("one"), property("opt", optional: true),
            property("list", .list), property("optList", optional: true, .list), property("set", .set),
            property("map", .map), property("optMap", optional: true, .map),
        ])
    }

    /// The objects of `kind`'s file: object i holds value i alone and optional; the last holds
    /// nil and every value in each collection (nil too where the collection is optional).
    static func objects(_ kind: Kind) -> [[String: Any?]] {
        let values = kind.values
        var objects: [[String: Any?]] = values.enumerated().map { index, value in
            ["id": index, "one": value, "opt": value, "list": [Any?](), "optList": [Any?](), "set": [Any?](), "map": [String: Any?](), "optMap": [String: Any?]()]
        }
        let map = Dictionary(uniqueKeysWithValues: values.enumerated().map { ("k\($0.offset) ключ", $0.element as Any?) })
        objects.append([
            "id": values.count, "one": values[0], "opt": nil as Any?, "list": values.map { $0 as Any? }, "optList": values.map { $0 as Any? } + [nil],
            "set": values.map { $0 as Any? }, "map": map, "optMap": map.merging(["none": nil as Any?]) { $1 },
        ])
        return objects
    }

    /// Whether two values read from files are the same, exactly: floats and dates by their
    /// bits (NaN as NaN; a date is an instant, so ±0 s are one), strings by their UTF-8,
    /// collections element by element.
    static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let x as [Any?], let y as [Any?]): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (let x as [String: Any?], let y as [String: Any?]):
            return Set(x.keys) == Set(y.keys) && x.keys.allSatisfy { same(x[$0] ?? nil, y[$0] ?? nil) }
        case (let x as Double, let y as Double): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
        case (let x as Float, let y as Float): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
        case (let x as Date, let y as Date):
            let (s, t) = (x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
            return s == t || (s.isNaN && t.isNaN)
        case (let x as Decimal, let y as Decimal): return x.isNaN ? y.isNaN : !y.isNaN && x.description == y.description
        case (let x as String, let y as String): return Array(x.utf8) == Array(y.utf8)
        case (let x as Data, let y as Data): return x == y
        case (let x as UUID, let y as UUID): return x == y
        case (let x as ObjectId, let y as ObjectId): return x == y
        case (let x as Bool, let y as Bool): return x == y
        case (let x as any BinaryInteger, let y as any BinaryInteger): return Int64(x) == Int64(y) && type(of: x) == type(of: y)
        default: return false
        }
    }

    /// Runs `objdb`; it must succeed.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.error)")
        return result.output
    }

    /// `source` taken out by `path` and brought back into a new file (classes in `order`, link
    /// targets first); the new file's path.
    func roundTrip(_ source: String, _ path: String, order: [String]) throws -> String {
        let target = scratch.file("\(UUID().uuidString).objdb")
        let file = scratch.file("\(UUID().uuidString).\(path)")
        if path == "dump" {
            try Data(run(["dump", source]).utf8).write(to: URL(fileURLWithPath: file))
            try run(["load", target, file])
            return target
        }
        for className in order {
            try Data(run(["export", source, "--class", className, "--format", path]).utf8).write(to: URL(fileURLWithPath: file))
            try run(["import", target, className, file, "--schema", source])
        }
        return target
    }

    /// The objects of `className` in `file` by primary key `id`, read through the library.
    func objects(_ className: String, in file: String) throws -> [Int: DynamicObject] {
        var configuration = Configuration(fileURL: URL(fileURLWithPath: file), readOnly: true)
        configuration.opensAnySchemaVersion = true
        let db = try Database(configuration: configuration)
        return Dictionary(uniqueKeysWithValues: db.dynamicObjects(className).map { (($0["id"] as? Int) ?? -1, $0) })
    }

    @Test(arguments: Kind.allCases)
    func everyValueComesBackExactly(_ kind: Kind) throws {
        let source = scratch.file("\(kind).objdb")
        let expected = Self.objects(kind)
        do {
            let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: source)))
            try db.write {
                try db.createClasses([Self.schema(kind)])
                for object in expected { try db.createDynamicObject("Values", value: object) }
            }
        }
        // The source holds what the test wrote (the library keeps every value).
        let stored = try objects("Values", in: source)
        for object in expected {
            let id = try #require(object["id"] as? Int)
            for (name, value) in object { #expect(Self.same(stored[id]?[name], value), "source \(kind) \(id).\(name)") }
        }
        for path in Self.paths {
            let back = try objects("Values", in: try roundTrip(source, path, order: ["Values"]))
            #expect(back.count == expected.count, "\(path)")
            for object in expected {
                let id = try #require(object["id"] as? Int)
                for (name, value) in object {
                    #expect(Self.same(back[id]?[name], value), "\(path) \(kind) \(id).\(name): \(String(describing: back[id]?[name])) for \(String(describing: value))")
                }
            }
        }
    }

    // Links to one object, in lists, sets and maps, embedded objects inline (with dates and
    // strings inside them): every path gives back the same targets.
    @Test func linksAndEmbeddedObjectsComeBack() throws {
        let source = scratch.file("links.objdb")
        let schemas = [
            ObjectSchema(className: "Target", properties: [Property(name: "id", type: .int, isPrimaryKey: true), Property(name: "name", type: .string)]),
            ObjectSchema(className: "Inner", properties: [Property(name: "text", type: .string), Property(name: "when", type: .date)], isEmbedded: true),
            ObjectSchema(className: "Holder", properties: [
                Property(name: "id", type: .int, isPrimaryKey: true),
                Property(name: "link", type: .object, isOptional: true, objectClassName: "Target"),
                Property(name: "links", type: .object, objectClassName: "Target", collection: .list),
                Property(name: "linkSet", type: .object, objectClassName: "Target", collection: .set),
                Property(name: "linkMap", type: .object, isOptional: true, objectClassName: "Target", collection: .map),
                Property(name: "inner", type: .object, isOptional: true, objectClassName: "Inner"),
                Property(name: "inners", type: .object, objectClassName: "Inner", collection: .list),
            ]),
        ]
        let when = Date(timeIntervalSinceReferenceDate: 785_714_400.123_456_789)
        do {
            let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: source)))
            try db.write {
                try db.createClasses(schemas)
                for id in 1...3 { try db.createDynamicObject("Target", value: ["id": id, "name": "t\(id)"]) }
                try db.createDynamicObject("Holder", value: [
                    "id": 1, "link": 2, "links": [3, 1, 3], "linkSet": [2, 1], "linkMap": ["a": 1, "b": nil as Any?, "ключ": 3],
                    "inner": ["text": "", "when": when] as [String: Any?],
                    "inners": [["text": "x,\"y\"\n", "when": Date.distantPast], ["text": "\u{0}", "when": when]] as [[String: Any?]],
                ])
                try db.createDynamicObject("Holder", value: ["id": 2, "link": nil as Any?, "inner": nil as Any?])
            }
        }
        for path in Self.paths {
            let target = try roundTrip(source, path, order: ["Target", "Holder"])
            let holders = try objects("Holder", in: target)
            #expect(try objects("Target", in: target).mapValues { $0["name"] as? String } == [1: "t1", 2: "t2", 3: "t3"], "\(path)")
            let one = try #require(holders[1], "\(path)")
            func id(_ value: Any?) -> Int? { (value as? DynamicObject)?["id"] as? Int }
            #expect(id(one["link"]) == 2, "\(path)")
            #expect((one["links"] as? [Any?])?.map(id) == [3, 1, 3], "\(path)")
            #expect((one["linkSet"] as? [Any?])?.map(id) == [2, 1], "\(path)")
            #expect((one["linkMap"] as? [String: Any?])?.mapValues(id) == ["a": 1, "b": nil, "ключ": 3], "\(path)")
            let inner = try #require(one["inner"] as? DynamicObject, "\(path)")
            #expect(inner["text"] as? String == "" && inner["when"] as? Date == when, "\(path)")
            let inners = try #require(one["inners"] as? [Any?], "\(path)")
            #expect(inners.map { ($0 as? DynamicObject)?["text"] as? String } == ["x,\"y\"\n", "\u{0}"], "\(path)")
            #expect(inners.map { ($0 as? DynamicObject)?["when"] as? Date } == [Date.distantPast, when], "\(path)")
            #expect(holders[2]?["link"] == nil && holders[2]?["inner"] == nil && (holders[2]?["links"] as? [Any?])?.isEmpty == true, "\(path)")
        }
    }

    // Enums are their raw values, String and Int, optional or not, in a model's class.
    @Test func enumsComeBack() throws {
        let source = scratch.file("enums.objdb")
        do {
            let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: source), objectTypes: [AllTypes.self]))
            try db.write {
                for (id, kind, level) in [(1, Kind_.vip, Level.high), (2, .regular, .low)] {
                    let all = AllTypes()
                    all.id = id
                    all.kind = kind
                    all.level = level
                    all.optKind = id == 1 ? kind : nil
                    all.optLevel = id == 1 ? level : nil
                    try db.add(all)
                }
            }
        }
        for path in Self.paths {
            let target = try roundTrip(source, path, order: ["AllTypes"])
            let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: target), objectTypes: [AllTypes.self]))
            let first = try #require(db.object(ofType: AllTypes.self, forPrimaryKey: 1), "\(path)")
            let second = try #require(db.object(ofType: AllTypes.self, forPrimaryKey: 2), "\(path)")
            #expect(first.kind == .vip && first.level == .high && first.optKind == .vip && first.optLevel == .high, "\(path)")
            #expect(second.kind == .regular && second.level == .low && second.optKind == nil && second.optLevel == nil, "\(path)")
        }
    }
}

/// The test models' `Kind`, named apart from ``RoundTripCommandTests/Kind``.
typealias Kind_ = ObjDBTestModels.Kind
