import Foundation

/// Where the values a transaction of an encrypted file decrypts live until the transaction
/// ends, so that the bytes a read returns stay valid as long as the memory map's would
/// (``Txn``): chunks of memory, filled in turn and freed together.
///
/// A read snapshot therefore keeps every value it has decrypted, once: its values never change,
/// so a value read again is found by table and key (``opened(table:key:)``) rather than
/// decrypted into new memory. A write transaction's values change, so it keeps no such index.
/// Docs/Encryption.md counts the memory in the cost. Thread-safe: a snapshot may be read from
/// several threads.
final class DecryptedValues: @unchecked Sendable {
    private let lock = NSLock()
    private var chunks: [UnsafeMutableRawBufferPointer] = []
    private var used = 0
    private static let chunkSize = 64 << 10
    /// Whether values are found again by table and key (read snapshots).
    let remembers: Bool
    /// The values opened so far under 8-byte keys (object keys, transaction ids, sequences).
    private var byObjectKey: [ObjectKeySlot: UnsafeRawBufferPointer] = [:]
    /// The values opened so far under other keys (named records).
    private var byName: [NameSlot: UnsafeRawBufferPointer] = [:]

    private struct ObjectKeySlot: Hashable {
        let table: UInt32
        let key: UInt64
    }

    private struct NameSlot: Hashable {
        let table: UInt32
        let key: [UInt8]
    }

    /// Bytes held, for tests and statistics.
    private(set) var byteCount = 0

    /// `remembers`: the transaction's values never change (a read snapshot).
    init(remembers: Bool) {
        self.remembers = remembers
    }

    /// The value opened before under `key` of table `table`, if this snapshot remembers it.
    func opened(table: UInt32, key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard remembers else { return nil }
        return lock.withLock {
            key.count == 8
                ? byObjectKey[ObjectKeySlot(table: table, key: key.loadUnaligned(as: UInt64.self))]
                : byName[NameSlot(table: table, key: Array(key))]
        }
    }

    /// A copy of `bytes`, the value under `key` of table `table`, that lives as long as this
    /// object and is found again by ``opened(table:key:)``.
    func keep(_ bytes: UnsafeRawBufferPointer, table: UInt32, key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let copy = keep(bytes)
        guard remembers else { return copy }
        lock.withLock {
            if key.count == 8 {
                byObjectKey[ObjectKeySlot(table: table, key: key.loadUnaligned(as: UInt64.self))] = copy
            } else {
                byName[NameSlot(table: table, key: Array(key))] = copy
            }
        }
        return copy
    }

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
