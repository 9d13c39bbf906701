import Foundation

/// Runs the built `objdb` binary and captures what it prints.
enum CommandRunner {
    /// The `objdb` executable next to the test bundle.
    static var executable: URL? {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0])]
        candidates += Bundle.allBundles.map(\.bundleURL)
        for start in candidates {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<5 {
                let binary = directory.appendingPathComponent("objdb")
                if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }

    /// The outcome of one run.
    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    enum RunnerError: Error { case binaryNotFound }

    /// Runs `objdb` with `arguments`.
    static func run(_ arguments: [String]) throws -> Result {
        guard let executable else { throw RunnerError.binaryNotFound }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self), error: String(decoding: err, as: UTF8.self))
    }
}

/// A temporary directory removed when released.
final class Scratch: Sendable {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("objdb-cli-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func file(_ name: String) -> String { url.appendingPathComponent(name).path }
}
