/// FNV-1a over bytes, 64 bits: a digest of canonical dumps, so that two processes can compare
/// what they read without exchanging the dumps.
public struct Digest: Sendable, Hashable, CustomStringConvertible {
    /// The digest so far.
    public private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325
    /// The number of bytes digested.
    public private(set) var count = 0

    /// An empty digest.
    public init() {}

    /// Adds the UTF-8 bytes of `text` and a line end.
    public mutating func line(_ text: String) {
        for byte in text.utf8 { add(byte) }
        add(0x0A)
    }

    /// Adds one byte.
    @inline(__always)
    public mutating func add(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        count += 1
    }

    /// `<hex digest>/<bytes>`.
    public var description: String { String(value, radix: 16) + "/" + String(count) }
}
