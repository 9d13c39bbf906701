/// The scratch buffers of one write transaction, reused by every row it writes, so that a row
/// write allocates none. A struct of constants, stored in place in the ``WriteContext``: a
/// buffer is reached as `context.scratch.row` with one load from the context, as a field of the
/// context would be, and passed on without a retain (a class in between costs a retain and a
/// release per row written). The value a setter encodes is ``WriteContext/value``.
struct WriteScratch {
    /// The row being built: a new object's, or the replacement of a stored row.
    let row = RowBuilder()
    /// The encoded primary key of a lookup (``RowReader/objectKey(forPrimaryKey:_:txn:scratch:)``).
    let key = ScratchBuffer()
    /// A stored row with one column's bytes overwritten in place, when the new value has the
    /// old one's size (``Database/writeColumn(_:key:old:column:value:_:)``).
    let patch = ScratchBuffer(capacity: 256)
    /// The primary-key and index entries one row change removes and adds.
    let keyUpdates = KeyUpdates()
}
