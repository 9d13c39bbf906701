import Foundation
import ObjDBTestProcesses

/// `TestProcess`'s blocking calls for async tests, run on a Dispatch thread: blocked on a
/// cooperative thread (two on this machine), they would starve the in-process service the child
/// process talks to, and every other test.
extension TestProcess {
    /// ``TestProcess/run(_:_:)`` off the cooperative pool.
    static func runOffPool(_ name: String, _ arguments: [String]) async throws -> TestProcess.Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result { try TestProcess.run(name, arguments) })
            }
        }
    }

    /// The next line the process prints, read off the cooperative pool.
    func nextLine() async -> String? {
        let box = UncheckedBox(self)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: box.value.readLine()) }
        }
    }

    /// Waits for the process to end, off the cooperative pool.
    func exited() async {
        let box = UncheckedBox(self)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                box.value.process.waitUntilExit()
                continuation.resume()
            }
        }
    }
}

/// A value handed to a Dispatch thread while the task that owns it waits for that thread.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
