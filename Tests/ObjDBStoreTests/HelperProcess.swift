import Foundation

/// Runs a built executable of the package (the test helper by default) and reads its output.
final class HelperProcess {
    let process = Process()
    private let output = Pipe()
    private var buffer = Data()

    /// The executable `name` next to the test bundle.
    static func executable(_ name: String) -> URL? {
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

    struct NotFound: Error { let name: String }

    /// Starts `name` with `arguments`.
    init(_ arguments: [String], executable name: String = "ObjDBTestHelper") throws {
        guard let url = Self.executable(name) else { throw NotFound(name: name) }
        process.executableURL = url
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
    }

    /// The next line the process prints; `nil` at the end of its output.
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
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
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Runs `name` with `arguments` to its end: its exit status, standard output and error.
    static func run(_ arguments: [String], executable name: String) throws -> (status: Int32, output: String, error: String) {
        guard let url = executable(name) else { throw NotFound(name: name) }
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
