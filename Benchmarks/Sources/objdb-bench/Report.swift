/// Turns the samples of a run into the Markdown tables it prints.
enum Report {
    /// The median of `system`'s samples for `scenario`, in nanoseconds; `nil` if it did not run.
    static func medianNS(_ samples: [Scenario: [String: [UInt64]]], _ scenario: Scenario, _ system: String) -> Double? {
        guard let values = samples[scenario]?[system], !values.isEmpty else { return nil }
        return median(values)
    }

    /// `a / b` as `1.23×`, or `—` when either is missing.
    static func ratio(_ a: Double?, _ b: Double?) -> String {
        guard let a, let b, b > 0 else { return "—" }
        return fixed(a / b, 2) + "×"
    }

    /// Milliseconds with two decimals, or `—`.
    static func milliseconds(_ ns: Double?) -> String {
        guard let ns else { return "—" }
        return fixed(ns / 1e6, ns < 1e7 ? 3 : 2)
    }

    /// The main table: median milliseconds per system and the two ratios.
    static func mainTable(_ samples: [Scenario: [String: [UInt64]]], _ scenarios: [Scenario], _ work: Workload) -> String {
        var table = MarkdownTable(headers: ["Scenario", "ObjDB ms", "LMDB ms", "GRDB ms", "ObjDB/LMDB", "GRDB/ObjDB"])
        for scenario in scenarios {
            let objdb = medianNS(samples, scenario, ObjDBSystem.name)
            let lmdb = medianNS(samples, scenario, LMDBSystem.name)
            let grdb = medianNS(samples, scenario, GRDBSystem.name)
            table.append([
                scenario.title(n: work.n, singles: work.singles.count), milliseconds(objdb), milliseconds(lmdb),
                milliseconds(grdb), ratio(objdb, lmdb), ratio(grdb, objdb),
            ])
        }
        return table.render()
    }

    /// The project's targets that the default run can decide, met or missed; `nil` if none ran.
    static func targetTable(_ samples: [Scenario: [String: [UInt64]]]) -> String? {
        var table = MarkdownTable(headers: ["Target", "Scenario", "Measured", "Result"])
        for scenario in [Scenario.insert, .readAll, .lookup, .update, .delete] {
            guard let objdb = medianNS(samples, scenario, ObjDBSystem.name),
                let lmdb = medianNS(samples, scenario, LMDBSystem.name)
            else { continue }
            let value = objdb / lmdb
            table.append(["ObjDB ≤ 3× raw LMDB", scenario.rawValue, fixed(value, 2) + "×", value <= 3 ? "met" : "MISSED"])
        }
        for scenario in [Scenario.insert, .readAll, .lookup, .lookupStatement, .update, .updateSQL] {
            guard let objdb = medianNS(samples, scenario, ObjDBSystem.name),
                let grdb = medianNS(samples, scenario, GRDBSystem.name)
            else { continue }
            let value = grdb / objdb
            table.append(["ObjDB ≥ 10× faster than GRDB", scenario.rawValue, fixed(value, 2) + "×", value >= 10 ? "met" : "MISSED"])
        }
        return table.rows.isEmpty ? nil : table.render()
    }
}
