/// JSON written byte by byte: the text ``ObjectWriter`` writes objects in, and every other JSON
/// line the commands print.
///
/// Foundation's `JSONSerialization` bridges every value through `NSDictionary` and sorts keys
/// with locale-aware comparisons; on Linux that took three quarters of an export's time. This
/// writer appends UTF-8 directly, keys in the order given (callers give them sorted). Values are
/// spelled by ``ValueConversion`` (dates by ``DateText``).
struct JSONText {
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(256) }

    /// The text written so far.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends `text` as it is (JSON already, or a number).
    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }
    /// Appends one byte.
    mutating func byte(_ byte: UInt8) { bytes.append(byte) }
    /// Appends bytes as they are.
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

    /// Appends `value` (0 or more) as `width` decimal digits, zero-padded.
    mutating func digits(_ value: Int64, _ width: Int) {
        if width == 2 {
            // Months, days, hours, minutes, seconds: the dates' most common case, without a loop.
            bytes.append(UInt8(truncatingIfNeeded: 0x30 + value / 10 % 10))
            bytes.append(UInt8(truncatingIfNeeded: 0x30 + value % 10))
            return
        }
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
