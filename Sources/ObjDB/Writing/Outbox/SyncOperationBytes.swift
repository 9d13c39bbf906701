/// The outbox's binary form of an operation (``OutboxFormat``), for the sync protocol's upload
/// frames: an upload carries the entries the file keeps, byte for byte.
package enum SyncOperationBytes {
    /// The entry of `operation` (without its sequence).
    package static func encode(_ operation: SyncOperation) -> [UInt8] {
        OutboxFormat.encode(operation)
    }

    /// The operation of an entry; throws ``ObjDBError`` (`.corruptFile`) naming what is wrong
    /// with bytes that are not an entry.
    package static func decode(_ bytes: UnsafeRawBufferPointer, sequence: UInt64) throws -> SyncOperation {
        try OutboxFormat.decode(bytes, sequence: sequence, path: nil)
    }

    /// The version byte that starts every entry this build writes and reads: the entry is also
    /// the sync protocol's upload format, so a new entry version needs a new protocol version.
    package static var entryVersion: UInt8 { OutboxFormat.version }
}

/// One entry of a file's outbox, as stored: what an upload sends without decoding it.
package struct SyncOutboxEntry: Sendable {
    /// The operation's sequence.
    package let sequence: UInt64
    /// Its entry (``SyncOperationBytes``).
    package let bytes: [UInt8]
}
