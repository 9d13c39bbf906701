import Foundation
import Testing
import ObjDBReliability

extension ReliabilityAttacks {
    /// Processes writing one file at once: exact counts, no lost update, a healthy file.
    @Suite struct MultiProcessWriterTests {
        let scratch = ScratchDirectory()

        @Test func threeWritersLeaveExactCounts() throws {
            let options = MultiProcessWriters.Options(
                processes: 3, commits: 60, batchEvery: 20, batchSize: 100, worker: try ReliabilityExecutable.require(),
                directory: scratch.url)
            let result = try MultiProcessWriters.run(options)
            #expect(result.passed, "\(result.table)")
            #expect(result.commits == 180)
            #expect(result.people == 181 && result.expectedPeople == 181)
            #expect(result.owners == 3 * 3 * 100 && result.pets == 2 * 3 * 3 * 100)
            #expect(result.counter == 180)
            #expect(result.unhealthy == 0)
        }
    }
}
