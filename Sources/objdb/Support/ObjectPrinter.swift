import Foundation
@_spi(Inspection) import ObjDB

/// Prints objects of one class in a chosen format: the one place output is formatted.
///
/// - `table`: aligned columns (`$key`, then the stored properties), cells cut at 40
///   characters unless `truncate` is off; links as `Class(primary key)` or `Class#key`.
/// - `json`: an array of objects (``ObjectWriter``); `jsonl`: one object per line.
/// - `csv`: a header of property names, then one line per object; values as their text
///   (``ValueConversion``), an empty field for nil and `""` for an empty text; links as their
///   primary key (or key), embedded objects and collections as JSON text; mixed lists,
///   dictionaries and links as their JSON (``MixedWriting``).
struct ObjectPrinter {
    let format: OutputFormat
    let writer: ObjectWriter
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
                try writer.write(object, into: &text)
                out.line(text.bytes)
                first = false
                count += 1
            }
            out.line("]")
        case .jsonl:
            for object in objects {
                var text = JSONText()
                try writer.write(object, into: &text)
                out.line(text.bytes)
                count += 1
            }
        case .csv:
            let keyed = !schema.isEmbedded
            out.line(((keyed ? ["$key"] : []) + columns.map(\.name)).map(Self.csvField).joined(separator: ","))
            for object in objects {
                var fields = keyed ? [Self.csvField("\(object.objectKey ?? 0)")] : []
                for property in columns {
                    do {
                        fields.append(try csvCell(object[property.name]).map(Self.csvField) ?? "")
                    } catch let failure as DateText.Unwritable {
                        throw CommandFailure("\(schema.className) key \(object.objectKey ?? 0): \(property.name): \(failure.reason)")
                    }
                }
                out.line(fields.joined(separator: ","))
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
            if let primaryKey = writer.db.schema[object.className]?.primaryKeyProperty {
                return "\(object.className)(\(cell(object[primaryKey.name])))"
            }
            return "\(object.className)#\(object.objectKey ?? 0)"
        case let array as [Any?]: return "[" + array.map(cell).joined(separator: ", ") + "]"
        case let map as [String: Any?]:
            return "{" + map.keys.sorted().map { "\($0): \(cell(map[$0] ?? nil))" }.joined(separator: ", ") + "}"
        case let data as Data: return "<\(data.count) bytes>"
        case let some?:
            // try?: a table is for reading; a date no text names shows as Foundation prints it.
            return (try? ValueConversion.text(some)) ?? "\(some)"
        }
    }

    /// A CSV cell, `nil` for nil: values as their text, links as their primary key or key,
    /// embedded objects and collections as JSON text.
    func csvCell(_ value: Any?) throws -> String? {
        switch value {
        case nil: return nil
        case let object as DynamicObject:
            guard let schema = writer.db.schema[object.className] else { return "\(object.objectKey ?? 0)" }
            if schema.isEmbedded { return try writer.text(object) }
            if let primaryKey = schema.primaryKeyProperty { return try csvCell(object[primaryKey.name]) }
            return "\(object.objectKey ?? 0)"
        case let array as [Any?]: return try writer.text(array)
        case let map as [String: Any?]: return try writer.text(map)
        case let mixed as MixedValue: return try MixedWriting.csvText(mixed)
        case let some?: return try ValueConversion.text(some)
        }
    }

    /// `text` quoted for CSV when it holds a comma, a quote or a line break, or is empty (an
    /// empty field is nil).
    static func csvField(_ text: String) -> String {
        guard text.isEmpty || text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` cut to 40 characters, ending in `…` when cut; line breaks shown as `⏎`.
    static func truncated(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: "⏎")
        return flat.count > 40 ? String(flat.prefix(39)) + "…" : flat
    }
}
