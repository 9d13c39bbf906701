/// Somewhere encoders append bytes.
protocol ByteSink {
    /// Appends one byte.
    mutating func append(_ byte: UInt8)
    /// Appends bytes.
    mutating func append(bytes: UnsafeRawBufferPointer)
    /// Appends the low `count` bytes of `value`, least significant first.
    mutating func appendLittleEndian(_ value: UInt64, count: Int)
    /// Number of bytes appended so far.
    var count: Int { get }
}

extension Array: ByteSink where Element == UInt8 {
    mutating func append(bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes.bindMemory(to: UInt8.self)) }

    mutating func appendLittleEndian(_ value: UInt64, count: Int) {
        for i in 0..<count { append(UInt8(truncatingIfNeeded: value >> UInt64(8 * i))) }
    }
}

/// A growable byte buffer for scratch work by one owner, without copy-on-write checks: appending
/// is a bounds check and a store. Reset it with ``reset()``; read it with ``bytes``.
final class ScratchBuffer: ByteSink {
    @exclusivity(unchecked) private var base: UnsafeMutableRawPointer
    @exclusivity(unchecked) private var capacity: Int
    /// Number of bytes in the buffer.
    @exclusivity(unchecked) private(set) var count = 0

    init(capacity: Int = 1024) {
        self.capacity = max(capacity, 16)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    /// Empties the buffer, keeping its memory.
    @inline(__always)
    func reset() { count = 0 }

    /// Shortens the buffer to `newCount` bytes.
    func truncate(to newCount: Int) { count = min(count, max(newCount, 0)) }

    @inline(__always)
    private func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    @inline(never)
    private func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 8)
        newBase.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        reserve(1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    @inline(__always)
    func append(bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Appends the low `count` bytes of `value`, least significant first.
    @inline(__always)
    func appendLittleEndian(_ value: UInt64, count bytes: Int) {
        reserve(8)
        base.storeBytes(of: value.littleEndian, toByteOffset: count, as: UInt64.self)
        count += bytes
    }

    /// Appends a `UInt64` in big-endian order.
    @inline(__always)
    func appendBigEndian(_ value: UInt64) {
        reserve(8)
        base.storeBytes(of: value.bigEndian, toByteOffset: count, as: UInt64.self)
        count += 8
    }

    /// Overwrites bytes already in the buffer, starting at `offset`.
    func overwrite(at offset: Int, with bytes: UnsafeRawBufferPointer) {
        objdbPrecondition(offset >= 0 && offset + bytes.count <= count, "Internal error: ScratchBuffer.overwrite of \(bytes.count) bytes at \(offset) past \(count) (an ObjDB bug; please report it)")
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        (base + offset).copyMemory(from: source, byteCount: bytes.count)
    }

    /// The bytes, valid until the next change.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// A range of the bytes, valid until the next change.
    func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count)
    }
}
