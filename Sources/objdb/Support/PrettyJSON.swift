/// JSON laid out over lines for a person to read (`objdb store`): objects and arrays indented by
/// two spaces a level, `[]` and `{}` when empty. Values are written by ``JSONText``; parsed
/// JSON keeps its numbers' text, and JSON written already (an object as ``ObjectWriter`` writes
/// it) stays on one line.
indirect enum PrettyJSON {
    /// An object, its keys in the order given.
    case object([(key: String, value: PrettyJSON)])
    /// An array.
    case array([PrettyJSON])
    /// A value parsed from JSON text, written back as it was (object keys sorted).
    case parsed(JSONValue)
    /// JSON text written already, kept on one line.
    case text([UInt8])

    /// A string value.
    static func string(_ text: String) -> PrettyJSON { .parsed(.string(text)) }
    /// An integer value.
    static func integer(_ value: Int) -> PrettyJSON { .parsed(.number(String(value))) }

    /// The whole value, laid out.
    var text: String {
        var json = JSONText()
        write(into: &json, indent: 0)
        return json.text
    }

    private func write(into json: inout JSONText, indent: Int) {
        switch self {
        case .object(let members):
            guard !members.isEmpty else { return json.raw("{}") }
            json.raw("{\n")
            for (index, member) in members.enumerated() {
                json.raw(String(repeating: " ", count: indent + 2))
                json.string(member.key)
                json.raw(": ")
                member.value.write(into: &json, indent: indent + 2)
                json.raw(index == members.count - 1 ? "\n" : ",\n")
            }
            json.raw(String(repeating: " ", count: indent) + "}")
        case .array(let elements):
            guard !elements.isEmpty else { return json.raw("[]") }
            json.raw("[\n")
            for (index, element) in elements.enumerated() {
                json.raw(String(repeating: " ", count: indent + 2))
                element.write(into: &json, indent: indent + 2)
                json.raw(index == elements.count - 1 ? "\n" : ",\n")
            }
            json.raw(String(repeating: " ", count: indent) + "]")
        case .text(let bytes):
            json.bytes(bytes)
        case .parsed(let value):
            switch value {
            case .null: json.raw("null")
            case .bool(let bool): json.raw(bool ? "true" : "false")
            case .number(let text): json.raw(text)
            case .string(let text): json.string(text)
            case .array(let elements): PrettyJSON.array(elements.map(PrettyJSON.parsed)).write(into: &json, indent: indent)
            case .object(let members):
                PrettyJSON.object(members.keys.sorted().compactMap { key in members[key].map { (key, .parsed($0)) } })
                    .write(into: &json, indent: indent)
            }
        }
    }
}
