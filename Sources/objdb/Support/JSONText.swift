import Foundation
import ObjDB

/// JSON written byte by byte: what `export`, `query` and `watch` print per object.
///
/// Foundation's `JSONSerialization` bridges every value through `NSDictionary` and sorts keys
/// with locale-aware comparisons; on Linux that took three quarters of an export's time. This
/// writer appends UTF-8 directly, keys in the order given (callers give them sorted), numbers in
/// Swift's shortest round-trip form, and dates with a calendar computation of its own.
struct JSONText {
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(256) }

    /// The text written so far.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }
    mutating func byte(_ byte: UInt8) { bytes.append(byte) }
    mutating func bytes(_ more: [UInt8]) { bytes.append(contentsOf: more) }

    /// A JSON string: quotes, backslashes and control characters escaped.
    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { escaped($0) }
    }

    /// A JSON string from stored UTF-8 bytes, written as ``string(_:)`` writes the `String`
    /// they decode to: bytes that are not valid UTF-8 are repaired with U+FFFD as
    /// `String(decoding:as:)` repairs them. ASCII is written without decoding.
    mutating func string(utf8 bytes: UnsafeRawBufferPointer) {
        let units = bytes.bindMemory(to: UInt8.self)
        guard units.allSatisfy({ $0 < 0x80 }) else { return string(String(decoding: units, as: UTF8.self)) }
        escaped(units)
    }

    /// `utf8` quoted, with quotes, backslashes and control characters escaped. Runs of bytes that
    /// need no escape are appended at once.
    private mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(0x22)
        var start = 0
        for index in 0..<utf8.count {
            let unit = utf8[index]
            guard unit < 0x20 || unit == 0x22 || unit == 0x5C else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
            start = index + 1
            switch unit {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
            case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
            default:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(unit >> 4)], hex[Int(unit & 0xF)]])
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        bytes.append(0x22)
    }

    /// An integer in decimal, as `String(value)` writes it, without making the `String`.
    mutating func integer(_ value: Int64) {
        if value < 0 { bytes.append(0x2D) }
        unsigned(value.magnitude)
    }

    /// An unsigned integer in decimal.
    mutating func unsigned(_ value: UInt64) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for UInt64.max's 20 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            var rest = value
            repeat {
                count += 1
                buffer[buffer.count - count] = UInt8(0x30 + rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(buffer.count - count)...]))
        }
    }

    /// Forgets the text, keeping the memory, to write the next line into the same buffer.
    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    /// A value as ``ObjectJSON/scalar(_:)`` describes it, or `null`.
    mutating func scalar(_ value: Any) {
        switch value {
        case let bool as Bool: raw(bool ? "true" : "false")
        case let int as Int: raw(String(int))
        case let int as Int8: raw(String(int))
        case let int as Int16: raw(String(int))
        case let int as Int32: raw(String(int))
        case let int as Int64: raw(String(int))
        case let double as Double: if double.isFinite { raw(double.description) } else { string(double.description) }
        case let float as Float: if float.isFinite { raw(float.description) } else { string(float.description) }
        case let text as String: string(text)
        case let data as Data: string(data.base64EncodedString())
        case let date as Date: isoDate(date)
        case let decimal as Decimal: string(decimal.description)
        case let id as ObjectId: string(id.stringValue)
        case let uuid as UUID: string(uuid.uuidString)
        case is NSNull: raw("null")
        default: string("\(value)")
        }
    }

    /// A value of a property of `type`: the cast to the type's Swift types first (cheap for
    /// value types), else ``scalar(_:)``.
    mutating func scalar(_ value: Any, type: PropertyType) {
        switch type {
        case .string: if let text = value as? String { return string(text) }
        case .int:
            if let int = value as? Int { return raw(String(int)) }
            if let int = value as? Int64 { return raw(String(int)) }
            if let int = value as? Int32 { return raw(String(int)) }
            if let int = value as? Int16 { return raw(String(int)) }
            if let int = value as? Int8 { return raw(String(int)) }
        case .double: if let double = value as? Double, double.isFinite { return raw(double.description) }
        case .bool: if let bool = value as? Bool { return raw(bool ? "true" : "false") }
        case .date: if let date = value as? Date { return isoDate(date) }
        default: break
        }
        scalar(value)
    }

    /// `date` as ISO 8601 in UTC with milliseconds (`2025-11-25T10:00:00.250Z`).
    static func isoDate(_ date: Date) -> String {
        var text = JSONText()
        text.isoDate(date, quoted: false)
        return text.text
    }

    /// Appends `date` as ISO 8601 in UTC with milliseconds, quoted unless `quoted` is false,
    /// computed without a formatter (days to civil dates, Howard Hinnant's algorithm; the
    /// proleptic Gregorian calendar, as ISO 8601 has it).
    mutating func isoDate(_ date: Date, quoted: Bool = true) {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard milliseconds.isFinite, abs(milliseconds) < 8.64e15 else { return string("\(date)") }
        let total = Int64(milliseconds)
        var days = total / 86_400_000
        var rest = total % 86_400_000
        if rest < 0 {
            rest += 86_400_000
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
        if quoted { bytes.append(0x22) }
        if year < 0 || year > 9_999 {
            raw(String(year))
        } else {
            digits(year, 4)
        }
        bytes.append(0x2D)
        digits(month, 2)
        bytes.append(0x2D)
        digits(day, 2)
        bytes.append(0x54)
        digits(rest / 3_600_000, 2)
        bytes.append(0x3A)
        digits(rest / 60_000 % 60, 2)
        bytes.append(0x3A)
        digits(rest / 1_000 % 60, 2)
        bytes.append(0x2E)
        digits(rest % 1_000, 3)
        bytes.append(0x5A)
        if quoted { bytes.append(0x22) }
    }

    /// Appends `value` (0 or more) as `width` decimal digits, zero-padded.
    private mutating func digits(_ value: Int64, _ width: Int) {
        var divisor: Int64 = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(0x30 + rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }
}
