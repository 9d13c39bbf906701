/// The scratch buffers of one write transaction, reused by every row it writes, so that a row
/// write allocates none. Each is a constant of a class over raw memory: the row paths borrow it
/// without a retain.
final class WriteScratch {
    /// The row being built: a new object's, or the replacement of a stored row.
    let row = RowBuilder()
    /// The encoded primary key of a lookup (``Database/objectKey(forPrimaryKey:_:txn:scratch:)``).
    let key = ScratchBuffer()
    /// One encoded value: a property setter's, or a collection element's.
    @exclusivity(unchecked) var value = _ObjDBBytes(ScratchBuffer(capacity: 256))
    /// A stored row with one column's bytes overwritten in place, when the new value has the
    /// old one's size (``Database/writeColumn(_:key:old:column:value:_:)``).
    let patch = ScratchBuffer(capacity: 256)
    /// The primary-key and index entries one row change removes and adds.
    let keyUpdates = KeyUpdates()
}
