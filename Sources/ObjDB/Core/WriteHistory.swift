/// The write transactions of one ``Database`` instance, as objects inserted in them need to
/// know: whether the transaction that inserted an object is still open, committed or rolled back
/// (``Database/outcome(ofWrite:)``).
struct WriteHistory {
    /// Numbers the write transactions of this instance; the current one's while writing.
    var serial: UInt64 = 0
    /// The write transactions that inserted objects and rolled back: their objects are
    /// invalidated when they next look for their rows (see ``ObjectBase/_objdbSettleInsert()``).
    var rolledBack: Set<UInt64> = []
}
