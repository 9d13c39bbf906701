import Foundation

/// The nonces of one cipher: 8 random bytes drawn when it is made (and again every 2³² values),
/// then a 32-bit counter — unique per value without asking the system's random generator each
/// time (BoringSSL's costs more than the encryption of a row). Two ciphers of the same key (two
/// processes, two opens) repeat a nonce only if they draw the same 64-bit prefix: for a million
/// of them, a chance of about 2⁻²⁵, against about 2⁻³² for 2³² fully random nonces.
///
/// A process made by `fork()` inherits the prefix and the counter: the prefix is drawn again
/// in the child (``forkGeneration``), so a parent and a child that both write never share a nonce.
final class NonceSource: @unchecked Sendable {
    private let lock = NSLock()
    private var prefix: UInt64
    private var counter: UInt32 = 0
    private var generation: UInt64

    init() {
        _ = watchForks
        var generator = SystemRandomNumberGenerator()
        prefix = generator.next()
        generation = forkGeneration
    }

    /// Writes the next nonce into the first 12 bytes of `target`.
    func next(into target: UnsafeMutableRawBufferPointer) {
        let drawn = lock.withLock { () -> (prefix: UInt64, counter: UInt32) in
            if counter == .max || generation != forkGeneration {
                generation = forkGeneration
                var generator = SystemRandomNumberGenerator()
                prefix = generator.next()
                counter = 0
            }
            counter += 1
            return (prefix, counter)
        }
        target.storeBytes(of: drawn.prefix.littleEndian, toByteOffset: 0, as: UInt64.self)
        target.storeBytes(of: drawn.counter.littleEndian, toByteOffset: 8, as: UInt32.self)
    }
}

/// How many `fork()`s made this process: counted in the child, which has one thread then.
nonisolated(unsafe) private var forkGeneration: UInt64 = 0

/// Registers the count of forks, once.
private let watchForks: Void = {
    pthread_atfork(nil, nil, { forkGeneration &+= 1 })
}()
