import Foundation

/// Splits text into the words a full-text index holds and a `TEXT` predicate looks for.
///
/// - A word is a run of letters, digits and combining marks (Unicode's properties, so `café`,
///   `Straße` and `naïve` are one word each); everything else separates words.
/// - Words are folded for case and diacritics, as `[cd]` comparisons fold (`Café` → `cafe`).
///   ASCII text takes a loop of its own that folds byte by byte.
/// - Han, Hiragana, Katakana and Hangul have no spaces between words: a run of them becomes
///   its overlapping pairs of characters (`東京都` → `東京`, `京都`), as Lucene's CJK analyzer
///   does, and a lone character stays one word. A search for `東京` then finds `東京都`.
/// - A word longer than ``maxWordBytes`` bytes keeps its first bytes (cut between characters).
///
/// The words of a text are a pure function of its bytes and of ``version``: the index stores
/// the version with the property, and a file indexed by another version is indexed again at
/// open.
enum FullTextTokenizer {
    /// The rules above; a change to them must raise it.
    static let version = 1

    /// A digest of the words of ``folding``'s sample texts, as this process finds them: the
    /// folding comes from Foundation and the letter classes from the standard library's Unicode
    /// tables, which a toolchain or operating system update may change under the same
    /// ``version``. An index records the digest it was filled with; one filled with another is
    /// rebuilt (and not used before that), because a posting is deleted by splitting the old
    /// text again, which must give the same words.
    static let foldingDigest: UInt32 = {
        var crc: UInt32 = 0
        for word in words(foldingSample) {
            crc = word.withUnsafeBytes { Checksum.crc32c($0, continuing: crc) }
            crc = withUnsafeBytes(of: UInt8(0)) { Checksum.crc32c($0, continuing: crc) }
        }
        return crc
    }()

    /// Texts whose folding and splitting differ most between Unicode and ICU versions: Latin
    /// letters with every kind of mark, ligatures, sharp s, Greek, Cyrillic, Armenian, Hebrew and
    /// Arabic with points, Indic scripts with vowel signs, Thai, CJK and Hangul, fullwidth forms,
    /// digits of other scripts, letters added in recent Unicode versions.
    private static let foldingSample = [
        "Ǆemal ǅ Ǳ ǲ Ĳ ĳ ﬁ ﬂ ﬀ ﬃ ß ẞ ſ Å Å ǻ Ḕ ḕ Ṩ ṩ ọ̈ ą̊ Œœ Æ æ Ø ø Þ þ Ð ð Ł ł ı İ i̇ ǰ",
        "ΆΈΉΊΌΎΏ ΐ ΰ ς σ Σ ϐ ϑ ϕ ϖ ϰ ϱ ϵ ᾼ ῌ ῼ ᾈ ῳ Ѐ ё Ӂ ӂ Ӑ ӑ Ա ա և Ꙋ ꙋ",
        "שָׁלוֹם עִבְרִית مَرْحَبًا بِالْعَالَمِ ﻻ ﷲ हिन्दी क़ ড় ਗ਼ தமிழ் ಕನ್ನಡ ภาษาไทย ລາວ 각 가각",
        "東京都 日本語 カタカナ ｶﾀｶﾅ ＡＢＣ１２３ ① ⅻ ٣ ۴ ৫ ๖ 𝔄𝔅 𝐀 Ⓐ ꭰ Ꭰ 𐐀 𐐨 𞤀 𞤢 ꟊ ꟑ ǃ ʼ",
    ].joined(separator: " ")
    /// The longest word kept, in UTF-8 bytes.
    static let maxWordBytes = 128

    /// The words of `text`, in order, repeats included.
    static func words(_ text: String) -> [[UInt8]] {
        var text = text
        return text.withUTF8 { words(UnsafeRawBufferPointer($0)) }
    }

    /// The words of the UTF-8 bytes `text` (invalid bytes separate words), in order.
    static func words(_ text: UnsafeRawBufferPointer) -> [[UInt8]] {
        var result: [[UInt8]] = []
        forEachWord(text) { result.append(Array($0)) }
        return result
    }

    /// Calls `body` with each word of the UTF-8 bytes `text`, in order; the bytes passed are
    /// valid only during the call.
    ///
    /// - Complexity: O(n) for n bytes; words that are not plain ASCII are folded by Foundation.
    static func forEachWord(_ text: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        var word: [UInt8] = []
        word.reserveCapacity(32)
        var wordIsASCII = true
        // The scalars of a run of CJK characters not yet emitted: the previous one.
        var previousCJK: Unicode.Scalar?
        var cjkRunLength = 0

        func flushWord() {
            guard !word.isEmpty else { return }
            if wordIsASCII {
                emit(word[...], body)
            } else {
                let folded = String(decoding: word, as: UTF8.self).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
                // What folding leaves of marks (a mark on no base letter) is not part of a word.
                var kept: [UInt8] = []
                kept.reserveCapacity(folded.utf8.count)
                for scalar in folded.unicodeScalars where !isMark(scalar) { kept.append(contentsOf: String(scalar).utf8) }
                emit(kept[...], body)
            }
            word.removeAll(keepingCapacity: true)
            wordIsASCII = true
        }
        func flushCJK() {
            if cjkRunLength == 1, let previousCJK { emit(Array(String(previousCJK).utf8)[...], body) }
            previousCJK = nil
            cjkRunLength = 0
        }

        var index = 0
        let count = text.count
        while index < count {
            let byte = text[index]
            if byte < 0x80 {
                // ASCII: letters and digits fold here; everything else separates.
                if byte >= 0x61 && byte <= 0x7A || byte >= 0x30 && byte <= 0x39 {
                    if cjkRunLength > 0 { flushCJK() }
                    word.append(byte)
                } else if byte >= 0x41 && byte <= 0x5A {
                    if cjkRunLength > 0 { flushCJK() }
                    word.append(byte | 0x20)
                } else {
                    flushWord()
                    flushCJK()
                }
                index += 1
                continue
            }
            guard let (scalar, length) = decodeScalar(text, at: index) else {
                flushWord()
                flushCJK()
                index += 1
                continue
            }
            index += length
            if isCJK(scalar) {
                flushWord()
                if let previous = previousCJK {
                    var pair = Array(String(previous).utf8)
                    pair.append(contentsOf: String(scalar).utf8)
                    emit(pair[...], body)
                }
                previousCJK = scalar
                cjkRunLength += 1
            } else if isMark(scalar) {
                // A mark belongs to the word before it (and is folded away with its base).
                if !word.isEmpty {
                    word.append(contentsOf: String(scalar).utf8)
                    wordIsASCII = false
                }
            } else if isWordScalar(scalar) {
                if cjkRunLength > 0 { flushCJK() }
                word.append(contentsOf: String(scalar).utf8)
                wordIsASCII = false
            } else {
                flushWord()
                flushCJK()
            }
        }
        flushWord()
        flushCJK()
    }

    /// Passes `word` to `body`, cut to ``maxWordBytes`` between characters.
    private static func emit(_ word: ArraySlice<UInt8>, _ body: (UnsafeRawBufferPointer) -> Void) {
        guard !word.isEmpty else { return }
        var end = word.startIndex + min(word.count, maxWordBytes)
        // Back to the start of a character: continuation bytes are 0b10xxxxxx.
        if end < word.endIndex { while end > word.startIndex && word[end] & 0xC0 == 0x80 { end -= 1 } }
        word[word.startIndex..<end].withUnsafeBytes(body)
    }

    /// The scalar encoded at `index` and its length in bytes; `nil` for bytes that are not
    /// UTF-8.
    private static func decodeScalar(_ text: UnsafeRawBufferPointer, at index: Int) -> (Unicode.Scalar, Int)? {
        let first = UInt32(text[index])
        let length: Int
        var value: UInt32
        switch first {
        case 0xC2...0xDF: length = 2; value = first & 0x1F
        case 0xE0...0xEF: length = 3; value = first & 0x0F
        case 0xF0...0xF4: length = 4; value = first & 0x07
        default: return nil
        }
        guard index + length <= text.count else { return nil }
        for offset in 1..<length {
            let byte = UInt32(text[index + offset])
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | (byte & 0x3F)
        }
        // Overlong forms and surrogates are not UTF-8.
        let smallest: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard value >= smallest, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }

    /// Whether `scalar` is a letter or a digit.
    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        return properties.isAlphabetic || properties.numericType != nil
    }

    /// Whether `scalar` is a combining mark.
    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    /// Whether `scalar` is written without spaces between words: Han ideographs, Hiragana,
    /// Katakana and Hangul.
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9F: return true  // kana
        case 0x1100...0x11FF, 0x3130...0x318F, 0xAC00...0xD7AF: return true  // Hangul
        case 0x3005, 0x3007: return true  // 々 and 〇, written inside Japanese words
        default: return scalar.properties.isIdeographic
        }
    }
}
