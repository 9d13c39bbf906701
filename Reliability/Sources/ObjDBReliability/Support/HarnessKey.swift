import Foundation

/// The encryption key of the harness's runs on encrypted files, handed to worker processes in
/// the environment variable `OBJDB_RELIABILITY_KEY` (128 hexadecimal digits).
public enum HarnessKey {
    static let variable = "OBJDB_RELIABILITY_KEY"

    /// The fixed 64-byte key the encrypted runs use.
    public static let fixed = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })

    /// This worker process's key, from its environment; `nil` for a plain run.
    static var current: Data? {
        guard let hex = ProcessInfo.processInfo.environment[variable], hex.count == 128 else { return nil }
        let digits = Array(hex.utf8)
        let bytes = stride(from: 0, to: digits.count, by: 2).compactMap { UInt8(String(decoding: digits[$0...($0 + 1)], as: UTF8.self), radix: 16) }
        return bytes.count == 64 ? Data(bytes) : nil
    }

    /// The environment that hands `key` to a worker (empty for a plain run).
    static func environment(_ key: Data?) -> [String: String] {
        guard let key else { return [:] }
        return [variable: key.map { String(format: "%02x", $0) }.joined()]
    }
}
