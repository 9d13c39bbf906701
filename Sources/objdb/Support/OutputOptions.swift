import ArgumentParser

/// How a read command prints what it found.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    /// Aligned columns for a terminal.
    case table
    /// One JSON document.
    case json
    /// One JSON object per line.
    case jsonl
    /// Comma-separated values with a header line (RFC 4180 quoting).
    case csv
}

/// The output options of every read command.
struct OutputOptions: ParsableArguments {
    @Option(help: "Output format: table, json, jsonl or csv.")
    var format: OutputFormat = .table

    @Flag(help: "Shorthand for --format json.")
    var json = false

    @Flag(help: "Print wide table cells whole instead of cutting them at 40 characters.")
    var noTruncate = false

    /// The format asked for (`--json` wins).
    var resolved: OutputFormat { json ? .json : format }
}
