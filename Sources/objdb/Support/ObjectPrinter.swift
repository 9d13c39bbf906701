import Foundation
@_spi(Inspection) import ObjDB

/// Prints objects of one class in a chosen format: the one place output is formatted.
///
/// - `table`: aligned columns (`$key`, then the stored properties), cells cut at 40
///   characters unless `truncate` is off; links as `Class(primary key)` or `Class#key`.
/// - `json`: an array of objects (``ObjectJSON``); `jsonl`: one object per line.
/// - `csv`: a header of property names, then one line per object; links as their primary key
///   (or key), collections as JSON text.
struct ObjectPrinter {
    let format: OutputFormat
    let json: ObjectJSON
    var truncate = true
    let out = OutputWriter()

    /// Prints `objects` of class `schema`, streaming for every format but `table`; the count.
    @discardableResult
    func print<S: Sequence>(_ objects: S, schema: ObjectSchema) throws -> Int where S.Element == DynamicObject {
        let columns = schema.properties.filter { !$0.isComputed }
        var count = 0
        switch format {
        case .json:
            out.line("[")
            var first = true
            for object in objects {
                var text = JSONText()
                text.raw(first ? "  " : ", ")
                json.write(object, into: &text)
                out.line(text.bytes)
                first = false
                count += 1
            }
            out.line("]")
        case .jsonl:
            for object in objects {
                var text = JSONText()
                json.write(object, into: &text)
                out.line(text.bytes)
                count += 1
            }
        case .csv:
            let keyed = !schema.isEmbedded
            out.line(((keyed ? ["$key"] : []) + columns.map(\.name)).map(Self.csvField).joined(separator: ","))
            for object in objects {
                var fields = keyed ? ["\(object.objectKey ?? 0)"] : []
                for property in columns { fields.append(try csvCell(object[property.name])) }
                out.line(fields.map(Self.csvField).joined(separator: ","))
                count += 1
            }
        case .table:
            var rows: [[String]] = []
            for object in objects {
                rows.append(["\(object.objectKey ?? 0)"] + columns.map { cell(object[$0.name]) })
            }
            count = rows.count
            printTable(header: ["$key"] + columns.map(\.name), rows: rows)
        }
        out.flush()
        return count
    }

    /// Prints aligned columns.
    func printTable(header: [String], rows: [[String]]) {
        let cut = rows.map { $0.map { truncate ? Self.truncated($0) : $0 } }
        var widths = header.map(\.count)
        for row in cut { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in cell.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        out.line(line(header))
        out.line(line(widths.map { String(repeating: "-", count: $0) }))
        for row in cut { out.line(line(row)) }
        out.flush()
    }

    /// A table cell.
    func cell(_ value: Any?) -> String {
        switch value {
        case nil: return "nil"
        case let object as DynamicObject:
            if let primaryKey = json.db.schema[object.className]?.primaryKeyProperty {
                return "\(object.className)(\(cell(object[primaryKey.name])))"
            }
            return "\(object.className)#\(object.objectKey ?? 0)"
        case let array as [Any?]: return "[" + array.map(cell).joined(separator: ", ") + "]"
        case let map as [String: Any?]:
            return "{" + map.keys.sorted().map { "\($0): \(cell(map[$0] ?? nil))" }.joined(separator: ", ") + "}"
        case let data as Data: return "<\(data.count) bytes>"
        case let some?:
            let scalar = ObjectJSON.scalar(some)
            return scalar as? String ?? "\(scalar)"
        }
    }

    /// A CSV cell: scalars as text, links as their primary key or key, collections as JSON.
    func csvCell(_ value: Any?) throws -> String {
        switch value {
        case nil: return ""
        case let object as DynamicObject:
            if let primaryKey = json.db.schema[object.className]?.primaryKeyProperty {
                return try csvCell(object[primaryKey.name])
            }
            return "\(object.objectKey ?? 0)"
        case let array as [Any?]: return try ObjectJSON.text(json.value(array, depth: 0))
        case let map as [String: Any?]: return try ObjectJSON.text(json.value(map, depth: 0))
        case let some?:
            let scalar = ObjectJSON.scalar(some)
            return scalar as? String ?? "\(scalar)"
        }
    }

    /// `text` quoted for CSV when it holds a comma, a quote or a line break.
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` cut to 40 characters, ending in `…` when cut; line breaks shown as `⏎`.
    static func truncated(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: "⏎")
        return flat.count > 40 ? String(flat.prefix(39)) + "…" : flat
    }
}
