/// One field of a CSV row: its text, and whether it was quoted — an empty field that was not
/// (nothing between the commas) is nil, a quoted one (`""`) an empty text.
struct CSVField {
    /// The field's text, quotes removed.
    let text: String
    /// Whether it was quoted.
    let quoted: Bool

    /// Whether the field is nothing between the commas: nil for an optional property.
    var isEmptyUnquoted: Bool { !quoted && text.isEmpty }
}

/// Reads CSV (RFC 4180: quoted fields with doubled quotes, line breaks inside quotes) into rows
/// of fields, each with the line it starts on.
enum CSVReader {
    /// The rows of `text`.
    static func rows(_ text: String) throws(CSVSyntaxError) -> [(line: Int, fields: [CSVField])] {
        var rows: [(Int, [CSVField])] = []
        var fields: [CSVField] = []
        var field = ""
        var quoted = false, inQuotes = false
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
        func endField() {
            fields.append(CSVField(text: field, quoted: quoted))
            field = ""
            quoted = false
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
            case "\"" where field.isEmpty && !quoted:
                inQuotes = true
                quoted = true
            case ",": endField()
            case "\n", "\r\n", "\r":
                endField()
                rows.append((rowLine, fields))
                fields = []
                line += 1
                rowLine = line
            default: field.append(character)
            }
        }
        if inQuotes { throw CSVSyntaxError(line: rowLine, reason: "a quoted field is not closed") }
        if !field.isEmpty || quoted || !fields.isEmpty {
            endField()
            rows.append((rowLine, fields))
        }
        return rows
    }
}

/// Why a text is not CSV, and the line of the row where it goes wrong.
struct CSVSyntaxError: Error {
    /// The line the row starts on.
    let line: Int
    /// What is wrong.
    let reason: String
}
