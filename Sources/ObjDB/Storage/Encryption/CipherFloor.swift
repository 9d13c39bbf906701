#if canImport(CCryptoBoringSSL)
import Foundation

/// The cipher alone on the rows of one class, with no database around it: the floor that
/// `objdb-bench --encryption` sets the encrypted reads and writes against. It copies the rows'
/// plaintexts once, then seals and opens them through the prepared contexts ObjDB uses
/// (``DirectCipher``), under keys of its own (nothing it seals is stored), with AES-GCM-256 (the
/// format's) and ChaCha20-Poly1305 (for comparison). Not part of the stable API; only where
/// swift-crypto builds BoringSSL.
@_spi(Benchmarks)
public final class CipherFloor {
    /// An AEAD to measure.
    public enum Algorithm: Sendable, CaseIterable {
        /// AES-GCM-256, the file format's cipher.
        case aes256GCM
        /// ChaCha20-Poly1305, for comparison only.
        case chaCha20Poly1305
    }

    /// The plaintexts, one after another.
    private let plain: [UInt8]
    /// Where each plaintext starts in ``plain``, and one past the last.
    private let offsets: [Int]
    /// Each row's associated data as ObjDB builds it (table tag, then the 8-byte object key).
    private let associatedData: [UInt8]
    /// Each row's object key.
    private let keys: [UInt64]
    /// The table tag in the associated data.
    private let tag: UInt64
    /// A cipher as a file's, under a key of its own: seals and opens as ObjDB calls them.
    private let storeCipher: StoreCipher
    /// The prepared contexts, one per algorithm.
    private let contexts: [Algorithm: DirectCipher]
    /// The rows sealed under each algorithm (`sealed(i)` at `offsets[i] + 28 * i`).
    private var sealedRows: [Algorithm: [UInt8]] = [:]
    /// The rows sealed by ``storeCipher``, laid out as ``sealedRows``.
    private var objDBSealed: [UInt8] = []
    /// A buffer a sealed row (or an opened one) of any of the rows fits in.
    private let scratch: UnsafeMutableRawBufferPointer
    /// The rows sealed with AES-GCM in messages of ``groupSizes`` consecutive rows each, by group
    /// size: each message's sealed bytes, one after another, and where each starts.
    private var groups: [Int: (sealed: [UInt8], starts: [Int])] = [:]
    /// A buffer a group's opened rows fit in.
    private let groupScratch: UnsafeMutableRawBufferPointer
    /// The numbers of consecutive rows ``openGrouped(rowsPerMessage:)`` measures in one message.
    public static let groupSizes = [8, 16]

    /// The number of rows.
    public var rowCount: Int { keys.count }
    /// The bytes of the rows' plaintexts.
    public var plaintextByteCount: Int { plain.count }

    /// `rows` as (object key, plaintext) pairs, under table tag `tag`; `nil` if BoringSSL
    /// refuses a key.
    init?(rows: [(key: UInt64, bytes: [UInt8])], tag: UInt64) {
        var plain: [UInt8] = []
        var offsets = [0]
        var associatedData: [UInt8] = []
        for row in rows {
            plain += row.bytes
            offsets.append(plain.count)
            withUnsafeBytes(of: tag.littleEndian) { associatedData += $0 }
            withUnsafeBytes(of: row.key) { associatedData += $0 }
        }
        var generator = SystemRandomNumberGenerator()
        func randomKey(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        var contexts: [Algorithm: DirectCipher] = [:]
        for algorithm in Algorithm.allCases {
            let kind: DirectCipher.Algorithm = algorithm == .aes256GCM ? .aes256GCM : .chaCha20Poly1305
            guard let context = DirectCipher(valueKey: randomKey(32), indexKey: randomKey(32), algorithm: kind) else { return nil }
            contexts[algorithm] = context
        }
        self.plain = plain
        self.offsets = offsets
        self.associatedData = associatedData
        self.keys = rows.map(\.key)
        self.tag = tag
        self.contexts = contexts
        storeCipher = StoreCipher(key: Data(randomKey(StoreCipher.keyLength)))
        let longest = rows.map(\.bytes.count).max() ?? 0
        scratch = .allocate(byteCount: StoreCipher.sealedSize(longest), alignment: 16)
        groupScratch = .allocate(byteCount: longest * (Self.groupSizes.max() ?? 1) + StoreCipher.overhead, alignment: 16)
        for algorithm in Algorithm.allCases {
            var sealed = [UInt8](repeating: 0, count: plain.count + StoreCipher.overhead * rows.count)
            let ok = sealed.withUnsafeMutableBytes { target in
                (0..<rows.count).allSatisfy { seal(algorithm, row: $0, into: target, nonce: UInt64($0)) }
            }
            guard ok else { return nil }
            sealedRows[algorithm] = sealed
        }
        var sealed = [UInt8](repeating: 0, count: plain.count + StoreCipher.overhead * rows.count)
        let ok = sealed.withUnsafeMutableBytes { target in
            plain.withUnsafeBytes { plain in
                (0..<rows.count).allSatisfy { row in
                    let start = offsets[row] + StoreCipher.overhead * row
                    let count = offsets[row + 1] - offsets[row]
                    var key = rows[row].key
                    return withUnsafeBytes(of: &key) { key in
                        // try?: a seal that fails makes the floor `nil`, as a refused key does.
                        (try? storeCipher.seal(
                            UnsafeRawBufferPointer(rebasing: plain[offsets[row]..<offsets[row + 1]]), tag: tag, key: key,
                            into: UnsafeMutableRawBufferPointer(rebasing: target[start..<(start + StoreCipher.sealedSize(count))]))) != nil
                    }
                }
            }
        }
        guard ok else { return nil }
        objDBSealed = sealed
        for size in Self.groupSizes {
            guard let grouped = sealGroups(of: size) else { return nil }
            groups[size] = grouped
        }
    }

    deinit {
        scratch.deallocate()
        groupScratch.deallocate()
    }

    /// The rows sealed with AES-GCM, `size` consecutive rows per message (associated data: the
    /// table tag and the first row's object key); `nil` if BoringSSL fails.
    private func sealGroups(of size: Int) -> (sealed: [UInt8], starts: [Int])? {
        guard let context = contexts[.aes256GCM] else { return nil }
        var sealed: [UInt8] = []
        var starts: [Int] = []
        var first = 0
        while first < keys.count {
            let end = min(first + size, keys.count)
            let count = offsets[end] - offsets[first]
            var message = [UInt8](repeating: 0, count: StoreCipher.sealedSize(count))
            message.withUnsafeMutableBytes { $0.storeBytes(of: UInt64(starts.count).littleEndian, as: UInt64.self) }
            let ok = plain.withUnsafeBytes { plain in
                associatedData.withUnsafeBytes { ad in
                    message.withUnsafeMutableBytes { out in
                        context.seal(
                            UnsafeRawBufferPointer(rebasing: plain[offsets[first]..<offsets[end]]),
                            ad: UnsafeRawBufferPointer(rebasing: ad[(16 * first)..<(16 * first + 16)]), into: out)
                    }
                }
            }
            guard ok else { return nil }
            starts.append(sealed.count)
            sealed += message
            first = end
        }
        starts.append(sealed.count)
        return (sealed, starts)
    }

    /// Opens the rows sealed with AES-GCM `rowsPerMessage` consecutive rows to a message (one of
    /// ``groupSizes``), each message in one call: the floor of the row buckets (``RowBucket``,
    /// 16 rows to a message) without their slot directory. Returns the number of rows in the
    /// messages that opened.
    public func openGrouped(rowsPerMessage: Int) -> Int {
        guard let context = contexts[.aes256GCM], let grouped = groups[rowsPerMessage] else { return 0 }
        var opened = 0
        grouped.sealed.withUnsafeBytes { sealed in
            associatedData.withUnsafeBytes { ad in
                for message in 0..<(grouped.starts.count - 1) {
                    let first = message * rowsPerMessage
                    let end = min(first + rowsPerMessage, keys.count)
                    let bytes = UnsafeRawBufferPointer(rebasing: sealed[grouped.starts[message]..<grouped.starts[message + 1]])
                    let ok = context.open(
                        bytes, ad: UnsafeRawBufferPointer(rebasing: ad[(16 * first)..<(16 * first + 16)]),
                        into: UnsafeMutableRawBufferPointer(rebasing: groupScratch[0..<(bytes.count - StoreCipher.overhead)]))
                    if ok { opened += end - first }
                }
            }
        }
        return opened
    }

    /// Seals row `row` with `algorithm` into its place in `target`, under a nonce made of `nonce`.
    private func seal(_ algorithm: Algorithm, row: Int, into target: UnsafeMutableRawBufferPointer, nonce: UInt64) -> Bool {
        guard let context = contexts[algorithm] else { return false }
        let start = offsets[row] + StoreCipher.overhead * row
        let count = offsets[row + 1] - offsets[row]
        let out = UnsafeMutableRawBufferPointer(rebasing: target[start..<(start + StoreCipher.sealedSize(count))])
        out.storeBytes(of: nonce.littleEndian, toByteOffset: 0, as: UInt64.self)
        out.storeBytes(of: 0, toByteOffset: 8, as: UInt32.self)
        return plain.withUnsafeBytes { plain in
            associatedData.withUnsafeBytes { ad in
                context.seal(
                    UnsafeRawBufferPointer(rebasing: plain[offsets[row]..<offsets[row + 1]]),
                    ad: UnsafeRawBufferPointer(rebasing: ad[(16 * row)..<(16 * row + 16)]), into: out)
            }
        }
    }

    /// Opens every row sealed with `algorithm` through its prepared context, the associated data
    /// built beforehand, into one buffer; returns the number that opened (``rowCount`` unless
    /// BoringSSL fails).
    public func openAll(_ algorithm: Algorithm) -> Int {
        guard let context = contexts[algorithm], let sealed = sealedRows[algorithm] else { return 0 }
        var opened = 0
        sealed.withUnsafeBytes { sealed in
            associatedData.withUnsafeBytes { ad in
                for row in 0..<keys.count {
                    let count = offsets[row + 1] - offsets[row]
                    let start = offsets[row] + StoreCipher.overhead * row
                    let ok = context.open(
                        UnsafeRawBufferPointer(rebasing: sealed[start..<(start + StoreCipher.sealedSize(count))]),
                        ad: UnsafeRawBufferPointer(rebasing: ad[(16 * row)..<(16 * row + 16)]),
                        into: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<count]))
                    if ok { opened += 1 }
                }
            }
        }
        return opened
    }

    /// Seals every row with `algorithm` through its prepared context, the nonces and associated
    /// data made beforehand, into one buffer; returns the number sealed.
    public func sealAll(_ algorithm: Algorithm) -> Int {
        guard let context = contexts[algorithm] else { return 0 }
        var done = 0
        plain.withUnsafeBytes { plain in
            associatedData.withUnsafeBytes { ad in
                scratch.storeBytes(of: 0, toByteOffset: 0, as: UInt64.self)
                scratch.storeBytes(of: 0, toByteOffset: 8, as: UInt32.self)
                for row in 0..<keys.count {
                    let count = offsets[row + 1] - offsets[row]
                    // A nonce per row; the rows are thrown away, so repeats across calls are harmless.
                    scratch.storeBytes(of: UInt32(truncatingIfNeeded: row), toByteOffset: 8, as: UInt32.self)
                    let ok = context.seal(
                        UnsafeRawBufferPointer(rebasing: plain[offsets[row]..<offsets[row + 1]]),
                        ad: UnsafeRawBufferPointer(rebasing: ad[(16 * row)..<(16 * row + 16)]),
                        into: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<StoreCipher.sealedSize(count)]))
                    if ok { done += 1 }
                }
            }
        }
        return done
    }

    /// Opens every AES-GCM row as a read of ObjDB does (``StoreCipher/open(_:tag:key:into:)``:
    /// the associated data built per row); returns the number that opened.
    public func openAllAsObjDB() -> Int {
        var opened = 0
        objDBSealed.withUnsafeBytes { sealed in
            for row in 0..<keys.count {
                let count = offsets[row + 1] - offsets[row]
                let start = offsets[row] + StoreCipher.overhead * row
                var key = keys[row]
                let ok = withUnsafeBytes(of: &key) { key in
                    storeCipher.open(
                        UnsafeRawBufferPointer(rebasing: sealed[start..<(start + StoreCipher.sealedSize(count))]), tag: tag, key: key,
                        into: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<count]))
                }
                if ok { opened += 1 }
            }
        }
        return opened
    }

    /// Seals every row as a write of ObjDB does (``StoreCipher/seal(_:tag:key:into:)``: a nonce
    /// from the cipher's source and the associated data built per row); returns the number sealed.
    public func sealAllAsObjDB() -> Int {
        var done = 0
        plain.withUnsafeBytes { plain in
            for row in 0..<keys.count {
                let count = offsets[row + 1] - offsets[row]
                var key = keys[row]
                let ok = withUnsafeBytes(of: &key) { key in
                    (try? storeCipher.seal(
                        UnsafeRawBufferPointer(rebasing: plain[offsets[row]..<offsets[row + 1]]), tag: tag, key: key,
                        into: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<StoreCipher.sealedSize(count)]))) != nil
                }
                if ok { done += 1 }
            }
        }
        return done
    }

    /// Computes the index key of every row's object key as ObjDB does
    /// (``StoreCipher/indexKey(_:tag:)``: HMAC-SHA256 through the prepared context); returns
    /// the sum of their first bytes.
    public func indexKeyAll() -> Int {
        var sum = 0
        for row in 0..<keys.count {
            var key = keys[row]
            sum &+= withUnsafeBytes(of: &key) { Int(storeCipher.indexKey($0, tag: tag).first ?? 0) }
        }
        return sum
    }
}
#endif
