import Foundation

/// Date literals, in UTC, as Realm writes them:
///
/// - `T2024-01-02@10:00:00` or `2024-01-02@10:00:00` (`T` may replace `@`), optionally followed
///   by `:NNN` nanoseconds: `T2024-01-02@10:00:00:500000000`; the year is 1900 or later, as in
///   Realm;
/// - `T1712345678:123`: seconds since 1970 and nanoseconds (either may be negative).
enum PredicateDate {
    /// What the message says a date looks like.
    static let expectedForms =
        "expected YYYY-MM-DD@HH:MM:SS with an optional :nanoseconds, optionally prefixed with T, or T<seconds>:<nanoseconds>"

    /// The date a literal stands for.
    /// - Throws: ``PredicateSyntaxError`` at `position` for malformed or impossible dates.
    static func date(of text: String, at position: Int) throws -> Date {
        let body = text.hasPrefix("T") ? text.dropFirst() : Substring(text)
        let fail = { (reason: String) in
            PredicateSyntaxError(position: position, message: "invalid date \(PredicateSyntaxError.quote(text)): \(reason)")
        }
        guard let separator = body.firstIndex(where: { $0 == "@" || $0 == "T" }) else {
            return try epochDate(body, fail: fail)
        }
        let day = body[..<separator].split(separator: "-", omittingEmptySubsequences: false)
        let time = body[body.index(after: separator)...].split(separator: ":", omittingEmptySubsequences: false)
        guard day.count == 3, time.count == 3 || time.count == 4,
            allDigits(day[0...0], 4...4), allDigits(day[1...], 1...2),
            allDigits(time[0..<3], 1...2), allDigits(time[3...], 1...9),
            let year = Int(day[0]), let month = Int(day[1]), let dayOfMonth = Int(day[2]),
            let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2])
        else { throw fail(expectedForms) }
        let nanoseconds = time.count == 4 ? Int(time[3]) ?? 0 : 0
        guard year >= 1900 else {
            // As Realm: its parser converts these through the C library, which stops at 1900.
            throw fail("dates before 1900 can't be written YYYY-MM-DD; write T<seconds>:<nanoseconds> or pass a Date argument")
        }
        guard (1...12).contains(month) else { throw fail("month \(month) is not between 1 and 12") }
        guard (1...daysInMonth(month, year: year)).contains(dayOfMonth) else {
            throw fail("\(day[0])-\(day[1]) has no day \(dayOfMonth)")
        }
        guard (0...23).contains(hour) else { throw fail("hour \(hour) is not between 0 and 23") }
        guard (0...59).contains(minute) else { throw fail("minute \(minute) is not between 0 and 59") }
        guard (0...59).contains(second) else { throw fail("second \(second) is not between 0 and 59") }
        let seconds = daysSince1970(year: year, month: month, day: dayOfMonth) * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }

    /// `<seconds>:<nanoseconds>` since 1970.
    static func epochDate(_ body: Substring, fail: (String) -> PredicateSyntaxError) throws -> Date {
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy(isSignedInteger) else { throw fail(expectedForms) }
        guard let seconds = Int64(parts[0]), let nanoseconds = Int64(parts[1]) else {
            throw fail("the number of seconds is out of range")
        }
        guard abs(nanoseconds) < 1_000_000_000 else { throw fail("nanoseconds must be below 1000000000") }
        // As Realm: seconds and nanoseconds point the same way from 1970 (T-1:-500, not T-1:500).
        guard (seconds >= 0 && nanoseconds >= 0) || (seconds <= 0 && nanoseconds <= 0) else {
            throw fail("seconds and nanoseconds must have the same sign")
        }
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }

    /// Whether every part is digits only, with a length in `lengths`.
    static func allDigits(_ parts: ArraySlice<Substring>, _ lengths: ClosedRange<Int>) -> Bool {
        parts.allSatisfy { lengths.contains($0.count) && $0.allSatisfy(PredicateLexer.isDigit) }
    }

    /// `123` or `-123`.
    static func isSignedInteger(_ text: Substring) -> Bool {
        let digits = text.hasPrefix("-") ? text.dropFirst() : text
        return !digits.isEmpty && digits.allSatisfy(PredicateLexer.isDigit)
    }

    /// Days in a month of the Gregorian calendar.
    static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
