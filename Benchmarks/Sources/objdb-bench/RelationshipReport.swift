/// The timings of a `--relationships` run and the Markdown tables made from them.
struct RelationshipSamples {
    /// Pets appended to the list.
    let listN: Int
    /// Owner counts of the linking-objects scenario, in run order.
    let sizes: [Int]
    /// Nanoseconds of each append run, by system name.
    var append: [String: [UInt64]] = [:]
    /// Nanoseconds of each run of ``LinkWorkload/lookups`` lookups, by owner count and system name.
    var lookups: [Int: [String: [UInt64]]] = [:]

    /// The three system names in column order.
    private static let names = [ObjDBSystem.name, LMDBSystem.name, GRDBSystem.name]

    /// The median of `samples[name]` in nanoseconds, or `nil` if that system did not run.
    private static func medianNS(_ samples: [String: [UInt64]]?, _ name: String) -> Double? {
        guard let values = samples?[name], !values.isEmpty else { return nil }
        return median(values)
    }

    /// A row of three medians (converted by `format`) and the ObjDB/LMDB and GRDB/ObjDB ratios.
    private static func row(_ title: String, _ samples: [String: [UInt64]]?, _ format: (Double?) -> String) -> [String] {
        let values = names.map { medianNS(samples, $0) }
        return [title] + values.map(format) + [Report.ratio(values[0], values[1]), Report.ratio(values[2], values[0])]
    }

    /// Microseconds per lookup from the median nanoseconds of a run, or `—`.
    private static func microsecondsPerLookup(_ ns: Double?) -> String {
        guard let ns else { return "—" }
        return fixed(ns / 1e3 / Double(LinkWorkload.lookups), 2)
    }

    /// The main-style table (median ms of each run) and the per-lookup table with the spread
    /// across owner counts.
    func render() -> String {
        let lookupCount = formatCount(LinkWorkload.lookups)
        var main = MarkdownTable(headers: ["Scenario", "ObjDB ms", "LMDB ms", "GRDB ms", "ObjDB/LMDB", "GRDB/ObjDB"])
        main.append(Self.row(
            "append \(formatCount(listN)) elements one by one to one List, 1 write txn (+ backlinks)", append,
            Report.milliseconds))
        for size in sizes {
            main.append(Self.row(
                "LinkingObjects, \(lookupCount) lookups of 10 owners among \(formatCount(size)) owners",
                lookups[size], Report.milliseconds))
        }
        var perLookup = MarkdownTable(
            headers: ["Owners", "ObjDB µs/lookup", "LMDB µs/lookup", "GRDB µs/lookup", "ObjDB/LMDB", "GRDB/ObjDB"])
        for size in sizes {
            perLookup.append(Self.row(formatCount(size), lookups[size], Self.microsecondsPerLookup))
        }
        let spreads = Self.names.map { name -> String in
            let values = sizes.compactMap { Self.medianNS(lookups[$0], name) }
            guard values.count == sizes.count, let low = values.min(), let high = values.max(), low > 0 else { return "—" }
            return fixed(high / low, 2) + "×"
        }
        perLookup.append(["max/min"] + spreads + ["", ""])
        return main.render() + "\n\n" + perLookup.render()
    }
}
