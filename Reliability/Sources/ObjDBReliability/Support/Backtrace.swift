/// Reads Swift's crash backtraces (the backtracer's output on standard error).
public enum Backtrace {
    /// Where a crash happened: the innermost frame in an ObjDB source file
    /// (`QueryValue.description.getter (PredicateTree.swift:156:30)`), else the innermost frame
    /// (`<unknown> in liblmdb.so.0.0.0`), else `unknown`.
    public static func site(_ backtrace: String) -> String {
        let frames = backtrace.split(separator: "\n").filter { line in
            line.split(separator: " ", omittingEmptySubsequences: true).contains { $0.hasPrefix("0x") } && line.contains(" in ")
        }
        guard let line = frames.first(where: { $0.contains("/Sources/ObjDB/") }) ?? frames.first else { return "unknown" }
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        // "<n> [ra] 0x… Function + 123 in module at /path/File.swift:12:3"
        guard let address = words.firstIndex(where: { $0.hasPrefix("0x") }) else { return String(line.prefix(120)) }
        let function = words[(address + 1)...].prefix { $0 != "+" && $0 != "in" }.joined(separator: " ")
        if let at = words.lastIndex(of: "at"), at + 1 < words.count, let file = words[at + 1].split(separator: "/").last {
            return "\(function.prefix(100)) (\(file))"
        }
        let module = words.last.map(String.init) ?? "?"
        return "\(function.prefix(100)) in \(module)"
    }
}
