/// Reads CSV (RFC 4180: quoted fields with doubled quotes, line breaks inside quotes) into rows
/// of fields, each with the line it starts on.
enum CSVReader {
    static func rows(_ text: String) throws -> [(line: Int, fields: [String])] {
        var rows: [(Int, [String])] = []
        var fields: [String] = []
        var field = ""
        var inQuotes = false
        var line = 1, rowLine = 1
        var iterator = text.makeIterator()
        var pending: Character?
        func next() -> Character? {
            if let character = pending {
                pending = nil
                return character
            }
            return iterator.next()
        }
        while let character = next() {
            if inQuotes {
                if character == "\"" {
                    if let following = next() {
                        if following == "\"" { field.append("\"") } else {
                            inQuotes = false
                            pending = following
                        }
                    } else {
                        inQuotes = false
                    }
                } else {
                    if character == "\n" || character == "\r\n" { line += 1 }
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"" where field.isEmpty: inQuotes = true
            case ",":
                fields.append(field)
                field = ""
            case "\n", "\r\n", "\r":
                fields.append(field)
                rows.append((rowLine, fields))
                fields = []
                field = ""
                line += 1
                rowLine = line
            default: field.append(character)
            }
        }
        if inQuotes { throw CommandFailure("line \(rowLine): a quoted field is not closed") }
        if !field.isEmpty || !fields.isEmpty {
            fields.append(field)
            rows.append((rowLine, fields))
        }
        return rows
    }
}
