import Foundation

/// Runs the `ObjDBTestHelper` executable (built with the tests) as a second process.
enum HelperProcess {
    /// The helper binary, found next to the test bundle.
    static var url: URL? {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0])]
        candidates += Bundle.allBundles.map(\.bundleURL)
        for start in candidates {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<5 {
                let helper = directory.appendingPathComponent("ObjDBTestHelper")
                if FileManager.default.isExecutableFile(atPath: helper.path) { return helper }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }

    /// Output of a finished run.
    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    /// Starts the helper without waiting for it.
    static func start(_ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        guard let url else { throw HelperError.notFound }
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        return (process, output, error)
    }

    /// Runs the helper to completion.
    static func run(_ arguments: [String]) throws -> Result {
        let (process, output, error) = try start(arguments)
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
            error: String(decoding: err, as: UTF8.self))
    }

    enum HelperError: Error { case notFound }
}
