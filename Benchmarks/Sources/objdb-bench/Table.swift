/// A Markdown table with padded columns; numeric columns are right-aligned.
struct MarkdownTable {
    /// The header cells.
    let headers: [String]
    /// The body rows.
    private(set) var rows: [[String]] = []

    /// A table with `headers`.
    init(headers: [String]) { self.headers = headers }

    /// Whether every body cell of `column` is a number (or `—`), so it is right-aligned.
    private func isNumeric(_ column: Int) -> Bool {
        !rows.isEmpty && rows.allSatisfy { row in row[column].first.map { $0.isNumber || $0 == "—" } ?? true }
    }

    /// Appends a row (padded or cut to the header count).
    mutating func append(_ row: [String]) {
        rows.append(Array((row + Array(repeating: "", count: headers.count)).prefix(headers.count)))
    }

    /// The table as Markdown text.
    func render() -> String {
        let rightAligned = headers.indices.map(isNumeric)
        let widths = headers.indices.map { column in
            ([headers[column]] + rows.map { $0[column] }).map(\.count).max() ?? 3
        }
        func line(_ cells: [String]) -> String {
            let padded = cells.indices.map { column -> String in
                let fill = String(repeating: " ", count: max(0, widths[column] - cells[column].count))
                return rightAligned[column] ? fill + cells[column] : cells[column] + fill
            }
            return "| " + padded.joined(separator: " | ") + " |"
        }
        let rule = headers.indices.map { column -> String in
            let dashes = String(repeating: "-", count: max(3, widths[column]))
            return rightAligned[column] ? "-" + dashes + ":" : ":" + dashes + "-"
        }
        return ([line(headers), "|" + rule.joined(separator: "|") + "|"] + rows.map(line))
            .joined(separator: "\n")
    }
}
