import ObjDB

/// Literal spellings the fuzzer draws from: valid ones of every type, edge values, and spellings
/// that are almost right.
enum FuzzLiterals {
    static let ints = [
        "0", "1", "-1", "7", "42", "-17", "100", "0x1F", "-0x10", "0XfF", "007", "9223372036854775807", "-9223372036854775808",
        "0x7FFFFFFFFFFFFFFF", "127", "-128", "32767", "2147483648", "3", "50",
    ]
    static let doubles = [
        "0.5", "-1e3", "1e308", "-0.0", "0.0", "2.5e-3", "1.7976931348623157e308", "4.9e-324", "17.5", "-273.15", "6.02214076e23",
    ]
    static let strings = [
        "'Ann'", "\"Bob\"", "''", "\"\"", "'Ann 3'", "'Rex'", "'Éclair'", "'e\u{301}'", "'\u{E9}'", "'名前'", "'🙂'",
        "'Zoë 12'", "'a\\'b'", "'\\\\'", "'\\0'", "'\\n\\t\\r'", "'\\u00e9'", "'*'", "'?'",
        "'A*'", "'*n*'", "'?o?'", "'%@'", "'$0'", "'tag3'", "'nick 1'", "'Oslo'", "'s1s1'", "'regular'", "'vip'",
        "'\u{202E}rtl'", "'\u{0}'", "'\u{FEFF}'", "'\\uD83D\\uDE42'",
        "'" + String(repeating: "x", count: 600) + "'", "'" + String(repeating: "*?", count: 200) + "'",
        "'" + String(repeating: "é", count: 300) + "'",
    ]
    static let bools = ["true", "false", "YES", "NO", "TRUE", "yes", "no", "True"]
    static let nils = ["nil", "NULL", "null", "Nil"]
    static let dates = [
        "T2024-01-02@10:00:00", "2024-01-02@10:00:00", "2024-01-02@10:00:00:123456789", "T1712345678:0", "T0:0", "T-1:0",
        "T-62135596800:0", "1970-01-01@00:00:00", "T1:999999999", "2024-02-29@23:59:59", "T253402300799:0", "T-9999999999:0",
    ]
    static let uuids = ["uuid(3F2504E0-4F89-11D3-9A0C-0305E82C3301)", "uuid(00000000-0000-0000-0000-000000000000)"]
    static let objectIds = ["oid(65a1f0c2b3e4d5f6a7b8c9d0)", "oid(000000000000000000000000)"]
    static let datas = ["B64\"AAEC\"", "B64\"\"", "B64\"AQID\"", "B64\"/w==\""]
    static let lists = ["{1, 2, 3}", "{}", "{'a', nil}", "{nil}", "{0x10, -1, 9223372036854775807}", "{'Ann 3', 'Bob 5'}", "{1.5, 2}", "{1, 'x'}"]

    /// Spellings that are almost right: out of range, malformed, unterminated.
    static let invalid = [
        "1_000", "+5", "--1", "0x", "0xFFFFFFFFFFFFFFFFFF", "9223372036854775808", "-9223372036854775809", "99999999999999999999999999",
        "1e309", "-1e309", "3.", ".5", "1e-400", "1e", "1e+", "1.2.3", "'\\uZZZZ'", "'\\uD800'", "'\\u'", "'unterminated",
        "\"mixed'", "'\\x'", "2024-13-45@99:99:99", "T9999999999999999999:0", "T1:1000000000", "2023-02-29@00:00:00", "T2024-01-02",
        "uuid(zz)", "uuid()", "uuid(3F2504E0-4F89-11D3-9A0C-0305E82C330)", "oid(123)", "oid(zzzzzzzzzzzzzzzzzzzzzzzz)", "oid()",
        "B64\"!!\"", "B64\"AAE\"", "B64'AAEC'", "{{1}}", "{1,}", "{,}", "T", "@", "$", "%", "%d",
    ]
    static let arguments = ["%@", "$0", "$1", "$2", "$7", "$99999999999999999999", "$-1", "%K", "%@%@", "%d", "%"]

    /// Words and symbols a mutation inserts.
    static let tokens = [
        "(", ")", "((", "))", "AND", "OR", "NOT", "&&", "||", "!", "ANY", "ALL", "NONE", "SOME", "==", "=", "!=", "<>", "<", "<=",
        "=<", ">", ">=", "=>", "BETWEEN", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "{", "}", ",", ".", "@count",
        ".@count", ".@sum", ".@avg", ".@min", ".@max", ".@foo", "SUBQUERY(", "$x", "$", "@", "[c]", "[d]", "[cd]", "[x]", "[",
        "]", "TRUEPREDICATE", "FALSEPREDICATE", "nil", "%@", "%K", "$0", "'", "\"", "\\", "#", ";", "===", "=!", "<<", ">>", "&", "|",
    ]

    /// Unicode a mutation inserts: combining marks, emoji, right-to-left and zero-width
    /// characters, a lone accent, NUL.
    static let unicode = ["\u{301}", "🙂", "👩‍👩‍👧", "\u{202E}", "\u{200B}", "é", "ß", "İ", "\u{0}", "\u{FFFF}", "Ω", "𝔸", "\u{1F3FB}"]

    /// The literals of values of `type`.
    static func of(_ type: PropertyType) -> [String] {
        switch type {
        case .bool: bools
        case .int: ints
        case .float, .double, .decimal: doubles + ints
        case .string: strings
        case .data: datas + strings
        case .date: dates
        case .uuid: uuids
        case .objectId: objectIds
        case .object, .linkingObjects: nils
        case .mixed: all
        }
    }

    /// Every literal.
    static let all = ints + doubles + strings + bools + nils + dates + uuids + objectIds + datas + lists

    /// Every literal, valid or not.
    static let any = all + invalid
}
