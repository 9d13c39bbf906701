import Foundation

/// JSON text of the reports `info`, `classes`, `schema`, `stat` and `check` print: dictionaries
/// of names and counts, written by Foundation with keys sorted. Objects are not reports:
/// ``ObjectWriter`` writes them.
enum ReportJSON {
    /// `value` (dictionaries, arrays, strings, numbers, booleans) as JSON text; `pretty` indents it.
    static func text(_ value: Any, pretty: Bool = false) throws -> String {
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
        if pretty { options.insert(.prettyPrinted) }
        return String(decoding: try JSONSerialization.data(withJSONObject: value, options: options), as: UTF8.self)
    }
}
