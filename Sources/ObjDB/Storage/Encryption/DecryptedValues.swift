import Foundation

/// Where the values a transaction of an encrypted file decrypts live until the transaction
/// ends, so that the bytes a read returns stay valid as long as the memory map's would
/// (``Txn``): chunks of memory, filled in turn and freed together.
///
/// A read snapshot therefore keeps every value it has decrypted; Docs/Encryption.md counts
/// that in the cost. Thread-safe: a snapshot may be read from several threads.
final class DecryptedValues: @unchecked Sendable {
    private let lock = NSLock()
    private var chunks: [UnsafeMutableRawBufferPointer] = []
    private var used = 0
    private static let chunkSize = 64 << 10

    /// Bytes held, for tests and statistics.
    private(set) var byteCount = 0

    /// A copy of `bytes` that lives as long as this object.
    func keep(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let space = allocate(bytes.count)
        if bytes.count > 0 { space.copyMemory(from: bytes) }
        return UnsafeRawBufferPointer(space)
    }

    /// `count` bytes of memory that live as long as this object.
    func allocate(_ count: Int) -> UnsafeMutableRawBufferPointer {
        lock.withLock {
            byteCount += count
            let aligned = (count + 7) & ~7
            if let last = chunks.last, last.count - used >= aligned {
                let start = used
                used += aligned
                return UnsafeMutableRawBufferPointer(rebasing: last[start..<(start + count)])
            }
            let size = max(Self.chunkSize, aligned)
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
            if size == aligned && !chunks.isEmpty {
                // A large value gets a chunk of its own, kept before the one being filled.
                chunks.insert(chunk, at: chunks.count - 1)
                return UnsafeMutableRawBufferPointer(rebasing: chunk[0..<count])
            }
            chunks.append(chunk)
            used = aligned
            return UnsafeMutableRawBufferPointer(rebasing: chunk[0..<count])
        }
    }

    deinit {
        for chunk in chunks { chunk.deallocate() }
    }
}
