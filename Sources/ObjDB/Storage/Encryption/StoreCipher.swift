import Crypto
import Foundation

/// The cipher of an encrypted file (`Configuration.encryptionKey`; Docs/Encryption.md): the one
/// home of the encrypted byte formats.
///
/// Two subkeys are derived from the 64-byte key with HKDF-SHA256: one seals stored values with
/// AES-GCM-256 (a random 96-bit nonce per value; the associated data binds the value to its
/// table and key), the other keys primary-key and index tables with HMAC-SHA256 cut to
/// ``indexKeyLength`` bytes (deterministic, so equal values still find each other). A sealed
/// value is `nonce (12) ‖ ciphertext (as long as the value) ‖ tag (16)`.
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
    }

    /// The size of `count` bytes sealed.
    @inline(__always)
    static func sealedSize(_ count: Int) -> Int { count + overhead }

    /// Seals `plaintext`, stored under `key` in the table tagged `tag`, into `target`, which
    /// must hold ``sealedSize(_:)`` bytes.
    func seal(_ plaintext: UnsafeRawBufferPointer, tag: UInt64, key: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer) throws {
        let box = try Self.withAssociatedData(tag, key) { try AES.GCM.seal(plaintext, using: valueKey, authenticating: $0) }
        guard let combined = box.combined, combined.count == target.count else {
            throw ObjDBError(.storage, "AES-GCM sealed \(plaintext.count) bytes into an unexpected size")
        }
        combined.copyBytes(to: target)
    }

    /// `plaintext` sealed, as a new array.
    func sealed(_ plaintext: UnsafeRawBufferPointer, tag: UInt64, key: UnsafeRawBufferPointer) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: Self.sealedSize(plaintext.count)) { buffer, count in
            try seal(plaintext, tag: tag, key: key, into: UnsafeMutableRawBufferPointer(buffer))
            count = buffer.count
        }
    }

    /// Opens `sealed`, stored under `key` in the table tagged `tag`; `nil` if it does not
    /// authenticate (damaged, altered, moved to another key or table, or sealed under another
    /// key). `body` reads the plaintext, valid only during the call.
    func open<R>(_ sealed: UnsafeRawBufferPointer, tag: UInt64, key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        guard sealed.count >= Self.overhead,
            let box = try? AES.GCM.SealedBox(combined: sealed),
            // try?: a failed authentication is the answer `nil` stands for.
            let plaintext = try? Self.withAssociatedData(tag, key, { try AES.GCM.open(box, using: valueKey, authenticating: $0) })
        else { return nil }
        return try plaintext.withUnsafeBytes(body)
    }

    /// The key of an index or primary-key table of the table tagged `tag` for the encoded key
    /// `plain`: HMAC-SHA256, cut to ``indexKeyLength`` bytes.
    func indexKey(_ plain: UnsafeRawBufferPointer, tag: UInt64) -> [UInt8] {
        var mac = HMAC<SHA256>(key: indexKey)
        withUnsafeBytes(of: tag.littleEndian) { mac.update(data: $0) }
        mac.update(data: plain)
        return mac.finalize().withUnsafeBytes { Array($0.prefix(Self.indexKeyLength)) }
    }

    /// Calls `body` with the associated data of a value: the table's tag (8 bytes, little
    /// endian), then the value's key.
    private static func withAssociatedData<R>(_ tag: UInt64, _ key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(byteCount: 8 + key.count, alignment: 8) { buffer in
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
