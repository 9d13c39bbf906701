/// Buffers a ``Database`` instance reuses for primary-key lookups, so that a lookup allocates
/// nothing: the encoded primary key, and the index key made of it.
struct LookupScratch {
    /// The primary key encoded as a stored value.
    var value = _ObjDBBytes(ScratchBuffer(capacity: 512))
    /// The key of the primary-key table made from ``value``.
    let key = ScratchBuffer(capacity: 512)
}
