import Foundation

/// The timings of a `--queries` run and the Markdown tables made from them.
struct QuerySamples {
    /// Objects of the lookup, `IN` and sort rows.
    let n: Int
    /// Objects of the count rows.
    let countN: Int
    /// The cases that ran, in run order.
    let cases: [QueryCase]
    /// Nanoseconds of each timed run, by case and system name.
    var times: [QueryCase: [String: [UInt64]]] = [:]

    /// The three system names in column order.
    private static let names = [ObjDBSystem.name, LMDBSystem.name, GRDBSystem.name]
    /// The target: ObjDB at least this many times faster than GRDB on every row.
    static let targetFactor = 5.0

    /// The median nanoseconds of `system` in `queryCase` scaled to `scale` operations (for
    /// the unindexed lookups: to ``QueryWorkload/lookups``), or `nil` if it did not run.
    private func medianNS(_ queryCase: QueryCase, _ system: String, perOperation: Bool = false) -> Double? {
        guard let values = times[queryCase]?[system], !values.isEmpty else { return nil }
        let operations = Double(queryCase.scenario.operations)
        if perOperation { return median(values) / operations }
        return queryCase.scenario == .scanLookup ? median(values) / operations * Double(QueryWorkload.lookups) : median(values)
    }

    /// A row of three values (converted by `format`) and the ObjDB/LMDB and GRDB/ObjDB ratios.
    private func row(_ title: String, _ queryCase: QueryCase, perOperation: Bool = false, _ format: (Double?) -> String) -> [String] {
        let values = Self.names.map { medianNS(queryCase, $0, perOperation: perOperation) }
        return [title] + values.map(format) + [Report.ratio(values[0], values[1]), Report.ratio(values[2], values[0])]
    }

    /// Microseconds with two decimals, or `—`.
    private static func microseconds(_ ns: Double?) -> String {
        guard let ns else { return "—" }
        return fixed(ns / 1e3, 2)
    }

    /// The cases of `scenario`, in size order.
    private func cases(_ scenario: QueryScenario) -> [QueryCase] {
        cases.filter { $0.scenario == scenario }.sorted { $0.size < $1.size }
    }

    /// The main table (median ms; the unindexed lookups scaled), the per-lookup table with the
    /// spread across sizes, and the targets.
    func render() -> String {
        var main = MarkdownTable(headers: ["Scenario", "ObjDB ms", "LMDB ms", "GRDB ms", "ObjDB/LMDB", "GRDB/ObjDB"])
        let mainCases = cases.filter { $0.scenario != .indexedLookup || $0.size == n }
        for queryCase in QueryScenario.allCases.flatMap({ scenario in mainCases.filter { $0.scenario == scenario } }) {
            main.append(row(queryCase.scenario.title(n: queryCase.size), queryCase, Report.milliseconds))
        }
        var output = main.render()
        let lookups = cases(.indexedLookup) + cases(.indexedLookupStatement) + cases(.scanLookup)
        if !lookups.isEmpty {
            var perLookup = MarkdownTable(
                headers: ["Lookup", "ObjDB µs/lookup", "LMDB µs/lookup", "GRDB µs/lookup", "ObjDB/LMDB", "GRDB/ObjDB"])
            let indexed = cases(.indexedLookup)
            for queryCase in indexed {
                perLookup.append(row("indexed, \(formatCount(queryCase.size)) objects", queryCase, perOperation: true, Self.microseconds))
            }
            if indexed.count > 1 {
                perLookup.append(["indexed, max/min"] + Self.names.map { spread($0).map { fixed($0, 2) + "×" } ?? "—" } + ["", ""])
            }
            for queryCase in cases(.indexedLookupStatement) {
                perLookup.append(row(
                    "indexed, \(formatCount(queryCase.size)) objects (GRDB: cached statement)", queryCase, perOperation: true,
                    Self.microseconds))
            }
            for queryCase in cases(.scanLookup) {
                perLookup.append(row("unindexed, \(formatCount(queryCase.size)) objects", queryCase, perOperation: true, Self.microseconds))
            }
            output += "\n\n" + perLookup.render()
        }
        return output + "\n\n" + targets()
    }

    /// The largest over the smallest per-lookup time of `system` across the indexed sizes.
    private func spread(_ system: String) -> Double? {
        let indexed = cases(.indexedLookup)
        let values = indexed.compactMap { medianNS($0, system) }
        guard values.count == indexed.count, values.count > 1, let low = values.min(), let high = values.max(), low > 0 else { return nil }
        return high / low
    }

    /// The targets: ObjDB ≥ 5× faster than GRDB per row; indexed lookups O(log n), judged by the
    /// spread (max/min) of the per-lookup time across the sizes against the growth of log n.
    private func targets() -> String {
        var table = MarkdownTable(headers: ["Target", "Row", "Measured", "Result"])
        for queryCase in cases where queryCase.scenario != .indexedLookup || queryCase.size == n {
            guard let objdb = medianNS(queryCase, ObjDBSystem.name), let grdb = medianNS(queryCase, GRDBSystem.name) else { continue }
            let value = grdb / objdb
            table.append([
                "ObjDB ≥ \(Int(Self.targetFactor))× faster than GRDB", "\(queryCase.scenario.rawValue) \(formatCount(queryCase.size))",
                fixed(value, 2) + "×", value >= Self.targetFactor ? "met" : "MISSED",
            ])
        }
        let indexed = cases(.indexedLookup)
        if let small = indexed.first, let large = indexed.last, small.size < large.size, let value = spread(ObjDBSystem.name) {
            // log n grows by this factor; a linear lookup would grow by large / small.
            let logGrowth = log(Double(large.size)) / log(Double(small.size))
            let lmdb = spread(LMDBSystem.name).map { ", LMDB \(fixed($0, 2))×" } ?? ""
            table.append([
                "indexed lookup O(log n): max/min µs/lookup ≤ 2 × log n growth (2 × \(fixed(logGrowth, 2)) = \(fixed(2 * logGrowth, 2))×), far from linear (\(formatCount(large.size / small.size))×)",
                "lookup-index \(formatCount(small.size))–\(formatCount(large.size))",
                fixed(value, 2) + "×" + lmdb, value <= 2 * logGrowth ? "met" : "MISSED",
            ])
        }
        return table.render()
    }
}
