/// Where a `PersistableType` value writes its column bytes. ObjDB's internals: it wraps a scratch
/// buffer owned by the database, so that encoding a value is a bounds check and a store, with
/// no copy-on-write checks. Public only because witnesses an app's enums use name it (see
/// `Object/Persistable+Implementation.swift`); its contents are internal.
public struct _ObjDBBytes {
    /// The buffer appended to.
    let buffer: ScratchBuffer

    init(_ buffer: ScratchBuffer) { self.buffer = buffer }

    /// A fresh buffer, for encoding outside a hot path.
    init() { buffer = ScratchBuffer(capacity: 64) }

    /// The bytes written, as an array.
    var array: [UInt8] { Array(buffer.bytes) }
}

extension _ObjDBBytes: ByteSink {
    var count: Int { buffer.count }

    @inline(__always)
    mutating func append(_ byte: UInt8) { buffer.append(byte) }

    @inline(__always)
    mutating func append(bytes: UnsafeRawBufferPointer) { buffer.append(bytes: bytes) }

    @inline(__always)
    mutating func appendLittleEndian(_ value: UInt64, count: Int) { buffer.appendLittleEndian(value, count: count) }
}
