import Foundation

extension Decimal {
    /// The decimal that `Decimal.description` wrote as `text` (`-12.5`, `1E-7`, `NaN`), read
    /// back exactly: the one reader of that text for the outbox, the protocol's JSON and
    /// PostgreSQL's `numeric` (Foundation's `Decimal(string:)` reads no `NaN`). `nil` for text
    /// it does not read; callers check the text's form first (`Decimal(string:)` reads a prefix).
    package init?(syncText text: String) {
        if text == "NaN" {
            self = .nan
            return
        }
        guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { return nil }
        self = value
    }
}
