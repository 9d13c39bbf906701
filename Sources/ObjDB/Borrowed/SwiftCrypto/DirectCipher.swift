// BORROWED: swift-crypto's BoringSSL module, `CCryptoBoringSSL` (swift-crypto 4.x, BoringSSL's
// `EVP_AEAD_CTX_*` and `HMAC_*` under its symbol prefix). It is a target of
// swift-crypto, not one of its products: it is importable because `Crypto` depends on it, and
// only where swift-crypto builds it (not on Apple platforms, where `Crypto` is CryptoKit).
// Verified at run time: the context must initialise, every call's result code and length are
// checked, and any failure is reported as the operation failing. Fast path `directCipher`; its
// slow twin is swift-crypto's public API (``StoreCipher``'s `AES.GCM` and `HMAC` calls), which
// the internal checks compare with it on every seal, open and index key. The format is the same
// standard AES-GCM and HMAC-SHA256 either way, so a file written by one reads with the other.
#if canImport(CCryptoBoringSSL)
import CCryptoBoringSSL
import Crypto
import Foundation

/// AES-GCM-256 with the key schedule prepared once, and HMAC-SHA256, through BoringSSL's C API:
/// no allocation per value.
final class DirectCipher: @unchecked Sendable {
    /// The AEAD context; BoringSSL's seal and open take it `const`, so threads share it.
    private let context: UnsafeMutablePointer<EVP_AEAD_CTX>
    /// The HMAC context with the index key's inner and outer states prepared once; reused by
    /// every index key under ``macMutex`` (an HMAC context is not shared between threads).
    private let hmac: UnsafeMutablePointer<HMAC_CTX>
    /// The lock of ``hmac``: a mutex in memory of its own, taken without the retain and release
    /// of an object around each call that an `NSLock` cost.
    private let macMutex: UnsafeMutablePointer<pthread_mutex_t>
    /// A byte to point at for empty buffers (BoringSSL wants pointers, even for 0 bytes); never
    /// written (nothing is written for 0 bytes) and never freed.
    private nonisolated(unsafe) static let empty = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

    /// The AEAD of the values: AES-GCM-256, the file format's; ChaCha20-Poly1305 only for the
    /// benchmark's floor (``CipherFloor``), with the same 12-byte nonce and 16-byte tag.
    enum Algorithm: Sendable {
        /// AES-GCM with a 256-bit key.
        case aes256GCM
        /// ChaCha20-Poly1305 (RFC 8439).
        case chaCha20Poly1305
    }

    /// `nil` if BoringSSL refuses the key.
    init?(valueKey: [UInt8], indexKey: [UInt8], algorithm: Algorithm = .aes256GCM) {
        let context = UnsafeMutablePointer<EVP_AEAD_CTX>.allocate(capacity: 1)
        context.initialize(to: EVP_AEAD_CTX())
        let aead = switch algorithm {
        case .aes256GCM: CCryptoBoringSSL_EVP_aead_aes_256_gcm()
        case .chaCha20Poly1305: CCryptoBoringSSL_EVP_aead_chacha20_poly1305()
        }
        let rc = valueKey.withUnsafeBytes { key in
            CCryptoBoringSSL_EVP_AEAD_CTX_init(context, aead, key.baseAddress, key.count, 16, nil)
        }
        guard rc == 1 else {
            context.deallocate()
            return nil
        }
        guard let hmac = CCryptoBoringSSL_HMAC_CTX_new() else {
            CCryptoBoringSSL_EVP_AEAD_CTX_cleanup(context)
            context.deallocate()
            return nil
        }
        let keyed = indexKey.withUnsafeBytes { key in
            CCryptoBoringSSL_HMAC_Init_ex(hmac, key.baseAddress, key.count, CCryptoBoringSSL_EVP_sha256(), nil)
        }
        guard keyed == 1 else {
            CCryptoBoringSSL_HMAC_CTX_free(hmac)
            CCryptoBoringSSL_EVP_AEAD_CTX_cleanup(context)
            context.deallocate()
            return nil
        }
        self.context = context
        self.hmac = hmac
        macMutex = .allocate(capacity: 1)
        macMutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(macMutex, nil)
    }

    deinit {
        CCryptoBoringSSL_EVP_AEAD_CTX_cleanup(context)
        context.deallocate()
        CCryptoBoringSSL_HMAC_CTX_free(hmac)
        pthread_mutex_destroy(macMutex)
        macMutex.deallocate()
    }

    private func address(_ buffer: UnsafeRawBufferPointer) -> UnsafePointer<UInt8> {
        (buffer.baseAddress ?? UnsafeRawPointer(Self.empty)).assumingMemoryBound(to: UInt8.self)
    }

    /// Seals `plaintext` into `target` (the 12-byte nonce already written there, then the
    /// ciphertext and the 16-byte tag) with associated data `ad`; `false` if BoringSSL fails.
    func seal(_ plaintext: UnsafeRawBufferPointer, ad: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer) -> Bool {
        guard let base = target.baseAddress?.assumingMemoryBound(to: UInt8.self), target.count == plaintext.count + 28 else { return false }
        var written = 0
        let rc = CCryptoBoringSSL_EVP_AEAD_CTX_seal(
            context, base + 12, &written, target.count - 12, base, 12, address(plaintext), plaintext.count, address(ad), ad.count)
        return rc == 1 && written == plaintext.count + 16
    }

    /// Opens `sealed` into `target` (`sealed.count - 28` bytes); `false` if it does not
    /// authenticate.
    func open(_ sealed: UnsafeRawBufferPointer, ad: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer) -> Bool {
        guard let base = sealed.baseAddress?.assumingMemoryBound(to: UInt8.self), sealed.count >= 28,
            target.count == sealed.count - 28
        else { return false }
        var written = 0
        let out = (target.baseAddress ?? Self.empty).assumingMemoryBound(to: UInt8.self)
        let rc = CCryptoBoringSSL_EVP_AEAD_CTX_open(
            context, out, &written, target.count, base, 12, base + 12, sealed.count - 12, address(ad), ad.count)
        return rc == 1 && written == target.count
    }

    /// HMAC-SHA256 of `message` under the index key, into `target` (32 bytes); `false` if
    /// BoringSSL fails.
    func mac(_ message: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer) -> Bool {
        guard let out = target.baseAddress?.assumingMemoryBound(to: UInt8.self), target.count == 32 else { return false }
        var length: UInt32 = 0
        pthread_mutex_lock(macMutex)
        defer { pthread_mutex_unlock(macMutex) }
        // A nil key with the same hash function restarts from the prepared inner state.
        guard CCryptoBoringSSL_HMAC_Init_ex(hmac, nil, 0, nil, nil) == 1,
            CCryptoBoringSSL_HMAC_Update(hmac, address(message), message.count) == 1,
            CCryptoBoringSSL_HMAC_Final(hmac, out, &length) == 1
        else { return false }
        return length == 32
    }
}
#endif
