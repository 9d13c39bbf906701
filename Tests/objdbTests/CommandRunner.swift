import Foundation
import ObjDBTestProcesses

/// Runs the built `objdb` binary and captures what it prints.
enum CommandRunner {
    /// Runs `objdb` with `arguments` to its end.
    static func run(_ arguments: [String]) throws -> TestProcess.Result {
        try TestProcess.run("objdb", arguments)
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
