import Foundation
import Testing
import ObjDBReliability

/// The attacks' short runs, one at a time: each starts child processes of its own, and the
/// machine may have two cores.
@Suite(.serialized) struct ReliabilityAttacks {}

/// The `objdb-reliability` executable, built with the tests (the test target depends on it), found
/// next to the test bundle.
enum ReliabilityExecutable {
    static var url: URL? {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0])]
        candidates += Bundle.allBundles.map(\.bundleURL)
        for start in candidates {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<5 {
                let binary = directory.appendingPathComponent("objdb-reliability")
                if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }

    /// The executable, or a failed requirement.
    static func require() throws -> URL {
        try #require(url, "objdb-reliability must be built next to the test bundle")
    }
}

/// A fresh directory under the temporary directory, removed when released.
final class ScratchDirectory: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("objdb-reliability-tests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
