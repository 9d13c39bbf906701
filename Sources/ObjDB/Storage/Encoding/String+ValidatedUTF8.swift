extension String {
    /// The string of `bytes` if they are valid UTF-8, else `nil`: `String(validating:as:)`,
    /// with text that is all ASCII (names, keys, most values) taken without it.
    ///
    /// `String(validating:as:)` is not specialized for raw buffers and looks up generic
    /// metadata at each call: a fifth of decoding an upload of small objects. ASCII bytes are
    /// valid UTF-8 as they are.
    ///
    /// - Complexity: O(*n*), a word at a time over the ASCII check.
    @inline(__always)
    package init?(validatingUTF8Bytes bytes: UnsafeRawBufferPointer) {
        if Self.isASCII(bytes) {
            self = bytes.withMemoryRebound(to: UInt8.self) { String(decoding: $0, as: UTF8.self) }
        } else {
            guard let s = String(validating: bytes, as: UTF8.self) else { return nil }
            self = s
        }
    }

    /// Whether every byte is below 0x80.
    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        var high: UInt64 = 0
        while i + 8 <= bytes.count {
            high |= bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < bytes.count {
            high |= UInt64(bytes[i])
            i += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}
