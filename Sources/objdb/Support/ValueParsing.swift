import Foundation
import ObjDB

/// Command-line text as a value of a property's type, for `get`, `set` and `delete`.
enum ValueParsing {
    /// `text` as a value of `property` (`null` for nil on an optional property).
    ///
    /// Ints are decimal and checked against the property's width; bools `true`/`false`; dates
    /// ISO 8601 (with or without fractional seconds, or a date alone) or seconds since 1970;
    /// `Data` base64; `UUID` and `ObjectId` their text; `Decimal` its text.
    static func value(_ text: String, for property: Property, className: String) throws -> Any? {
        func failure(_ expected: String) -> CommandFailure {
            CommandFailure("\(className).\(property.name) is \(property.typeName): '\(text)' is not \(expected)")
        }
        if text == "null" || text == "nil" {
            guard property.isOptional else { throw failure("a value (the property is not optional)") }
            return nil
        }
        switch property.type {
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default: throw failure("true or false")
            }
        case .int:
            guard let value = Int(text) else { throw failure("an integer") }
            let bits = property.bitWidth == 0 ? 64 : property.bitWidth
            if bits < 64 {
                let limit = 1 << (bits - 1)
                guard value >= -limit && value < limit else { throw failure("within \(bits)-bit range (\(-limit)...\(limit - 1))") }
            }
            switch bits {
            case 8: return Int8(value)
            case 16: return Int16(value)
            case 32: return Int32(value)
            default: return value
            }
        case .float:
            guard let value = Float(text) else { throw failure("a number") }
            return value
        case .double:
            guard let value = Double(text) else { throw failure("a number") }
            return value
        case .string: return text
        case .data:
            guard let data = Data(base64Encoded: text) else { throw failure("base64") }
            return data
        case .date:
            guard let date = date(text) else { throw failure("an ISO 8601 date (2026-11-25T10:00:00.000Z) or seconds since 1970") }
            return date
        case .uuid:
            guard let uuid = UUID(uuidString: text) else { throw failure("a UUID") }
            return uuid
        case .decimal:
            guard let decimal = Decimal(string: text) else { throw failure("a decimal number") }
            return decimal
        case .objectId:
            guard let id = ObjectId(text) else { throw failure("an ObjectId (24 hex digits)") }
            return id
        case .object, .linkingObjects:
            throw CommandFailure("\(className).\(property.name) is a link; links cannot be set from the command line")
        }
    }

    /// An ISO 8601 date (with or without fractional seconds, or a date alone), or seconds since 1970.
    static func date(_ text: String) -> Date? {
        if let date = exportedDate(text) { return date }
        if let seconds = Double(text) { return Date(timeIntervalSince1970: seconds) }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle().year().month().day())
    }

    /// A date in exactly the form `export` writes (`2025-11-25T10:00:00.250Z`), read without a
    /// formatter (the reverse of ``JSONText/isoDate(_:)``); `nil` for any other form.
    static func exportedDate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 24, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A,
            bytes[16] == 0x3A, bytes[19] == 0x2E, bytes[23] == 0x5A
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                let digit = Int64(bytes[index]) - 0x30
                guard digit >= 0 && digit <= 9 else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), let millisecond = number(20..<23),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let milliseconds = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1_000 + millisecond
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
