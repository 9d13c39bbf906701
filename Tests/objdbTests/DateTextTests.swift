import Foundation
import Testing
@testable import objdb

/// The one date convention (`DateText`): ISO 8601, milliseconds where they are exact, more
/// digits where they are not, and every date read back to the same `Double`.
struct DateTextTests {
    /// `seconds` (since 2001) written, then read.
    func roundTrip(_ seconds: Double) throws -> (text: String, back: Double?) {
        let text = try DateText.text(seconds)
        return (text, DateText.seconds(text))
    }

    /// Foundation's text of a whole second `seconds` after 1970: the expected civil part.
    func civil(_ seconds1970: Double) -> String {
        String(Date(timeIntervalSince1970: seconds1970).formatted(Date.ISO8601FormatStyle()).dropLast())  // without Z
    }

    @Test func millisecondDatesKeepTheDocumentedText() throws {
        // Made from a count of milliseconds since 1970, as clocks and other systems make them.
        let fromMilliseconds = Date(timeIntervalSince1970: 1_764_064_800.123)
        let (text, back) = try roundTrip(fromMilliseconds.timeIntervalSinceReferenceDate)
        #expect(text == "2025-11-25T10:00:00.123Z")  // objdb before cut this one to .122
        #expect(back == fromMilliseconds.timeIntervalSinceReferenceDate)
        #expect(try roundTrip(0).text == "2001-01-01T00:00:00.000Z")
        #expect(try roundTrip(0.25).text == "2001-01-01T00:00:00.250Z")
        // 1 ms before 2001, counted from 2001: not a millisecond date of 1970's, so four digits.
        #expect(try roundTrip(-0.001).text == "2000-12-31T23:59:59.9990Z")
        #expect(try roundTrip(-0.001).back == -0.001)
    }

    @Test func finerDatesGetTheDigitsTheyNeed() throws {
        // 785,714,400 s after 2001 is 1,764,021,600 s after 1970.
        let subMicrosecond = 785_714_400.123_456_789
        let (text, back) = try roundTrip(subMicrosecond)
        #expect(text == civil(1_764_021_600) + ".1234568Z")  // Double's shortest digits: 785714400.1234568
        #expect(back?.bitPattern == subMicrosecond.bitPattern)

        // The same digits as a millisecond date, but seconds since 2001: four digits, so that
        // it is read in 2001's frame and not as the neighbouring millisecond date of 1970's.
        let since2001 = 785_757_600.123
        let since1970 = Date(timeIntervalSince1970: 1_764_064_800.123).timeIntervalSinceReferenceDate
        #expect(since2001 != since1970)
        #expect(try roundTrip(since2001).text == "2025-11-25T10:00:00.1230Z")
        #expect(DateText.seconds("2025-11-25T10:00:00.1230Z") == since2001)
        #expect(DateText.seconds("2025-11-25T10:00:00.123Z") == since1970)

        // Before 2001: the fraction counts up from the second before, 1000000000.0001 s earlier.
        let negative = -1e9 - 0.000_1
        let before = try roundTrip(negative)
        #expect(before.text == civil(978_307_200 - 1_000_000_001) + ".9999Z")
        #expect(before.back == negative)

        // The smallest positive Double: 324 digits after the point, read back exactly.
        let tiny = try roundTrip(.leastNonzeroMagnitude)
        #expect(tiny.text == "2001-01-01T00:00:00." + String(repeating: "0", count: 323) + "5Z")
        #expect(tiny.back == .leastNonzeroMagnitude)
    }

    @Test func yearsOutsideFourDigitsHaveASign() throws {
        let tenThousand = 253_402_300_800.0 - 978_307_200  // 10000-01-01T00:00:00Z
        #expect(try roundTrip(tenThousand).text == "+10000-01-01T00:00:00.000Z")
        #expect(try roundTrip(tenThousand).back == tenThousand)
        // 0000-01-01 is 719,528 days before 1970 (proleptic Gregorian); a year before it is -0001.
        let yearZero = -719_528 * 86_400.0 - 978_307_200
        #expect(try roundTrip(yearZero).text == "0000-01-01T00:00:00.000Z")
        #expect(try roundTrip(yearZero - 365 * 86_400).text == "-0001-01-01T00:00:00.000Z")
        #expect(try roundTrip(yearZero - 365 * 86_400).back == yearZero - 365 * 86_400)
        let far = 0x1p60
        #expect(try roundTrip(far).back == far)
        #expect(try roundTrip(-far).back == -far)
        // Foundation's distantPast is 0001-01-01 in the Julian calendar: two days earlier here.
        #expect(try roundTrip(Date.distantPast.timeIntervalSinceReferenceDate).text == "0000-12-30T00:00:00.000Z")
        #expect(try roundTrip(Date.distantFuture.timeIntervalSinceReferenceDate).text == "4001-01-01T00:00:00.000Z")
    }

    @Test func datesThatAreNotNumbersAndDatesBeyondTheLimit() throws {
        #expect(try DateText.text(.nan) == "nan")
        #expect(try DateText.text(.infinity) == "inf")
        #expect(try DateText.text(-.infinity) == "-inf")
        #expect(DateText.seconds("nan")?.isNaN == true)
        #expect(DateText.seconds("-inf") == -.infinity)
        #expect(throws: DateText.Unwritable.self) { try DateText.text(1e300) }
        #expect(throws: DateText.Unwritable.self) { try DateText.text(-0x1p61) }
        #expect(DateText.seconds("+99999999999-01-01T00:00:00Z") == nil)  // beyond the limit
    }

    // Doubles of every size (2^-60 to 2^60 seconds) and sign read back bit for bit: 20,000
    // spread over the range by a fixed odd step through their bits (the same every run).
    @Test func manyDatesReadBackExactly() throws {
        var bits: UInt64 = 0x0DB_D47E
        for _ in 0..<20_000 {
            bits &+= 0x9E37_79B9_7F4A_7C15
            let exponent = Double(Int(bits >> 57) - 60)  // 0...127, cut to ±60 below
            let magnitude = Double(bits & 0x001F_FFFF_FFFF_FFFF) / Double(1 << 53) * pow(2, min(exponent, 60))
            let seconds = bits & 1 == 0 ? magnitude : -magnitude
            let (text, back) = try roundTrip(seconds)
            #expect(back == seconds, "\(seconds) → \(text) → \(back.map(String.init(describing:)) ?? "nil")")
        }
        for milliseconds in stride(from: -5_000_000_000_000 as Int64, to: 5_000_000_000_000, by: 7_777_777_777) {
            let seconds = Date(timeIntervalSince1970: Double(milliseconds) / 1000).timeIntervalSinceReferenceDate
            let (text, back) = try roundTrip(seconds)
            #expect(text.utf8.count == 24 && back == seconds, "\(milliseconds) ms → \(text)")
        }
    }

    @Test func otherISO8601FormsAreRead() throws {
        let tenAM = Date(timeIntervalSince1970: 1_764_064_800).timeIntervalSinceReferenceDate
        #expect(DateText.seconds("2025-11-25T10:00:00Z") == tenAM)
        #expect(DateText.seconds("2025-11-25T10:00Z") == tenAM)
        #expect(DateText.seconds("2025-11-25T12:00:00+02:00") == tenAM)
        #expect(DateText.seconds("2025-11-25T05:30:00.000-04:30") == tenAM)
        #expect(DateText.seconds("2025-11-25") == tenAM - 36_000)
        #expect(DateText.seconds("2024-02-29T00:00:00Z") != nil)
    }

    @Test(arguments: [
        "", "2025", "2025-11", "2025-11-25T10:00:00", "2025-11-25 10:00:00Z", "2025-11-25t10:00:00z", "2025-02-29",
        "2025-04-31", "2025-13-01", "2025-00-10", "2025-11-25T24:00:00Z", "2025-11-25T10:60:00Z", "2025-11-25T10:00:60Z",
        "2025-11-25T10:00:00.Z", "2025-11-25T10:00:00+2:00", "12025-01-01", "+202-01-01", "1764064800", "NaN", "Infinity",
        "2025-11-25T10:00:00Zx", " 2025-11-25",
    ])
    func malformedDatesAreRefused(_ text: String) {
        #expect(DateText.seconds(text) == nil)
    }
}
