import Foundation

/// The process-wide table of open environments: one `MDB_env` per canonical file path.
///
/// LMDB must not open the same file twice in one process (closing one handle would drop the
/// other's POSIX locks), so every `Database` gets its environment here and gives it back when it
/// goes away. The registry counts users explicitly and closes the environment at zero, under
/// its lock, so a concurrent open never overlaps a close.
final class EnvironmentRegistry: @unchecked Sendable {
    /// The one registry of the process.
    static let shared = EnvironmentRegistry()

    private let lock = NSLock()
    private var environments: [String: Environment] = [:]

    /// Returns the open environment for `path`, opening it with `options` if needed.
    ///
    /// `beforeOpening` runs first when this process does not have the file open yet (under the
    /// registry's lock, so no other instance of this process opens it meanwhile).
    func acquire(path: String, options: EnvironmentOptions, beforeOpening: () -> Void = {}) throws -> EnvironmentLease {
        try lock.withLock {
            if let env = environments[path] {
                try Self.checkCompatible(env, options)
                env.leaseCount += 1
                return EnvironmentLease(env, registry: self)
            }
            beforeOpening()
            if options.deleteOnClose {
                // A file left by a crashed process that used the same in-memory identifier.
                // try?: best effort; one that cannot be removed makes the open below fail and say why.
                try? FileManager.default.removeItem(atPath: path)
                try? FileManager.default.removeItem(atPath: path + "-lock")
            }
            let env = try Environment(path: path, options: options)
            env.leaseCount = 1
            environments[path] = env
            return EnvironmentLease(env, registry: self)
        }
    }

    /// The environment of `path` for reading it without a `Database`: the one this process has
    /// open, whatever its options, or a new read-only one with a map of `mapSize` bytes.
    func acquireForInspection(path: String, mapSize: Int) throws -> EnvironmentLease {
        try lock.withLock {
            if let env = environments[path] {
                env.leaseCount += 1
                return EnvironmentLease(env, registry: self)
            }
            let env = try Environment(path: path, options: EnvironmentOptions(readOnly: true, mapSize: mapSize))
            env.leaseCount = 1
            environments[path] = env
            return EnvironmentLease(env, registry: self)
        }
    }

    /// Whether some `Database` in this process has the file open.
    func isOpen(path: String) -> Bool { lock.withLock { environments[path] != nil } }

    fileprivate func release(_ env: Environment) {
        lock.withLock {
            env.leaseCount -= 1
            if env.leaseCount == 0 {
                environments[env.path] = nil
                env.close()
            }
        }
    }

    private static func checkCompatible(_ env: Environment, _ options: EnvironmentOptions) throws {
        // Every instance on a file in a process shares one environment, and so one cipher.
        switch (env.options.cipher, options.cipher) {
        case (nil, _?):
            throw ObjDBError(
                .fileNotEncrypted,
                "The file is open in this process without encryption, but Configuration.encryptionKey is set; open it without a key",
                path: env.path)
        case (_?, nil):
            throw ObjDBError(.encryptionKeyRequired, "The file is encrypted; set Configuration.encryptionKey to its 64-byte key to open it", path: env.path)
        case (let open?, let given?) where open.keyID != given.keyID:
            throw ObjDBError(.wrongEncryptionKey, "The file is encrypted with another key than Configuration.encryptionKey", path: env.path)
        default:
            break
        }
        if env.options.readOnly && !options.readOnly {
            throw ObjDBError(
                .incompatibleConfiguration,
                "The file is already open read-only in this process; close those instances before opening it for writing",
                path: env.path)
        }
        if env.options.sync != options.sync && !env.options.deleteOnClose {
            throw ObjDBError(
                .incompatibleConfiguration,
                "The file is already open in this process with durability \(env.options.sync.durabilityName), not \(options.sync.durabilityName); every instance on one file in a process must use the same durability",
                path: env.path)
        }
    }
}

/// A counted reference to an open environment. The environment closes when the last lease dies.
final class EnvironmentLease: @unchecked Sendable {
    /// The environment this lease keeps open.
    let environment: Environment
    private let registry: EnvironmentRegistry

    fileprivate init(_ environment: Environment, registry: EnvironmentRegistry) {
        self.environment = environment
        self.registry = registry
    }

    deinit { registry.release(environment) }
}
