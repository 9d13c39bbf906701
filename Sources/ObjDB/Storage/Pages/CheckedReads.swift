/// Bounds-checked reads of native-order integers from bytes that may be damaged: a read past the
/// end gives 0 instead of trapping. Callers check every offset against the structure first;
/// this is the second line.
extension UnsafeRawBufferPointer {
    /// The `UInt16` at `offset`, or 0 if it does not lie within the bytes.
    func u16(_ offset: Int) -> UInt16 {
        guard offset >= 0, offset <= count - 2, let base = baseAddress else { return 0 }
        return base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
    }

    /// The `UInt32` at `offset`, or 0 if it does not lie within the bytes.
    func u32(_ offset: Int) -> UInt32 {
        guard offset >= 0, offset <= count - 4, let base = baseAddress else { return 0 }
        return base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
    }

    /// The `UInt64` at `offset`, or 0 if it does not lie within the bytes.
    func u64(_ offset: Int) -> UInt64 {
        guard offset >= 0, offset <= count - 8, let base = baseAddress else { return 0 }
        return base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
    }

    /// The bytes `offset ..< offset + length`, or `nil` if they do not lie within these bytes.
    func slice(_ offset: Int, _ length: Int) -> UnsafeRawBufferPointer? {
        guard offset >= 0, length >= 0, offset <= count, length <= count - offset, let base = baseAddress else {
            return length == 0 ? UnsafeRawBufferPointer(start: nil, count: 0) : nil
        }
        return UnsafeRawBufferPointer(start: base + offset, count: length)
    }
}
