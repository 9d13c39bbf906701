import Foundation
import Testing
@_spi(Implementation) @testable import ObjDB

final class MixedHolder: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var value: MixedValue = .none
    @Persisted var history: List<MixedValue>
    @Persisted var extras: Map<String, MixedValue>
    @Persisted var bag: MutableSet<MixedValue>
}

/// Gauge, version 0: `reading` an Int.
final class GaugeV0: Object {
    override class var className: String { "Gauge" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var reading: Int = 0
}

/// Gauge, version 1: `reading` a mixed value.
final class GaugeV1: Object {
    override class var className: String { "Gauge" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var reading: MixedValue = .none
}

/// `MixedValue`: its encoding, collections, dynamic access, notifications and freezing. Cases
/// follow realm-swift's `RealmSwift/Tests/AnyRealmValueTests.swift` (a value of each type stored
/// and read back, in a property, a list and a map).
@Suite(.serialized)
struct MixedValueTests {
    let directory = TemporaryDirectory()

    func open() throws -> Database { try directory.open([MixedHolder.self]) }

    /// One value of each case, edge values included. `nonisolated(unsafe)`: `MixedValue` is not
    /// `Sendable` (its `object` case holds an object); these values hold none.
    nonisolated(unsafe) static let samples: [MixedValue] = [
        .none, .int(0), .int(1), .int(-1), .int(Int.min), .int(Int.max), .bool(false), .bool(true),
        .float(0), .float(-0.0), .float(.infinity), .float(1.5), .double(-0.0), .double(.infinity), .double(-.infinity),
        .double(.pi), .string(""), .string("héllo 🙂"), .data(Data()), .data(Data([0, 1, 255])),
        .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: -1e9)),
        .objectId(ObjectId(bytes: [UInt8](repeating: 7, count: 12))!), .decimal(Decimal(string: "123.456")!), .decimal(0),
        .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        .list([]), .list([.int(1), .string("a"), .none, .list([.bool(true)])]), .dictionary([:]),
        .dictionary(["k": .bool(true), "": .none, "é": .dictionary(["n": .list([.double(2.5), .data(Data([9]))])])]),
    ]

    func holder(_ id: Int, _ value: MixedValue) -> MixedHolder {
        let holder = MixedHolder()
        holder.id = id
        holder.value = value
        return holder
    }

    // AnyRealmValueTests: each type set on an object and read back.
    @Test(arguments: samples.indices)
    func everyCaseRoundTripsThroughAProperty(_ index: Int) throws {
        let value = Self.samples[index]
        let db = try open()
        try db.write { try db.add(holder(1, value)) }
        let stored = try #require(db.object(ofType: MixedHolder.self, forPrimaryKey: 1))
        #expect(stored.value == value)
        #expect(stored.value.typeName == value.typeName)
        try db.write { stored.value = .int(5) }
        #expect(stored.value == .int(5))
        try db.write { stored.value = value }
        #expect(stored.value == value)
    }

    @Test func nanRoundTrips() throws {
        let db = try open()
        try db.write { try db.add([holder(1, .double(.nan)), holder(2, .float(.nan)), holder(3, .decimal(.nan))]) }
        let values = db.objects(MixedHolder.self).sorted(by: \.id).map(\.value)
        #expect(values[0].doubleValue?.isNaN == true)
        #expect(values[1].floatValue?.isNaN == true)
        #expect(values[2].decimal128Value?.isNaN == true)
    }

    @Test func theEncodingIsATagAndTheTypesOwnBytes() {
        func bytes(_ value: MixedValue) -> [UInt8]? {
            var out = _ObjDBBytes()
            return value._objdbEncode(into: &out) ? out.array : nil
        }
        #expect(bytes(.none) == nil)
        #expect(bytes(.bool(true)) == [1, 1])
        #expect(bytes(.int(0)) == [2])
        #expect(bytes(.int(-2)) == [2, 0xFE])
        #expect(bytes(.string("a")) == [6, 0x61])
        #expect(bytes(.data(Data())) == [7])
        #expect(MixedValue._objdbDecode(nil) == MixedValue.none)
        // An unknown tag, and a payload its type does not decode, are damaged bytes.
        #expect([UInt8]([99, 1]).withUnsafeBytes { MixedValue._objdbDecode($0) } == nil)
        #expect([UInt8]([10, 1, 2]).withUnsafeBytes { MixedValue._objdbDecode($0) } == nil)
        #expect([UInt8]().withUnsafeBytes { MixedValue._objdbDecode($0) } == nil)
    }

    @Test func accessorsAnswerOnlyForTheirCase() {
        #expect(MixedValue.int(3).intValue == 3)
        #expect(MixedValue.int(3).doubleValue == nil)
        #expect(MixedValue.string("on").stringValue == "on")
        #expect(MixedValue.bool(true).boolValue == true)
        #expect(MixedValue.none.isNone)
        #expect(MixedValue.data(Data([1])).typeName == "binary")
        #expect(MixedValue.none.typeName == "null")
        #expect(MixedValue(Int8(4)) == .int(4))
        #expect(MixedValue(nil as Int?) == MixedValue.none)
        #expect(MixedValue(["a", 1, nil] as [Any?]) == .list([.string("a"), .int(1), .none]))
        #expect(MixedValue(["k": [1.5]] as [String: Any]) == .dictionary(["k": .list([.double(1.5)])]))
        #expect(MixedValue([NSObject()]) == nil)
        #expect(MixedValue.list([]).typeName == "list")
        #expect(MixedValue.dictionary([:]).typeName == "dictionary")
    }

    // AnyRealmValueTests testList / testMap (and the set's), with values of several types.
    @Test func listsMapsAndSetsHoldMixedValues() throws {
        let db = try open()
        let h = holder(1, .none)
        h.history.append(objectsIn: [.int(1), .string("a"), .none, .double(2.5), .uuid(UUID())])
        h.extras["k"] = .bool(true)
        h.extras["n"] = MixedValue.none
        h.bag.insert(.int(1))
        h.bag.insert(.double(1))
        h.bag.insert(.int(1))
        let expectedHistory = Array(h.history)
        try db.write { try db.add(h) }
        let stored = try #require(db.object(ofType: MixedHolder.self, forPrimaryKey: 1))
        #expect(Array(stored.history) == expectedHistory)
        #expect(stored.extras["k"] == .bool(true))
        #expect(stored.extras["n"] == MixedValue.none)
        // Numbers are one member of a set when equal as numbers: `.int(1)` and `.double(1)` are one.
        #expect(stored.bag.count == 1)
        try db.write {
            stored.history.append(.date(Date(timeIntervalSinceReferenceDate: 5)))
            stored.extras["k"] = .string("x")
        }
        #expect(stored.history.last == .date(Date(timeIntervalSinceReferenceDate: 5)))
        #expect(stored.extras["k"] == .string("x"))
    }

    @Test func schemaAndDynamicAccess() throws {
        let db = try open()
        let property = try #require(MixedHolder().objectSchema["value"])
        #expect(property.type == .mixed)
        #expect(property.isOptional)
        #expect(try #require(MixedHolder().objectSchema["history"]).type == .mixed)
        try db.write { try db.add(holder(1, .float(1.5))) }
        let stored = try #require(db.object(ofType: MixedHolder.self, forPrimaryKey: 1))
        #expect(stored["value"] as? MixedValue == .float(1.5))
        try db.write { try stored.setValue("text", forKey: "value") }
        #expect(stored.value == .string("text"))
        try db.write { try stored.setValue(MixedValue.uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!), forKey: "value") }
        #expect(stored.value.uuidValue?.uuidString == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        try db.write { try stored.setValue(nil, forKey: "value") }
        #expect(stored.value == MixedValue.none)
        let dynamic = try #require(db.dynamicObjects("MixedHolder").first)
        try db.write { stored.value = .int(9) }
        #expect(dynamic["value"] as? MixedValue == .int(9))
        _ = try db.write { try db.create(MixedHolder.self, value: ["id": 2, "value": 2.5]) }
        #expect(db.object(ofType: MixedHolder.self, forPrimaryKey: 2)?.value == .double(2.5))
        // The file verifies with mixed values in it.
        #expect(try db.verify().isHealthy)
    }

    @Test func aChangeOfAMixedPropertyIsNotified() throws {
        let db = try open()
        try db.write { try db.add(holder(1, .int(1))) }
        let stored = try #require(db.object(ofType: MixedHolder.self, forPrimaryKey: 1))
        var changes: [(String, Any?)] = []
        let token = stored.observe { change in
            if case .change(_, let properties) = change { changes += properties.map { ($0.name, $0.newValue) } }
        }
        try db.write { stored.value = .string("on") }
        #expect(changes.count == 1)
        #expect(changes.first?.0 == "value")
        #expect(changes.first?.1 as? MixedValue == .string("on"))
        withExtendedLifetime(token) {}
    }

    @Test func aFrozenObjectKeepsItsMixedValue() throws {
        let db = try open()
        try db.write { try db.add(holder(1, .decimal(Decimal(string: "1.25")!))) }
        let stored = try #require(db.object(ofType: MixedHolder.self, forPrimaryKey: 1))
        let frozen = stored.freeze()
        try db.write { stored.value = .bool(false) }
        #expect(frozen.value == .decimal(Decimal(string: "1.25")!))
        #expect(stored.value == .bool(false))
    }

    // realm-swift MigrationTests (a property's type changed, values converted in the block):
    // an Int property becomes mixed, and back.
    @Test func aMigrationConvertsAnIntPropertyToMixedAndBack() throws {
        func configuration(_ type: ObjectBase.Type, _ version: UInt64, _ block: MigrationBlock? = nil) -> Configuration {
            var configuration = directory.configuration([type])
            configuration.schemaVersion = version
            configuration.migrationBlock = block
            return configuration
        }
        do {
            let db = try Database(configuration: configuration(GaugeV0.self, 0))
            try db.write {
                for id in 1...3 {
                    let gauge = GaugeV0()
                    gauge.id = id
                    gauge.reading = id * 10
                    try db.add(gauge)
                }
            }
        }
        do {
            let db = try Database(configuration: configuration(GaugeV1.self, 1) { migration, _ in
                try migration.enumerateObjects(ofType: "Gauge") { old, new in
                    guard let reading = old?["reading"] as? Int else { return }
                    new?["reading"] = reading == 20 ? MixedValue.string("twenty") : MixedValue.int(reading)
                }
            })
            #expect(db.objects(GaugeV1.self).sorted(by: \.id).map(\.reading) == [.int(10), .string("twenty"), .int(30)])
            #expect(try db.objects(GaugeV1.self).filter("reading == 30.0").count == 1)
            #expect(db.schema["Gauge"]?["reading"]?.type == .mixed)
        }
        do {
            let db = try Database(configuration: configuration(GaugeV0.self, 2) { migration, _ in
                try migration.enumerateObjects(ofType: "Gauge") { old, new in
                    new?["reading"] = (old?["reading"] as? MixedValue)?.intValue ?? -1
                }
            })
            #expect(db.objects(GaugeV0.self).sorted(by: \.id).map(\.reading) == [10, -1, 30])
        }
    }

    // realm-core's SetElementLessThan<Mixed>: numbers compare as the real numbers they are, so
    // the integer 3, the float 3, the double 3 and the decimal 3 are one member; NaNs are one;
    // a float 0.1 is not the double 0.1; a string "3" is no number.
    @Test func aSetOfMixedValuesHoldsEachNumberOnce() throws {
        let db = try open()
        let h = holder(1, .none)
        h.bag.insert(objectsIn: [.int(3), .float(3), .double(3), .decimal(3), .string("3"), .double(.nan), .float(.nan), .float(0.1), .double(0.1)])
        #expect(h.bag.count == 5)
        try db.write { try db.add(h) }
        let stored = try #require(db.object(ofType: MixedHolder.self, forPrimaryKey: 1))
        #expect(stored.bag.count == 5)
        #expect(stored.bag.contains(.decimal(3)))
        #expect(stored.bag.contains(.double(.nan)))
        #expect(!stored.bag.contains(.int(4)))
        try db.write {
            stored.bag.insert(.double(3))  // already a member
            stored.bag.insert(.int(-0))
            stored.bag.insert(.double(-0.0))  // the same number as 0
        }
        #expect(stored.bag.count == 6)
        try db.write { stored.bag.remove(.float(3)) }  // removes the integer 3
        #expect(stored.bag.count == 5)
        #expect(!stored.bag.contains(.int(3)))
        #expect(stored.bag.contains(.string("3")))
        try db.write {
            _ = try db.createDynamicObject("MixedHolder", value: ["id": 2, "bag": [MixedValue.int(7), MixedValue.double(7), MixedValue.decimal(7.5)]])
        }
        #expect(db.object(ofType: MixedHolder.self, forPrimaryKey: 2)?.bag.count == 2)
        #expect(try db.verify().isHealthy)
    }
}
