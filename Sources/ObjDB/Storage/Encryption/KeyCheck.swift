/// The key-check record of an encrypted file (`meta` → `encryption`), which tells a wrong key
/// from damage before anything else is read: a version byte (1), the key's identifier
/// (``StoreCipher/keyID``, 16 bytes) and ``StoreCipher/checkPlaintext`` sealed under the record's
/// name.
enum KeyCheck {
    /// What the record says of a cipher.
    enum Outcome: Equatable {
        case matches
        /// The record names another key.
        case otherKey
        /// The record does not parse, or names this key but does not authenticate.
        case damaged
    }

    static let version: UInt8 = 1
    private static let name = Array("encryption".utf8)

    /// The record for `cipher`, in the `meta` table tagged `tag`.
    static func record(cipher: StoreCipher, tag: UInt64) throws -> [UInt8] {
        let sealed = try StoreCipher.checkPlaintext.withUnsafeBytes { plain in
            try name.withUnsafeBytes { try cipher.sealed(plain, tag: tag, key: $0) }
        }
        return [version] + cipher.keyID + sealed
    }

    /// Checks `record` against `cipher`.
    static func check(_ record: UnsafeRawBufferPointer, cipher: StoreCipher, tag: UInt64) -> Outcome {
        let idLength = cipher.keyID.count
        guard record.count == 1 + idLength + StoreCipher.sealedSize(StoreCipher.checkPlaintext.count), record[0] == version else {
            return .damaged
        }
        guard record[1...idLength].elementsEqual(cipher.keyID) else { return .otherKey }
        let sealed = UnsafeRawBufferPointer(rebasing: record[(1 + idLength)...])
        let opened = name.withUnsafeBytes { key in
            cipher.open(sealed, tag: tag, key: key) { $0.elementsEqual(StoreCipher.checkPlaintext) }
        }
        return opened == true ? .matches : .damaged
    }
}
