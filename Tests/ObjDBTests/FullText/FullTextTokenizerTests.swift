import Foundation
import Testing
@testable import ObjDB

/// The words the tokenizer finds, against lists written out by hand.
struct FullTextTokenizerTests {
    func words(_ text: String) -> [String] {
        FullTextTokenizer.words(text).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func asciiWordsAreLowercasedAndSplitOnEverythingElse() {
        #expect(words("Hello, World! It's e-mail_2 3.14") == ["hello", "world", "it", "s", "e", "mail", "2", "3", "14"])
        #expect(words("") == [])
        #expect(words("  ...!? ") == [])
    }

    @Test func caseAndDiacriticsAreFolded() {
        #expect(words("Café NAÏVE Ångström jalapeño") == ["cafe", "naive", "angstrom", "jalapeno"])
        // A combining accent (e + U+0301) folds as the precomposed é does.
        #expect(words("cafe\u{301}") == ["cafe"])
        #expect(words("Αθήνα Москва") == ["αθηνα", "москва"])
    }

    @Test func cjkRunsBecomeOverlappingPairs() {
        #expect(words("東京都") == ["東京", "京都"])
        #expect(words("東京都に行く") == ["東京", "京都", "都に", "に行", "行く"])
        #expect(words("日") == ["日"])
        #expect(words("Swift言語 2024年") == ["swift", "言語", "2024", "年"])
        #expect(words("서울 특별시") == ["서울", "특별", "별시"])
    }

    @Test func longWordsAreCutBetweenCharacters() {
        let long = String(repeating: "é", count: 100)  // 200 bytes folded to 100 "e"
        #expect(words(long) == [String(repeating: "e", count: 100)])
        let longer = String(repeating: "ab", count: 100)
        #expect(words(longer).map(\.utf8.count) == [FullTextTokenizer.maxWordBytes])
        let greek = String(repeating: "λ", count: 100)  // 2 bytes each: cut at 128 = 64 letters
        #expect(words(greek) == [String(repeating: "λ", count: 64)])
    }

    @Test func invalidUTF8SeparatesWords() {
        let bytes: [UInt8] = [0x61, 0x62, 0xFF, 0x63, 0xC3, 0x28, 0x64]
        let found = bytes.withUnsafeBytes { FullTextTokenizer.words($0) }.map { String(decoding: $0, as: UTF8.self) }
        #expect(found == ["ab", "c", "d"])
    }

    @Test func searchTextsAreReadAsRealmCoreReadsThem() {
        let query = FullTextQuery("Swift -ObjC data* -e-mail")
        #expect(query.required == [.init(word: Array("swift".utf8), isPrefix: false), .init(word: Array("data".utf8), isPrefix: true)])
        #expect(query.excluded == [[.init(word: Array("objc".utf8), isPrefix: false)], [.init(word: Array("e".utf8), isPrefix: false), .init(word: Array("mail".utf8), isPrefix: false)]])
        #expect(FullTextQuery("  ,; ").isEmpty)
        #expect(FullTextQuery("-").isEmpty)
        #expect(!FullTextQuery("-lake").isEmpty)
    }
}
