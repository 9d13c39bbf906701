import Foundation

/// Runs the package's built executables (`objdb`, `todo`, `ObjDBTestHelper`) from the tests, as
/// a user or a second process runs them: to the end, or line by line while they keep running.
public final class TestProcess {
    /// The outcome of a run to the end.
    public struct Result: Sendable {
        public var status: Int32
        public var output: String
        public var error: String
    }

    /// An executable that is not built next to the test bundle.
    public struct NotFound: Error, CustomStringConvertible {
        public let name: String
        public var description: String { "no built executable named \(name) next to the tests" }
    }

    /// The executable `name`, built next to the test bundle.
    public static func executable(_ name: String) -> URL? {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0])]
        candidates += Bundle.allBundles.map(\.bundleURL)
        for start in candidates {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<5 {
                let binary = directory.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }

    /// Runs `name` with `arguments` to its end.
    public static func run(_ name: String, _ arguments: [String]) throws -> Result {
        let running = try TestProcess(name, arguments, timeout: nil)
        let out = running.output.fileHandleForReading.readDataToEndOfFile()
        let err = running.error.fileHandleForReading.readDataToEndOfFile()
        running.process.waitUntilExit()
        return Result(
            status: running.process.terminationStatus, output: String(decoding: out, as: UTF8.self),
            error: String(decoding: err, as: UTF8.self))
    }

    public let process = Process()
    public let output = Pipe()
    public let error = Pipe()
    private var buffer = Data()
    private let timeout: DispatchWorkItem?

    /// Starts `name` with `arguments`, terminated after `timeout` seconds if it still runs (so
    /// that a test waiting for a line it never prints ends).
    /// `environment` is added to this process's environment.
    public init(_ name: String, _ arguments: [String], timeout seconds: Double? = 30, environment: [String: String] = [:]) throws {
        guard let url = Self.executable(name) else { throw NotFound(name: name) }
        process.executableURL = url
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardOutput = output
        process.standardError = error
        try process.run()
        if let seconds {
            let item = DispatchWorkItem { [process] in process.terminate() }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
            timeout = item
        } else {
            timeout = nil
        }
    }

    /// The next line the process prints; `nil` at the end of its output.
    public func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer += chunk
        }
    }

    /// Kills the process (SIGKILL) and waits for it.
    public func kill() {
        timeout?.cancel()
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
