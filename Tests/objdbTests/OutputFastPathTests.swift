import Foundation
import Testing
@testable import objdb
@testable @_spi(Inspection) import ObjDB
import ObjDBTestModels

/// The output's fast paths against their slow twins: JSON written byte by byte against the
/// same objects through `JSONSerialization`, and dates formatted and parsed without ICU against
/// Foundation's ISO 8601 style.
struct OutputFastPathTests {
    let scratch = Scratch()

    /// What CLI.md says an object's JSON is, built with Foundation from the object's values
    /// (dates by Foundation's ISO 8601 style): the twin the byte writer is checked against.
    static func foundationJSON(_ value: Any?, _ db: Database, depth: Int) -> Any {
        switch value {
        case nil: return NSNull()
        case let object as DynamicObject:
            guard let schema = db.schema[object.className] else { return NSNull() }
            if !schema.isEmbedded && depth <= 0 {
                if let primaryKey = schema.primaryKeyProperty {
                    return ["$class": object.className, "$pk": foundationJSON(object[primaryKey.name], db, depth: 0)] as NSDictionary
                }
                return ["$class": object.className, "$key": Int(object.objectKey ?? 0)] as NSDictionary
            }
            var json: [String: Any] = ["$class": object.className]
            if !schema.isEmbedded { json["$key"] = Int(object.objectKey ?? 0) }
            for property in schema.properties where !property.isComputed {
                json[property.name] = foundationJSON(object[property.name], db, depth: depth - 1)
            }
            return json as NSDictionary
        case let array as [Any?]: return array.map { foundationJSON($0, db, depth: depth) } as NSArray
        case let map as [String: Any?]: return map.mapValues { foundationJSON($0, db, depth: depth) } as NSDictionary
        case let int as Int8: return Int(int)
        case let int as Int16: return Int(int)
        case let int as Int32: return Int(int)
        case let int as Int64: return Int(int)
        case let float as Float: return Double(float)  // the fixture's floats are exact as Doubles
        case let data as Data: return data.base64EncodedString()
        case let date as Date: return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        case let decimal as Decimal: return decimal.description
        case let id as ObjectId: return id.stringValue
        case let uuid as UUID: return uuid.uuidString
        case let some?: return some
        }
    }

    // The one object writer (and with it, the value table) writes what CLI.md documents.
    @Test func byteWrittenJSONEqualsJSONSerialization() throws {
        let db = try CLIFixture.make(scratch.file("fixture.objdb"))
        for depth in [0, 1, 2] {
            let writer = ObjectWriter(db: db, linkDepth: depth)
            for schema in db.schema.objectSchema where !schema.isEmbedded {
                for object in db.dynamicObjects(schema.className) {
                    var text = JSONText()
                    try writer.write(object, into: &text)
                    let fast = try JSONSerialization.jsonObject(with: Data(text.bytes)) as? NSDictionary
                    let slow = Self.foundationJSON(object, db, depth: depth + 1) as? NSDictionary
                    #expect(fast != nil)
                    #expect(fast == slow, "\(schema.className) at depth \(depth): \(text.text)")
                }
            }
        }
    }

    /// The export's row path (plain values read from the stored bytes) writes every object of
    /// the fixture, and values chosen to be awkward, byte for byte as the object path does.
    @Test func rowWrittenJSONEqualsObjectWrittenJSON() throws {
        let db = try CLIFixture.make(scratch.file("rows.objdb"))
        try db.write {
            for (index, text) in ["é 😀 \u{07}\t\"\\", "", "\u{0}", String(repeating: "long ", count: 100)].enumerated() {
                let all = AllTypes()
                all.id = 100 + index
                all.string = text
                all.optString = index % 2 == 0 ? text : nil
                all.double = [Double.infinity, -.infinity, .nan, -0.0][index]
                all.float = [Float.nan, .infinity, -1e-30, .greatestFiniteMagnitude][index]
                all.int = [Int.min, Int.max, 0, -1][index]
                all.optDate = index % 2 == 0 ? Date(timeIntervalSinceReferenceDate: -1e9 + Double(index)) : nil
                all.optBool = index % 2 == 1 ? false : nil
                try db.add(all)
            }
        }
        for depth in [0, 1] {
            let json = ObjectWriter(db: db, linkDepth: depth)
            for schema in db.schema.objectSchema where !schema.isEmbedded {
                let layout = try #require(json.layouts.layout(schema.className))
                var fromRows: [String] = []
                try db.forEachStoredRow(ofClassNamed: schema.className) { row in
                    var text = JSONText()
                    try json.write(row, layout: layout, into: &text)
                    fromRows.append(text.text)
                }
                let fromObjects = try db.dynamicObjects(schema.className).map { object in
                    var text = JSONText()
                    try json.write(object, into: &text)
                    return text.text
                }
                #expect(fromRows.count == db.objectCount(ofClassNamed: schema.className))
                #expect(fromRows == Array(fromObjects), "\(schema.className) at depth \(depth)")
            }
        }
    }

    @Test func stringsAreEscaped() throws {
        var text = JSONText()
        let tricky = "quote \" backslash \\ newline \n tab \t bell \u{07} é 😀"
        text.string(tricky)
        #expect(try JSONSerialization.jsonObject(with: Data(text.bytes), options: [.fragmentsAllowed]) as? String == tricky)
    }

    // Times whose milliseconds are exact in binary, after 1582 (Foundation switches to the
    // Julian calendar before the Gregorian reform; ISO 8601 and this formatter do not).
    @Test(arguments: [
        0.0, 0.25, -0.5, 951_782_400.5 /* 2000-02-29 */, -5_364_662_400 /* 1800-01-01 */,
        -5_395_000_000.125, 1_764_064_800.25, 4_102_444_799.75 /* 2099-12-31 */,
    ])
    func datesMatchFoundation(_ seconds: Double) throws {
        let date = Date(timeIntervalSince1970: seconds)
        let text = try DateText.text(date.timeIntervalSinceReferenceDate)
        #expect(text == date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        let parsed = try #require(DateText.seconds(text))
        #expect(parsed == date.timeIntervalSinceReferenceDate)
    }

    // Before the Gregorian reform the proleptic Gregorian calendar of ISO 8601 is used.
    @Test func earlyDatesUseTheProlepticGregorianCalendar() throws {
        let firstDay = Date(timeIntervalSince1970: -62_135_596_800)
        #expect(try DateText.text(firstDay.timeIntervalSinceReferenceDate) == "0001-01-01T00:00:00.000Z")
        #expect(DateText.seconds("0001-01-01T00:00:00.000Z") == firstDay.timeIntervalSinceReferenceDate)
        #expect(DateText.seconds("2026-13-01T00:00:00.000Z") == nil)
        #expect(DateText.seconds("2026-01-01 00:00:00.000Z") == nil)
    }
}
