import Foundation
import ObjDBTestProcesses

/// Runs the `ObjDBTestHelper` executable (built with the tests) as a second process.
enum HelperProcess {
    /// Starts the helper without waiting for it.
    static func start(_ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        let running = try TestProcess("ObjDBTestHelper", arguments, timeout: nil)
        return (running.process, running.output, running.error)
    }

    /// Runs the helper to completion.
    static func run(_ arguments: [String]) throws -> TestProcess.Result {
        try TestProcess.run("ObjDBTestHelper", arguments)
    }
}
