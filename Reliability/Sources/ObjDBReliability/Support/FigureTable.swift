import Foundation

/// The figures of one attack, printed as a table, and the violations it found.
///
/// ```text
/// crash cycles (seed 1)
///   kill cycles                        20
///   acknowledged commits lost           0
///   VIOLATION: …
/// ```
public struct FigureTable: Sendable, CustomStringConvertible {
    /// The attack and its parameters.
    public var title: String
    /// The figures, in order: a name and its value.
    public var rows: [(name: String, value: String)] = []
    /// Every violation of a guarantee; empty when the attack found nothing.
    public var violations: [String] = []
    /// Further remarks (expected failures, samples of outcomes).
    public var notes: [String] = []

    /// A table titled `title`.
    public init(title: String) { self.title = title }

    /// Adds a figure.
    public mutating func add(_ name: String, _ value: Int) { rows.append((name, String(value))) }

    /// Adds a figure given as text.
    public mutating func add(_ name: String, _ value: String) { rows.append((name, value)) }

    /// The table, one figure per line, then violations and notes.
    public var description: String {
        let width = max(rows.map(\.name.count).max() ?? 0, 10) + 2
        var lines = [title]
        for (name, value) in rows {
            lines.append("  " + name + String(repeating: " ", count: width - name.count) + value)
        }
        lines += notes.map { "  note: \($0)" }
        lines += violations.prefix(50).map { "  VIOLATION: \($0)" }
        if violations.count > 50 { lines.append("  … and \(violations.count - 50) more violations") }
        lines.append(violations.isEmpty ? "  result: OK" : "  result: \(violations.count) VIOLATION(S)")
        return lines.joined(separator: "\n")
    }
}

/// What every attack returns: its figures and whether it found a violation.
public protocol AttackResult: Sendable {
    /// The figures as a printable table.
    var table: FigureTable { get }
}

extension AttackResult {
    /// The violations the attack found.
    public var violations: [String] { table.violations }
    /// Whether the attack found no violation.
    public var passed: Bool { table.violations.isEmpty }
}

/// Seconds since an instant, for wall-clock figures.
public struct Stopwatch: Sendable {
    private let start = ContinuousClock.now

    /// A stopwatch started now.
    public init() {}

    /// Seconds elapsed, as `12.3 s`.
    public var elapsed: String {
        let duration = ContinuousClock.now - start
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.1f s", seconds)
    }
}
