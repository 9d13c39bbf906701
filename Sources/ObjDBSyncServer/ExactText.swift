/// A string compared and hashed by its UTF-8 bytes, as PostgreSQL compares text in a
/// deterministic collation.
///
/// Swift's `String` equates canonically equivalent strings: `"caf\u{E9}"` and `"cafe\u{301}"`
/// are one `String` key but two primary keys in PostgreSQL and in ObjDB. Sets and dictionaries
/// of primary keys' text use this instead, so that neither object hides the other.
struct ExactText: Hashable, Sendable, CustomStringConvertible {
    /// The string.
    let text: String

    /// The string, compared by its bytes.
    init(_ text: String) {
        self.text = text
    }

    /// Whether the two strings have the same bytes.
    static func == (a: ExactText, b: ExactText) -> Bool {
        a.text.utf8.elementsEqual(b.text.utf8)
    }

    /// Hashes the bytes and their count (so that arrays of texts split differently differ).
    func hash(into hasher: inout Hasher) {
        var text = self.text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(text.utf8.count)
    }

    /// The string.
    var description: String { text }
}
