import Foundation
import ObjDBReliability

/// What every command shares: the executable for child processes, the working directory, the
/// seed, and where progress goes.
final class RunContext {
    /// This executable, started again for the attacks' child processes.
    let worker: URL
    /// The working directory of the run.
    let directory: URL
    /// The seed of every attack.
    let seed: UInt64
    /// Whether progress lines are suppressed.
    let quiet: Bool
    /// Whether the working directory is kept at the end.
    let keep: Bool

    init(_ arguments: inout Arguments) throws {
        worker = Self.executable()
        seed = UInt64(try arguments.int("seed") ?? 1)
        quiet = arguments.flag("quiet")
        keep = arguments.flag("keep")
        if let path = arguments.string("dir") {
            directory = URL(fileURLWithPath: path, isDirectory: true)
        } else {
            directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("objdb-reliability-\(UUID().uuidString.prefix(8))", isDirectory: true)
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// A fresh subdirectory of the working directory for one attack.
    func subdirectory(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name, isDirectory: true)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes a progress line to standard error, overwriting the previous one.
    func progress(_ line: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
    }

    /// Ends the progress line and removes the working directory unless it is kept.
    func finish() {
        if !quiet { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        if keep {
            print("working directory kept: \(directory.path)")
        } else {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// The path of the running executable.
    private static func executable() -> URL {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        return Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    }
}
