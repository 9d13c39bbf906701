import Crypto
import Foundation

/// The cipher of an encrypted file (`Configuration.encryptionKey`; Docs/Encryption.md): the one
/// home of the encrypted byte formats.
///
/// Two subkeys are derived from the 64-byte key with HKDF-SHA256: one seals stored values with
/// AES-GCM-256 (a unique 96-bit nonce per value, ``NonceSource``; the associated data binds the
/// value to its table and key), the other keys primary-key and index tables with HMAC-SHA256 cut to
/// ``indexKeyLength`` bytes (deterministic, so equal values still find each other). A sealed
/// value is `nonce (12) ‖ ciphertext (as long as the value) ‖ tag (16)`.
///
/// Where swift-crypto builds BoringSSL, the work goes through its C API with the key prepared
/// once (``DirectCipher``, fast path `directCipher`); swift-crypto's public API is the slow twin.
final class StoreCipher: Sendable {
    /// The length of `Configuration.encryptionKey`, as Realm's.
    static let keyLength = 64
    /// Bytes a sealed value adds to its plaintext: nonce and tag.
    static let overhead = 12 + 16
    /// Bytes of an index or primary-key table's key in an encrypted file.
    static let indexKeyLength = 16
    /// The plaintext of the key-check record, sealed under the record's name.
    static let checkPlaintext = Array("ObjDB encryption check 1".utf8)

    private let valueKey: SymmetricKey
    private let indexKey: SymmetricKey
    /// A digest of the key (HKDF output of its own), telling two keys apart without keeping
    /// either: environments of one file in a process must share one key.
    let keyID: [UInt8]
    /// Whether this build has the fast path (`directCipher`): where swift-crypto builds BoringSSL.
    #if canImport(CCryptoBoringSSL)
    static let hasDirectCipher = true
    #else
    static let hasDirectCipher = false
    #endif
    /// The nonces of the values this cipher seals.
    private let nonces = NonceSource()
    #if canImport(CCryptoBoringSSL)
    /// The fast path; `nil` when it is switched off or BoringSSL refused the key.
    private let direct: DirectCipher?
    /// ``direct`` unretained (this cipher keeps it), for the calls per value: a retain and a
    /// release around each cost a row read more than building its associated data.
    private let directRef: Unmanaged<DirectCipher>?
    #endif

    /// Derives the subkeys; `key` must be ``keyLength`` bytes (checked by the caller, with a
    /// message naming the setting).
    init(key: Data) {
        let master = SymmetricKey(data: key)
        let salt = Array("ObjDB encryption at rest".utf8)
        func derive(_ info: String, _ count: Int) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(inputKeyMaterial: master, salt: salt, info: Array(info.utf8), outputByteCount: count)
        }
        valueKey = derive("values AES-GCM-256", 32)
        indexKey = derive("index keys HMAC-SHA256", 32)
        keyID = derive("key id", 16).withUnsafeBytes { Array($0) }
        #if canImport(CCryptoBoringSSL)
        direct = FastPaths.enabled.contains(.directCipher)
            ? DirectCipher(valueKey: valueKey.withUnsafeBytes { Array($0) }, indexKey: indexKey.withUnsafeBytes { Array($0) })
            : nil
        directRef = direct.map { Unmanaged.passUnretained($0) }
        #endif
    }

    /// The size of `count` bytes sealed.
    @inline(__always)
    static func sealedSize(_ count: Int) -> Int { count + overhead }

    // MARK: Values

    /// Seals `plaintext`, stored under `key` in the table tagged `tag`, into `target`, which
    /// must hold ``sealedSize(_:)`` bytes.
    func seal(_ plaintext: UnsafeRawBufferPointer, tag: UInt64, key: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer) throws {
        guard target.count == Self.sealedSize(plaintext.count) else {
            throw ObjDBError(.storage, "A sealed value of \(plaintext.count) bytes needs \(Self.sealedSize(plaintext.count)) bytes, not \(target.count)")
        }
        nonces.next(into: target)
        try Self.withAssociatedData(tag, key) { ad in
            #if canImport(CCryptoBoringSSL)
            if let directRef {
                guard directRef._withUnsafeGuaranteedRef({ $0.seal(plaintext, ad: ad, into: target) }) else {
                    throw ObjDBError(.storage, "AES-GCM (BoringSSL) could not seal a value of \(plaintext.count) bytes")
                }
                #if OBJDB_INTERNAL_CHECKS
                if internalChecksEnabled {
                    let twin = Self.openWithAPI(UnsafeRawBufferPointer(target), ad: ad, key: valueKey)
                    internalCheck(twin.map { $0.elementsEqual(plaintext) } == true, "swift-crypto does not open what BoringSSL sealed")
                }
                #endif
                return
            }
            #endif
            let nonce = try AES.GCM.Nonce(data: UnsafeRawBufferPointer(rebasing: target[0..<12]))
            let box = try AES.GCM.seal(plaintext, using: valueKey, nonce: nonce, authenticating: ad)
            guard let combined = box.combined, combined.count == target.count else {
                throw ObjDBError(.storage, "AES-GCM sealed \(plaintext.count) bytes into an unexpected size")
            }
            combined.copyBytes(to: target)
        }
    }

    /// `plaintext` sealed, as a new array.
    func sealed(_ plaintext: UnsafeRawBufferPointer, tag: UInt64, key: UnsafeRawBufferPointer) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: Self.sealedSize(plaintext.count)) { buffer, count in
            try seal(plaintext, tag: tag, key: key, into: UnsafeMutableRawBufferPointer(buffer))
            count = buffer.count
        }
    }

    /// Opens `sealed`, stored under `key` in the table tagged `tag`, into `target` (which holds
    /// `sealed.count - overhead` bytes); `false` if it does not authenticate (damaged, altered,
    /// moved to another key or table, or sealed under another key).
    func open(_ sealed: UnsafeRawBufferPointer, tag: UInt64, key: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer) -> Bool {
        guard sealed.count >= Self.overhead, target.count == sealed.count - Self.overhead else { return false }
        return Self.withAssociatedData(tag, key) { ad in
            #if canImport(CCryptoBoringSSL)
            if let directRef {
                let opened = directRef._withUnsafeGuaranteedRef { $0.open(sealed, ad: ad, into: target) }
                #if OBJDB_INTERNAL_CHECKS
                // Tests only: a wrong plaintext for the check to catch.
                if opened, FastPaths.broken.contains(.directCipher), let first = target.first { target[0] = first ^ 0xFF }
                if internalChecksEnabled {
                    let twin = Self.openWithAPI(sealed, ad: ad, key: valueKey)
                    internalCheck(
                        twin.map { $0.elementsEqual(UnsafeRawBufferPointer(target)) } ?? false == opened,
                        "BoringSSL and swift-crypto disagree on opening a value of \(sealed.count) bytes")
                }
                #endif
                return opened
            }
            #endif
            guard let plain = Self.openWithAPI(sealed, ad: ad, key: valueKey) else { return false }
            plain.copyBytes(to: target)
            return true
        }
    }

    /// ``open(_:tag:key:into:)`` handing the plaintext to `body` (valid only during the call);
    /// `nil` if it does not authenticate.
    func open<R>(_ sealed: UnsafeRawBufferPointer, tag: UInt64, key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        guard sealed.count >= Self.overhead else { return nil }
        let count = sealed.count - Self.overhead
        return try withUnsafeTemporaryAllocation(byteCount: max(count, 1), alignment: 8) { buffer in
            let target = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            guard open(sealed, tag: tag, key: key, into: target) else { return nil }
            return try body(UnsafeRawBufferPointer(target))
        }
    }

    /// swift-crypto's answer: the plaintext, or `nil` if `sealed` does not authenticate.
    private static func openWithAPI(_ sealed: UnsafeRawBufferPointer, ad: UnsafeRawBufferPointer, key: SymmetricKey) -> Data? {
        // try?: a value that does not parse or authenticate is the answer `nil` stands for.
        guard let box = try? AES.GCM.SealedBox(combined: sealed) else { return nil }
        return try? AES.GCM.open(box, using: key, authenticating: ad)
    }

    // MARK: Index keys

    /// The key of an index or primary-key table of the table tagged `tag` for the encoded key
    /// `plain`: HMAC-SHA256 of the tag (8 bytes, little endian) and `plain`, cut to
    /// ``indexKeyLength`` bytes.
    func indexKey(_ plain: UnsafeRawBufferPointer, tag: UInt64) -> [UInt8] {
        withIndexKey(plain, tag: tag) { Array($0) }
    }

    /// Calls `body` with ``indexKey(_:tag:)`` in memory of the call's own (no allocation on the
    /// fast path: keys are hashed once per row written and per lookup).
    @inline(__always)
    func withIndexKey<R>(_ plain: UnsafeRawBufferPointer, tag: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        #if canImport(CCryptoBoringSSL)
        if let directRef {
            var mac: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            let made = withUnsafeMutableBytes(of: &mac) { out in
                Self.withAssociatedData(tag, plain) { message in directRef._withUnsafeGuaranteedRef { $0.mac(message, into: out) } }
            }
            if made {
                return try withUnsafeBytes(of: &mac) { full in
                    let key = UnsafeRawBufferPointer(rebasing: full[0..<Self.indexKeyLength])
                    #if OBJDB_INTERNAL_CHECKS
                    if internalChecksEnabled {
                        internalCheck(key.elementsEqual(indexKeyWithAPI(plain, tag: tag)), "BoringSSL and swift-crypto disagree on an index key")
                    }
                    #endif
                    return try body(key)
                }
            }
        }
        #endif
        return try indexKeyWithAPI(plain, tag: tag).withUnsafeBytes(body)
    }

    private func indexKeyWithAPI(_ plain: UnsafeRawBufferPointer, tag: UInt64) -> [UInt8] {
        var mac = HMAC<SHA256>(key: indexKey)
        withUnsafeBytes(of: tag.littleEndian) { mac.update(data: $0) }
        mac.update(data: plain)
        return mac.finalize().withUnsafeBytes { Array($0.prefix(Self.indexKeyLength)) }
    }

    /// Calls `body` with the associated data of a value: the table's tag (8 bytes, little
    /// endian), then the value's key (also the message of an index key's HMAC).
    @inline(__always)
    private static func withAssociatedData<R>(_ tag: UInt64, _ key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if key.count == 8 {
            // An object key (rows, the change log): the same bytes, in a pair on the stack.
            var pair = (tag.littleEndian, key.loadUnaligned(as: UInt64.self))
            return try withUnsafeBytes(of: &pair) { try body($0) }
        }
        return try withUnsafeTemporaryAllocation(byteCount: 8 + key.count, alignment: 8) { buffer in
            buffer.storeBytes(of: tag.littleEndian, as: UInt64.self)
            if key.count > 0 { UnsafeMutableRawBufferPointer(rebasing: buffer[8...]).copyMemory(from: key) }
            return try body(UnsafeRawBufferPointer(buffer))
        }
    }

    /// The tag of the table named `name`, in the associated data of its values and in its
    /// index keys: FNV-1a of the name, so a value copied to another table does not open.
    static func tag(ofTable name: String) -> UInt64 {
        name.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }
}
