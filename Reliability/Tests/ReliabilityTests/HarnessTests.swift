import Foundation
import Testing
@testable import ObjDBReliability

#if canImport(Glibc)
import Glibc
#endif

/// The harness's own parts: child processes, output fields, digests, figures.
struct HarnessTests {
    let scratch = ScratchDirectory()
    let shell = URL(fileURLWithPath: "/bin/sh")

    @Test func childProcessesReportExitStatusSignalsAndOutput() throws {
        let exited = try ChildProcess.run(shell, ["-c", "echo out; echo err >&2; exit 3"], directory: scratch.url, timeout: 30)
        #expect(exited.termination == .exited(3))
        #expect(exited.output == "out\n" && exited.error == "err\n")
        let crashed = try ChildProcess.run(shell, ["-c", "kill -SEGV $$"], directory: scratch.url, timeout: 30)
        #expect(crashed.termination == .signaled(SIGSEGV))
        #expect(crashed.termination.crashed)
        let hung = try ChildProcess.run(shell, ["-c", "sleep 30"], directory: scratch.url, timeout: 0.2)
        #expect(hung.termination == .timedOut)
        let environment = try ChildProcess.run(shell, ["-c", "echo $OBJDB_X"], directory: scratch.url, timeout: 30, environment: ["OBJDB_X": "y"])
        #expect(environment.output == "y\n")
    }

    @Test func aKilledChildKeepsWhatItWrote() throws {
        let child = try ChildProcess(shell, ["-c", "echo first; sleep 30"], directory: scratch.url)
        let deadline = Date().addingTimeInterval(10)
        while !child.output().contains("first"), Date() < deadline { usleep(1_000) }
        child.kill()
        #expect(child.wait(timeout: 10) == .signaled(SIGKILL))
        #expect(child.output() == "first\n")
        #expect(!(ChildTermination.signaled(SIGKILL).crashed))
    }

    @Test func outputFieldsParse() throws {
        let fields = try #require(OutputFields("check last=12 items=40 first=a_b digest=ab/12"))
        #expect(fields.tag == "check")
        #expect(fields.int("last") == 12 && fields["digest"] == "ab/12" && fields["first"] == "a_b")
        #expect(OutputFields("") == nil)
        #expect(fieldText("a b\nc") == "a_b|c")
    }

    @Test func digestsAreFNV1a() {
        var digest = Digest()
        #expect(digest.value == 0xCBF2_9CE4_8422_2325)
        for byte in Array("a".utf8) { digest.add(byte) }
        #expect(digest.value == 0xAF63_DC4C_8601_EC8C)   // FNV-1a 64 of "a"
        var other = Digest()
        other.line("a")
        #expect(other.count == 2 && other != digest)
    }

    @Test func seededRandomReplays() {
        var a = SeededRandom(seed: 3, index: 7)
        var b = SeededRandom(seed: 3, index: 7)
        var c = SeededRandom(seed: 3, index: 8)
        let first = (0..<5).map { _ in a.next() }
        #expect(first == (0..<5).map { _ in b.next() })
        #expect(first != (0..<5).map { _ in c.next() })
        #expect((0..<1_000).allSatisfy { _ in (3...5).contains(a.inRange(3...5)) })
    }

    @Test func figureTablesListViolations() {
        var table = FigureTable(title: "t")
        table.add("files", 3)
        #expect(table.description.contains("result: OK"))
        table.violations = ["lost"]
        #expect(table.description.contains("VIOLATION: lost") && table.description.contains("1 VIOLATION(S)"))
    }
}
