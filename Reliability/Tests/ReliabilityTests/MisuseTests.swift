import Foundation
import Testing
import ObjDBReliability

/// Programmer errors stop the process with a message naming the call, class or property.
struct MisuseTests {
    /// Each case as an exit test: the body runs in a child process of the test runner.
    @Test(arguments: MisuseCase.allCases)
    func misuseStopsTheProcessWithAMessage(_ misuse: MisuseCase) async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [misuse] in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("objdb-misuse-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try misuse.trigger(in: directory)
        }
        let message = MisuseChecks.message(String(decoding: result?.standardErrorContent ?? [], as: UTF8.self))
        for word in misuse.expectedWords {
            #expect(message.contains(word), "\(misuse.rawValue): \(message)")
        }
    }
}

extension ReliabilityAttacks {
    /// The same cases through the `objdb-reliability` binary, as `objdb-reliability misuse` runs them.
    @Suite struct MisuseCommandTests {
        let scratch = ScratchDirectory()

        @Test func everyCaseStopsTheWorkerWithAMessage() throws {
            let result = try MisuseChecks.run(worker: try ReliabilityExecutable.require(), directory: scratch.url)
            #expect(result.passed, "\(result.table)")
            #expect(result.outcomes.count == MisuseCase.allCases.count)
            #expect(result.outcomes.allSatisfy { $0.stopped && $0.named })
        }
    }
}
