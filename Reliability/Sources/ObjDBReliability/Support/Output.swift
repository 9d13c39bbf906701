import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lines written by worker processes, straight to the file descriptor (no buffer a `SIGKILL`
/// could lose).
public enum Output {
    /// Writes `text` and a line end to standard output with one `write`.
    public static func line(_ text: String) {
        write(1, text + "\n")
    }

    /// Writes `text` and a line end to standard error with one `write`.
    public static func error(_ text: String) {
        write(2, text + "\n")
    }

    private static func write(_ descriptor: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Foundation.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

/// `key=value` fields of a worker's output line, e.g. `check last=12 items=40 digest=ab/120`.
public struct OutputFields: Sendable {
    /// The first word of the line.
    public let tag: String
    /// The fields after it.
    public let values: [String: String]

    /// Parses a line; `nil` for an empty one.
    public init?(_ line: Substring) {
        var words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard !words.isEmpty else { return nil }
        tag = String(words.removeFirst())
        var values: [String: String] = [:]
        for word in words {
            guard let equals = word.firstIndex(of: "=") else { continue }
            values[String(word[..<equals])] = String(word[word.index(after: equals)...])
        }
        self.values = values
    }

    /// The field `name` as an integer.
    public func int(_ name: String) -> Int? { values[name].flatMap { Int($0) } }

    /// The field `name`.
    public subscript(name: String) -> String? { values[name] }

    /// The first line of `output` tagged `tag`.
    public static func first(_ tag: String, in output: String) -> OutputFields? {
        output.split(separator: "\n").lazy.compactMap { OutputFields($0) }.first { $0.tag == tag }
    }
}

/// Makes text safe for one `key=value` field: no spaces or line ends.
public func fieldText(_ text: String, limit: Int = 300) -> String {
    String(text.prefix(limit).map { $0 == " " ? "_" : ($0.isNewline ? "|" : $0) })
}
