/// Dates as outside text, the one convention of every format the CLI reads and writes
/// (`Docs/CLI.md`, "Values"): ISO 8601 in UTC, `2025-11-25T10:00:00.250Z`, exact both ways.
///
/// ObjDB stores a date as a `Double` of seconds since 2001-01-01T00:00:00Z. It is written with
/// milliseconds when the millisecond text reads back to the same `Double` — every date made from
/// a clock reading in milliseconds or from such text — and otherwise with as many more fraction
/// digits as it takes (at least four), so that no date is cut. Reading takes three fraction
/// digits or fewer as milliseconds since 1970, as other ISO 8601 readers do, and four or more as
/// the exact decimal seconds since 2001 they spell. Years outside 0000…9999 carry a sign and at
/// least four digits (`+12025-…`, `-0044-…`). A date that is not a number is `nan`, `inf` or
/// `-inf`, as a `Double` is.
enum DateText {
    /// Seconds from 1970-01-01 to 2001-01-01.
    static let secondsFrom1970: Int64 = 978_307_200
    /// Dates are written and read within this many seconds of 2001 (about 73 billion years, years
    /// of at most 11 digits); a finite date beyond is refused rather than spelled some other way.
    static let limit: Double = 0x1p61
    /// Below this many seconds from 1970 (about 285,000 years) milliseconds since 1970 are exact
    /// in a `Double`, and three fraction digits or fewer are read as such.
    static let millisecondRange: Int64 = 9_000_000_000_000

    /// What a date needs to be, in messages.
    static let expected = "an ISO 8601 date (2026-11-25T10:00:00.000Z)"

    /// Why a date cannot be written.
    struct Unwritable: Error {
        /// The date, as seconds since 2001.
        let seconds: Double
        /// What to tell the user.
        var reason: String {
            "the date \(seconds) seconds from 2001-01-01 is beyond the years ISO 8601 text names here (±73 billion)"
        }
    }

    /// The date `seconds` after 2001-01-01 as text, unquoted.
    static func text(_ seconds: Double) throws(Unwritable) -> String {
        var text = JSONText()
        try write(seconds, into: &text, quoted: false)
        return text.text
    }

    /// Appends the date `seconds` after 2001-01-01 as ISO 8601, quoted unless `quoted` is false.
    /// The millisecond form is computed without a formatter (days to civil dates, Howard
    /// Hinnant's algorithm; the proleptic Gregorian calendar, as ISO 8601 has it).
    static func write(_ seconds: Double, into json: inout JSONText, quoted: Bool = true) throws(Unwritable) {
        guard seconds.isFinite else {
            let name = seconds.isNaN ? "nan" : seconds < 0 ? "-inf" : "inf"
            return quoted ? json.string(name) : json.raw(name)
        }
        guard abs(seconds) < limit else { throw Unwritable(seconds: seconds) }
        let whole = seconds.rounded(.down)
        var second = Int64(whole) + secondsFrom1970
        // A whole second reads back from ".000" exactly (every integer here is exact in a Double).
        var milliseconds: Int64 = 0
        if whole != seconds {
            milliseconds = Int64(((seconds - whole) * 1000).rounded())
            if milliseconds == 1000 {
                second += 1
                milliseconds = 0
            }
        }
        if abs(second) < millisecondRange, whole == seconds || millisecondsSince1970(second * 1000 + milliseconds) == seconds {
            if quoted { json.byte(0x22) }
            civil(second, into: &json)
            json.byte(0x2E)
            json.digits(milliseconds, 3)
            json.byte(0x5A)
            if quoted { json.byte(0x22) }
            return
        }
        let (exactWhole, fraction) = Self.decimalParts(seconds)
        let exactSecond = exactWhole + secondsFrom1970
        var digits = fraction
        let minimum = abs(exactSecond) < millisecondRange ? 4 : 3
        if digits.count < minimum { digits += [UInt8](repeating: 0x30, count: minimum - digits.count) }
        if quoted { json.byte(0x22) }
        civil(exactSecond, into: &json)
        json.byte(0x2E)
        json.bytes(digits)
        json.byte(0x5A)
        if quoted { json.byte(0x22) }
    }

    /// The date `milliseconds` after 1970 as seconds after 2001, rounded as a reader of
    /// milliseconds rounds it.
    private static func millisecondsSince1970(_ milliseconds: Int64) -> Double {
        Double(milliseconds) / 1000 - Double(secondsFrom1970)
    }

    /// Appends the civil date and time of `second` (seconds since 1970, UTC), without fraction.
    private static func civil(_ second: Int64, into json: inout JSONText) {
        var days = second / 86_400
        var rest = second % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        if year < 0 || year > 9_999 {
            json.byte(year < 0 ? 0x2D : 0x2B)
            let magnitude = String(year.magnitude)
            json.raw(String(repeating: "0", count: max(0, 4 - magnitude.count)) + magnitude)
        } else {
            json.digits(year, 4)
        }
        json.byte(0x2D)
        json.digits(month, 2)
        json.byte(0x2D)
        json.digits(day, 2)
        json.byte(0x54)
        json.digits(rest / 3_600, 2)
        json.byte(0x3A)
        json.digits(rest / 60 % 60, 2)
        json.byte(0x3A)
        json.digits(rest % 60, 2)
    }

    /// `seconds` as its shortest exact decimal (Swift's `description`, which reads back to the
    /// same `Double`), split into a whole number of seconds rounded down and the digits after the
    /// point: `seconds == whole + 0.fraction` exactly, without trailing zeros.
    private static func decimalParts(_ seconds: Double) -> (whole: Int64, fraction: [UInt8]) {
        var text = Array(seconds.magnitude.description.utf8)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == 0x65 || $0 == 0x45 }) {
            exponent = Int(String(decoding: text[(e + 1)...], as: UTF8.self)) ?? 0
            text.removeSubrange(e...)
        }
        let point = text.firstIndex(of: 0x2E) ?? text.count
        let mantissa = text.filter { $0 != 0x2E }
        let position = point + exponent  // digits of `mantissa` before the decimal point
        var integer: [UInt8], fraction: [UInt8]
        if position <= 0 {
            integer = []
            fraction = [UInt8](repeating: 0x30, count: -position) + mantissa
        } else if position >= mantissa.count {
            integer = mantissa + [UInt8](repeating: 0x30, count: position - mantissa.count)
            fraction = []
        } else {
            integer = Array(mantissa[..<position])
            fraction = Array(mantissa[position...])
        }
        while fraction.last == 0x30 { fraction.removeLast() }
        var whole: Int64 = 0
        for digit in integer { whole = whole * 10 + Int64(digit - 0x30) }
        guard seconds < 0 else { return (whole, fraction) }
        guard !fraction.isEmpty else { return (-whole, []) }
        return (-whole - 1, complement(fraction))
    }

    /// 10^n − `digits` as n digits, for n digits that are not all zero.
    private static func complement(_ digits: [UInt8]) -> [UInt8] {
        var result = digits
        guard let last = digits.lastIndex(where: { $0 != 0x30 }) else { return digits }
        for index in 0..<last { result[index] = 0x30 + 9 - (digits[index] - 0x30) }
        result[last] = 0x30 + 10 - (digits[last] - 0x30)
        return result
    }

    // MARK: Reading

    /// The seconds since 2001 that `text` names: ISO 8601 with `Z` or an offset (`+02:00`),
    /// minutes, seconds and any number of fraction digits optional, or a date alone (midnight
    /// UTC); `nan`, `inf`, `-inf`. `nil` for anything else, an impossible day or time, or a date
    /// beyond ``limit``.
    static func seconds(_ text: String) -> Double? {
        switch text {
        case "nan": return .nan
        case "inf": return .infinity
        case "-inf": return -.infinity
        default: break
        }
        var reader = ISOReader(bytes: Array(text.utf8))
        return reader.read()
    }

    /// The number of days from 1970-01-01 to the civil date (Howard Hinnant's algorithm).
    fileprivate static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The seconds since 2001 of `second` (since 1970) and the decimal `fraction` digits after it,
    /// as ``write(_:into:quoted:)`` spells dates: milliseconds since 1970 for three digits or
    /// fewer near enough to 1970, else the exact decimal since 2001.
    fileprivate static func seconds(second: Int64, fraction: [UInt8]) -> Double? {
        if fraction.count <= 3 && abs(second) < millisecondRange {
            var milliseconds: Int64 = 0
            for index in 0..<3 { milliseconds = milliseconds * 10 + (index < fraction.count ? Int64(fraction[index] - 0x30) : 0) }
            return millisecondsSince1970(second * 1000 + milliseconds)
        }
        let whole = second - secondsFrom1970
        let digits = fraction.contains { $0 != 0x30 } ? fraction : []
        let decimal: String
        if whole >= 0 || digits.isEmpty {
            decimal = "\(whole)." + (digits.isEmpty ? "0" : String(decoding: digits, as: UTF8.self))
        } else {
            decimal = "-\(-whole - 1)." + String(decoding: complement(digits), as: UTF8.self)
        }
        guard let seconds = Double(decimal), abs(seconds) < limit else { return nil }
        return seconds
    }
}

/// Reads one ISO 8601 date and time from bytes, strictly: `[±]YYYY-MM-DD`, then optionally
/// `THH:MM[:SS[.fraction]]` and `Z` or `±HH:MM`.
private struct ISOReader {
    let bytes: [UInt8]
    var index = 0

    mutating func read() -> Double? {
        var sign: Int64 = 1
        var yearDigits = 4...4
        if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D {
            sign = bytes[index] == 0x2D ? -1 : 1
            index += 1
            yearDigits = 4...11
        }
        guard let year = number(yearDigits), take(0x2D), let month = number(2...2), take(0x2D), let day = number(2...2),
            (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: sign * year)
        else { return nil }
        var second = DateText.days(year: sign * year, month: month, day: day) * 86_400
        var fraction: [UInt8] = []
        if index < bytes.count {
            guard take(0x54), let hour = number(2...2), hour < 24, take(0x3A), let minute = number(2...2), minute < 60 else { return nil }
            var seconds: Int64 = 0
            if take(0x3A) {
                guard let value = number(2...2), value < 60 else { return nil }
                seconds = value
                if take(0x2E) {
                    let start = index
                    while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
                    guard index > start else { return nil }
                    fraction = Array(bytes[start..<index])
                }
            }
            second += hour * 3_600 + minute * 60 + seconds
            guard let offset = zone() else { return nil }
            second -= offset
        }
        guard index == bytes.count else { return nil }
        return DateText.seconds(second: second, fraction: fraction)
    }

    /// `Z` (0) or `±HH:MM` as seconds east of UTC.
    mutating func zone() -> Int64? {
        if take(0x5A) { return 0 }
        guard index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D else { return nil }
        let sign: Int64 = bytes[index] == 0x2D ? -1 : 1
        index += 1
        guard let hours = number(2...2), hours < 24, take(0x3A), let minutes = number(2...2), minutes < 60 else { return nil }
        return sign * (hours * 3_600 + minutes * 60)
    }

    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// A run of decimal digits whose length is in `count`.
    mutating func number(_ count: ClosedRange<Int>) -> Int64? {
        var value: Int64 = 0
        let start = index
        while index < bytes.count, index - start < count.upperBound, (0x30...0x39).contains(bytes[index]) {
            value = value * 10 + Int64(bytes[index] - 0x30)
            index += 1
        }
        return count.contains(index - start) ? value : nil
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
