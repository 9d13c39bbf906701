import Foundation

/// A 12-byte identifier that sorts by creation time, like MongoDB's and Realm's `ObjectId`.
///
/// The bytes are a 4-byte big-endian count of seconds since 1970, 5 random bytes chosen once per
/// process, and a 3-byte big-endian counter that starts at a random value. Identifiers made by
/// one process are unique and increase; those made by different processes are unique with
/// overwhelming probability.
///
/// ```swift
/// let id = ObjectId.generate()
/// id.stringValue              // "65a1f0c2b3e4d5f6a7b8c9d0"
/// ObjectId(string: id.stringValue) == id  // true
/// id.timestamp                // creation time, to the second
/// ```
public struct ObjectId: Sendable, Hashable, Comparable, Codable, CustomStringConvertible, LosslessStringConvertible {
    /// Bytes 0–7, big-endian.
    private let high: UInt64
    /// Bytes 8–11, big-endian.
    private let low: UInt32

    /// A new identifier; same as ``generate()``.
    public init() { self = ObjectIdGenerator.shared.next() }

    /// A new identifier, greater than every identifier this process made before.
    public static func generate() -> ObjectId { ObjectIdGenerator.shared.next() }

    /// Parses the 24-character hexadecimal form (either case); `nil` for anything else.
    public init?(string: String) {
        let utf8 = Array(string.utf8)
        guard utf8.count == 24 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(12)
        var i = 0
        while i < 24 {
            guard let hi = Self.hexValue(utf8[i]), let lo = Self.hexValue(utf8[i + 1]) else { return nil }
            bytes.append(hi << 4 | lo)
            i += 2
        }
        self.init(bytes: bytes)
    }

    /// Same as ``init(string:)``.
    public init?(_ description: String) { self.init(string: description) }

    /// An identifier from its 12 bytes; `nil` unless there are exactly 12.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 12 else { return nil }
        var high: UInt64 = 0
        var low: UInt32 = 0
        for (i, byte) in bytes.enumerated() {
            if i < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt32(byte) }
        }
        self.high = high
        self.low = low
    }

    /// An identifier for `timestamp` with the given random and counter parts.
    init(seconds: UInt32, random: UInt64, counter: UInt32) {
        high = UInt64(seconds) << 32 | (random >> 8 & 0xFFFF_FFFF)
        low = UInt32(truncatingIfNeeded: random & 0xFF) << 24 | (counter & 0xFF_FFFF)
    }

    /// The 12 bytes.
    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64($0))) }
            + (0..<4).map { UInt8(truncatingIfNeeded: low >> (24 - 8 * UInt32($0))) }
    }

    /// The creation time, to the second.
    public var timestamp: Date { Date(timeIntervalSince1970: TimeInterval(high >> 32)) }

    /// The 24-character lowercase hexadecimal form.
    public var stringValue: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(24)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Same as ``stringValue``.
    public var description: String { stringValue }

    /// Orders by bytes, hence by creation time first.
    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    /// Decodes the hexadecimal string form.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = ObjectId(string: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a 24-character hexadecimal ObjectId")
        }
        self = value
    }

    /// Encodes the hexadecimal string form.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Makes ``ObjectId``s: the per-process random part and the counter, under a lock.
///
/// Each identifier is greater than the one made before it. Within a second the counter
/// increases. At a new second a counter in its upper half restarts at a random value in its lower
/// half, so it cannot wrap within a second unless more than 8 million identifiers are made in
/// that second; if it does, the generator moves on to the next second (running ahead of the clock
/// for that second) rather than go back. A clock that steps back does not make identifiers go
/// back either: the last second used is kept until the clock passes it.
final class ObjectIdGenerator: @unchecked Sendable {
    static let shared = ObjectIdGenerator()

    private let lock = NSLock()
    private let random: UInt64
    private let clock: @Sendable () -> UInt32
    // Guarded by `lock`.
    private var counter: UInt32
    private var lastSeconds: UInt32 = 0

    /// A generator with the given parts (for tests: a counter and the second of the last
    /// identifier made); by default random ones and the system clock.
    init(
        random: UInt64 = .random(in: 0..<(1 << 40)), counter: UInt32 = .random(in: 0..<(1 << 23)), lastSeconds: UInt32 = 0,
        clock: @escaping @Sendable () -> UInt32 = { UInt32(clamping: Int64(Date().timeIntervalSince1970)) }
    ) {
        self.random = random
        self.counter = counter & 0xFF_FFFF
        self.lastSeconds = lastSeconds
        self.clock = clock
    }

    func next() -> ObjectId {
        lock.withLock {
            var seconds = max(clock(), lastSeconds)
            if seconds != lastSeconds, counter >= 1 << 23 { counter = UInt32.random(in: 0..<(1 << 23)) }
            counter = (counter &+ 1) & 0xFF_FFFF
            if counter == 0 && seconds == lastSeconds {
                // Wrapped within one second: the next second is still greater than every id so far.
                seconds = lastSeconds &+ 1
                counter = UInt32.random(in: 0..<(1 << 23))
            }
            lastSeconds = seconds
            return ObjectId(seconds: seconds, random: random, counter: counter)
        }
    }
}

extension ObjectId: NonOptionalPersistableType, PrimaryKeyType {
    /// `.objectId`.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { .objectId }
    /// A newly generated identifier.
    @_spi(Implementation) public static func _objdbDefaultValue() -> ObjectId { .generate() }
    /// The 12 bytes.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool {
        withUnsafeBytes(of: high.bigEndian) { bytes.append(bytes: $0) }
        withUnsafeBytes(of: low.bigEndian) { bytes.append(bytes: $0) }
        return true
    }
    /// 12 bytes.
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> ObjectId? { bytes.flatMap { ObjectId(bytes: $0) } }
    /// An `ObjectId`, or a `String` in its hexadecimal form.
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> ObjectId? {
        switch value {
        case let v as ObjectId: v
        case let v as String: ObjectId(string: v)
        default: nil
        }
    }
}
