import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a child process ended.
public enum ChildTermination: Sendable, Hashable, CustomStringConvertible {
    /// It exited with this status.
    case exited(Int32)
    /// A signal ended it (`SIGKILL` from the harness, `SIGILL`/`SIGTRAP` from a Swift trap,
    /// `SIGSEGV`/`SIGBUS`/`SIGABRT` from a crash).
    case signaled(Int32)
    /// It ran past its time limit and was killed.
    case timedOut

    /// Whether it exited with status 0.
    public var succeeded: Bool { self == .exited(0) }

    /// Whether it ended abnormally on its own: a signal other than the harness's `SIGKILL`.
    public var crashed: Bool {
        if case .signaled(let signal) = self { return signal != SIGKILL }
        return false
    }

    /// `exit 3`, `signal 4 (SIGILL)`, `timed out`.
    public var description: String {
        switch self {
        case .exited(let status): "exit \(status)"
        case .signaled(let signal): "signal \(signal) (\(ChildProcess.signalName(signal)))"
        case .timedOut: "timed out"
        }
    }
}

/// A finished child process: how it ended, and what it wrote.
public struct ChildResult: Sendable {
    /// How it ended.
    public var termination: ChildTermination
    /// Its standard output.
    public var output: String
    /// Its standard error.
    public var error: String

    /// The lines of standard output.
    public var outputLines: [Substring] { output.split(separator: "\n") }
}

/// Runs a program as a child process with `posix_spawn`, its output going to files (so that a
/// child killed at any moment leaves every line it wrote, and a chatty child never blocks on a
/// full pipe).
public final class ChildProcess {
    /// The child's process id.
    public let pid: pid_t
    /// Where its standard output goes.
    public let outputURL: URL
    /// Where its standard error goes.
    public let errorURL: URL
    private var finished: ChildTermination?

    /// Starts `executable` with `arguments`, its output in files under `directory`, with the
    /// environment of this process plus `environment`.
    public init(_ executable: URL, _ arguments: [String], directory: URL, environment: [String: String] = [:]) throws {
        let name = "child-\(UUID().uuidString.prefix(8))"
        outputURL = directory.appendingPathComponent(name + ".out")
        errorURL = directory.appendingPathComponent(name + ".err")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o644)
        let argv = ([executable.path] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, new in new }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") }
        defer { envp.forEach { free($0) } }
        let status = posix_spawn(&pid, executable.path, &actions, nil, argv + [nil], envp + [nil])
        guard status == 0 else {
            throw HarnessError("posix_spawn of \(executable.path) failed: \(String(cString: strerror(status)))")
        }
        self.pid = pid
    }

    deinit {
        if finished == nil {
            sendKill(pid)
            _ = wait(timeout: nil)
        }
        try? FileManager.default.removeItem(at: outputURL)
        try? FileManager.default.removeItem(at: errorURL)
    }

    /// Sends `SIGKILL`.
    public func kill() {
        if finished == nil { sendKill(pid) }
    }

    /// How the child ended, if it has ended; does not wait.
    public func poll() -> ChildTermination? {
        if let finished { return finished }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return nil }
        finished = Self.termination(status)
        return finished
    }

    /// Waits until the child ends, or kills it after `timeout` seconds.
    public func wait(timeout: Double?) -> ChildTermination {
        if let finished { return finished }
        guard let timeout else {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let termination = Self.termination(status)
            finished = termination
            return termination
        }
        let deadline = Date().addingTimeInterval(timeout)
        var pause: useconds_t = 200
        while Date() < deadline {
            if let termination = poll() { return termination }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
        kill()
        _ = wait(timeout: nil)
        finished = .timedOut
        return .timedOut
    }

    /// What the child has written to standard output so far.
    public func output() -> String { Self.read(outputURL) }

    /// What the child has written to standard error so far.
    public func errorOutput() -> String { Self.read(errorURL) }

    /// Runs `executable` to its end (or its time limit) and returns what happened.
    public static func run(
        _ executable: URL, _ arguments: [String], directory: URL, timeout: Double, environment: [String: String] = [:]
    ) throws -> ChildResult {
        let child = try ChildProcess(executable, arguments, directory: directory, environment: environment)
        let termination = child.wait(timeout: timeout)
        return ChildResult(termination: termination, output: child.output(), error: child.errorOutput())
    }

    private static func read(_ url: URL) -> String {
        (try? Data(contentsOf: url)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    private static func termination(_ status: Int32) -> ChildTermination {
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
    }

    /// The usual name of a signal number.
    public static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGABRT: "SIGABRT"
        case SIGBUS: "SIGBUS"
        case SIGFPE: "SIGFPE"
        case SIGKILL: "SIGKILL"
        case SIGSEGV: "SIGSEGV"
        case SIGTERM: "SIGTERM"
        default: "signal \(signal)"
        }
    }
}

/// `kill(pid, SIGKILL)`, outside the class whose `kill()` method would hide it.
private func sendKill(_ pid: pid_t) {
    _ = kill(pid, SIGKILL)
}
