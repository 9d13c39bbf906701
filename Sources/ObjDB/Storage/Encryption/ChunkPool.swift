import Foundation

/// Chunks of memory for ``DecryptedValues`` and a write transaction's ``BucketRecords`` (which
/// hands them back as bytes) kept between transactions, so that an encrypted
/// file's transactions reuse memory already mapped rather than take fresh pages from the system
/// each time: a transaction that updates 100,000 rows holds about 15 MB of plaintext, and its
/// page faults cost about as much as its cipher.
///
/// Process-wide and bounded (``limit`` chunks); chunks past the limit go back to the system.
/// Chunks returned still hold the plaintext of the transaction that used them until they are
/// reused, as freed memory would (Docs/Encryption.md: a running process's memory is not
/// protected).
enum ChunkPool {
    /// The size of every chunk.
    static let chunkSize = 64 << 10
    /// The most chunks kept: 16 MiB.
    static let limit = 256

    private static let lock = NSLock()
    nonisolated(unsafe) private static var free: [UnsafeMutableRawPointer] = []

    /// A chunk of ``chunkSize`` bytes, aligned to 16.
    static func take() -> UnsafeMutableRawBufferPointer {
        let reused = lock.withLock { free.popLast() }
        let base = reused ?? UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 16)
        return UnsafeMutableRawBufferPointer(start: base, count: chunkSize)
    }

    /// Gives back `chunks`, taken with ``take()``.
    static func give(_ chunks: [UnsafeMutableRawPointer]) {
        guard !chunks.isEmpty else { return }
        let extra: ArraySlice<UnsafeMutableRawPointer> = lock.withLock {
            let room = max(0, limit - free.count)
            free.append(contentsOf: chunks.prefix(room))
            return chunks.dropFirst(room)
        }
        for chunk in extra { chunk.deallocate() }
    }
}
