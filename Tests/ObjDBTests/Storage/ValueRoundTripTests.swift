import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// Every value type goes unmanaged → managed → closed → reopened unchanged.
struct ValueRoundTripTests {
    let directory = TemporaryDirectory()

    enum Scenario: String, CaseIterable, CustomTestStringConvertible {
        case minimum, maximum, zeroAndEmpty, special
        var testDescription: String { rawValue }

        /// A fully populated object for the scenario; values known independently of ObjDB.
        func make() -> AllTypes {
            let o = AllTypes()
            o.id = 1
            switch self {
            case .minimum:
                o.bool = false; o.int = .min; o.int8 = .min; o.int16 = .min; o.int32 = .min; o.int64 = .min
                o.float = -.greatestFiniteMagnitude; o.double = -.greatestFiniteMagnitude
                o.string = ""; o.data = Data(); o.date = .distantPast
                o.uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
                o.decimal = Decimal.leastFiniteMagnitude
                o.objectId = ObjectId(string: "000000000000000000000000")!
                o.kind = .regular; o.level = .low
            case .maximum:
                o.bool = true; o.int = .max; o.int8 = .max; o.int16 = .max; o.int32 = .max; o.int64 = .max
                o.float = .greatestFiniteMagnitude; o.double = .greatestFiniteMagnitude
                o.string = String(repeating: "x", count: 70_000); o.data = Data((0..<100_000).map { UInt8($0 % 251) })
                o.date = .distantFuture
                o.uuid = UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))
                o.decimal = Decimal.greatestFiniteMagnitude
                o.objectId = ObjectId(string: "ffffffffffffffffffffffff")!
                o.kind = .vip; o.level = .high
                o.optBool = true; o.optInt = .max; o.optInt8 = .max; o.optInt16 = .max; o.optInt32 = .max
                o.optInt64 = .max; o.optFloat = .greatestFiniteMagnitude; o.optDouble = .greatestFiniteMagnitude
                o.optString = String(repeating: "é", count: 1000); o.optData = Data(repeating: 255, count: 300)
                o.optDate = .distantFuture; o.optUUID = o.uuid; o.optDecimal = .greatestFiniteMagnitude
                o.optObjectId = o.objectId; o.optKind = .vip; o.optLevel = .high
            case .zeroAndEmpty:
                o.optBool = false; o.optInt = 0; o.optInt8 = 0; o.optInt16 = 0; o.optInt32 = 0; o.optInt64 = 0
                o.optFloat = 0; o.optDouble = 0; o.optString = ""; o.optData = Data()
                o.optDate = Date(timeIntervalSinceReferenceDate: 0); o.optDecimal = 0
                o.optKind = .regular; o.optLevel = .low
            case .special:
                o.int = -1; o.int8 = -1; o.int16 = 300; o.int32 = -70_000; o.int64 = 1 << 40
                o.float = -.infinity; o.double = .nan
                o.optFloat = .nan; o.optDouble = -0.0
                o.string = "Zoë 🧑‍🚀 中文 \u{0} tab\tend"; o.optString = "\u{0}\u{0}"
                o.data = Data([0, 0, 0]); o.date = Date(timeIntervalSince1970: 1_700_000_000.123456)
                o.decimal = Decimal(string: "-123456789.000000000000000000001")!; o.optDecimal = .nan
                o.uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
                o.objectId = ObjectId(string: "65a1f0c2b3e4d5f6a7b8c9d0")!
            }
            return o
        }
    }

    /// Compares every property; floating-point values by bit pattern (NaN, -0).
    static func expectSameValues(_ a: AllTypes, _ b: AllTypes, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.id == b.id, sourceLocation: sourceLocation)
        #expect(a.bool == b.bool, sourceLocation: sourceLocation)
        #expect(a.int == b.int && a.int8 == b.int8 && a.int16 == b.int16 && a.int32 == b.int32 && a.int64 == b.int64, sourceLocation: sourceLocation)
        #expect(a.float.bitPattern == b.float.bitPattern, sourceLocation: sourceLocation)
        #expect(a.double.bitPattern == b.double.bitPattern, sourceLocation: sourceLocation)
        #expect(a.string == b.string && a.string.utf8.count == b.string.utf8.count, sourceLocation: sourceLocation)
        #expect(a.data == b.data, sourceLocation: sourceLocation)
        #expect(a.date == b.date, sourceLocation: sourceLocation)
        #expect(a.uuid == b.uuid, sourceLocation: sourceLocation)
        #expect(a.decimal == b.decimal || (a.decimal.isNaN && b.decimal.isNaN), sourceLocation: sourceLocation)
        #expect(a.objectId == b.objectId, sourceLocation: sourceLocation)
        #expect(a.kind == b.kind && a.level == b.level, sourceLocation: sourceLocation)
        #expect(a.optBool == b.optBool, sourceLocation: sourceLocation)
        #expect(a.optInt == b.optInt && a.optInt8 == b.optInt8 && a.optInt16 == b.optInt16, sourceLocation: sourceLocation)
        #expect(a.optInt32 == b.optInt32 && a.optInt64 == b.optInt64, sourceLocation: sourceLocation)
        #expect(a.optFloat?.bitPattern == b.optFloat?.bitPattern, sourceLocation: sourceLocation)
        #expect(a.optDouble?.bitPattern == b.optDouble?.bitPattern, sourceLocation: sourceLocation)
        #expect(a.optString == b.optString, sourceLocation: sourceLocation)
        #expect(a.optData == b.optData, sourceLocation: sourceLocation)
        #expect(a.optDate == b.optDate, sourceLocation: sourceLocation)
        #expect(a.optUUID == b.optUUID, sourceLocation: sourceLocation)
        #expect(a.optDecimal == b.optDecimal || (a.optDecimal?.isNaN == true && b.optDecimal?.isNaN == true), sourceLocation: sourceLocation)
        #expect(a.optObjectId == b.optObjectId, sourceLocation: sourceLocation)
        #expect(a.optKind == b.optKind && a.optLevel == b.optLevel, sourceLocation: sourceLocation)
    }

    @Test(arguments: Scenario.allCases)
    func roundTripsThroughAddAndReopen(_ scenario: Scenario) throws {
        let expected = scenario.make()
        do {
            let db = try directory.open([AllTypes.self])
            let object = scenario.make()
            Self.expectSameValues(object, expected)          // unmanaged
            try db.write { try db.add(object) }
            #expect(object.isManaged)
            Self.expectSameValues(object, expected)          // managed, same transaction version
            let fetched = try #require(db.object(ofType: AllTypes.self, forPrimaryKey: 1))
            Self.expectSameValues(fetched, expected)         // a second instance of the stored object
        }
        let reopened = try directory.open([AllTypes.self])
        let object = try #require(reopened.object(ofType: AllTypes.self, forPrimaryKey: 1))
        Self.expectSameValues(object, expected)              // after closing and reopening the file
    }

    @Test(arguments: Scenario.allCases)
    func roundTripsWhenSetOnManagedObject(_ scenario: Scenario) throws {
        let db = try directory.open([AllTypes.self])
        let object = AllTypes()
        object.id = 1
        try db.write { try db.add(object) }
        let source = scenario.make()
        try db.write {
            // Set every property through the managed accessors.
            for property in object.objectSchema.properties where property.name != "id" {
                object[property.name] = source[property.name]
            }
        }
        Self.expectSameValues(object, source)
        let reopened = try directory.open([AllTypes.self], name: "test.objdb")
        let again = try #require(reopened.object(ofType: AllTypes.self, forPrimaryKey: 1))
        Self.expectSameValues(again, source)
    }

    @Test func defaultsWithoutDeclaredValueAreGenerated() throws {
        let a = UUIDKeyed()
        let b = UUIDKeyed()
        #expect(a.key != b.key)
        let c = ObjectIdKeyed()
        let d = ObjectIdKeyed()
        #expect(c.key != d.key)
        #expect(c.key < d.key)
    }
}
