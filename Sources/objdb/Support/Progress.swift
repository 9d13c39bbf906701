import Foundation

/// A progress bar on standard error for long commands, drawn only when standard error is a
/// terminal, and at most ten times a second.
final class Progress {
    private let label: String
    private let total: Int
    private var done = 0
    private let enabled: Bool
    private var lastDraw = Date.distantPast

    init(label: String, total: Int) {
        self.label = label
        self.total = max(total, 1)
        self.enabled = Console.stderrIsTerminal && total > 10_000
    }

    /// Counts one more item done.
    func advance(by count: Int = 1) {
        done += count
        guard enabled, done % 1_024 == 0 else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        draw()
    }

    private func draw() {
        let fraction = min(Double(done) / Double(total), 1)
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) \(bar) \(Int(fraction * 100))% (\(done)/\(total))".utf8))
    }

    /// Clears the bar.
    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
