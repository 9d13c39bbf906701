import Foundation

/// The bytes of a full-text index table (`c<class>.f<property>`, flags `MDB_DUPSORT |
/// MDB_DUPFIXED`): their one home. `Docs/FileFormat.md` describes them.
///
/// - Under each word (its folded UTF-8, ``FullTextTokenizer``), one 16-byte posting per object
///   whose text holds it: the object key (8 bytes, big-endian, so that postings sort by key),
///   how often the word occurs in the text (4 bytes, big-endian) and how many words the text
///   has (4 bytes, big-endian), which relevance ranking needs.
/// - Under the key `0x00` (no word holds that byte), one 16-byte record of the whole index:
///   the number of objects with at least one word (8 bytes, big-endian) and the number of
///   words of all their texts (8 bytes, big-endian).
enum FullTextPostings {
    /// The size of a posting and of the statistics record.
    static let valueSize = 16
    /// The key of the statistics record.
    static let statisticsKey: [UInt8] = [0]

    /// One posting.
    struct Posting: Equatable {
        /// The object whose text holds the word.
        var objectKey: UInt64
        /// How often the word occurs in the text.
        var occurrences: UInt32
        /// How many words the text has.
        var textLength: UInt32
    }

    /// The index's statistics record.
    struct Statistics: Equatable {
        /// The objects whose text has at least one word.
        var documents: UInt64 = 0
        /// The words of all their texts.
        var words: UInt64 = 0
    }

    /// Writes `posting` at `destination` (16 bytes).
    static func write(_ posting: Posting, to destination: UnsafeMutableRawPointer) {
        destination.storeBytes(of: posting.objectKey.bigEndian, toByteOffset: 0, as: UInt64.self)
        destination.storeBytes(of: posting.occurrences.bigEndian, toByteOffset: 8, as: UInt32.self)
        destination.storeBytes(of: posting.textLength.bigEndian, toByteOffset: 12, as: UInt32.self)
    }

    /// The posting at `offset` of `bytes`.
    @inline(__always)
    static func posting(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Posting {
        Posting(
            objectKey: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)),
            occurrences: UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)),
            textLength: UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
    }

    /// The object key of the posting at `offset` of `bytes`.
    @inline(__always)
    static func objectKey(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// `posting`'s 16 bytes.
    static func bytes(_ posting: Posting) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: valueSize)
        bytes.withUnsafeMutableBytes { write(posting, to: $0.baseAddress.unsafelyUnwrapped) }
        return bytes
    }

    /// The statistics record's 16 bytes.
    static func bytes(_ statistics: Statistics) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: valueSize)
        bytes.withUnsafeMutableBytes {
            $0.storeBytes(of: statistics.documents.bigEndian, toByteOffset: 0, as: UInt64.self)
            $0.storeBytes(of: statistics.words.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        return bytes
    }

    /// The statistics in `bytes`; `nil` unless they are 16 bytes.
    static func statistics(_ bytes: UnsafeRawBufferPointer) -> Statistics? {
        guard bytes.count == valueSize else { return nil }
        return Statistics(
            documents: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
            words: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }
}

/// The words of one text, as the index holds them: each distinct word once with its number of
/// occurrences, in byte order, and the number of words.
struct FullTextDocument: Equatable {
    /// Distinct words, ascending by bytes, with how often each occurs.
    var words: [(word: [UInt8], occurrences: UInt32)] = []
    /// The number of words of the text, repeats included (capped at `UInt32.max`).
    var length: UInt32 = 0

    /// The document of the UTF-8 text `text` (`nil`: no text).
    ///
    /// The words are gathered into one buffer and sorted as ranges of it, so that only the
    /// distinct words become arrays (an insert of 100k texts of 50 words made 5M arrays
    /// before). ``init(straightforward:)`` is the slow twin, compared under internal checks.
    init(_ text: UnsafeRawBufferPointer?) {
        guard let text else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var ranges: [Range<Int>] = []
        FullTextTokenizer.forEachWord(text) { word in
            let start = bytes.count
            bytes.append(contentsOf: word)
            ranges.append(start..<bytes.count)
        }
        length = UInt32(clamping: ranges.count)
        bytes.withUnsafeBytes { buffer in
            ranges.sort { Self.compare(buffer, $0, $1) < 0 }
            var previous: Range<Int>?
            for range in ranges {
                if let previous, Self.compare(buffer, previous, range) == 0 {
                    words[words.count - 1].occurrences &+= 1
                } else {
                    words.append((Array(buffer[range]), 1))
                }
                previous = range
            }
        }
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled {
            let twin = FullTextDocument(straightforward: text)
            internalCheck(self == twin, "the words of a text gathered in one buffer differ from their plain reading")
        }
        #endif
    }

    /// The slow twin of ``init(_:)``: each word an array of its own, the arrays sorted.
    init(straightforward text: UnsafeRawBufferPointer) {
        var all: [[UInt8]] = []
        FullTextTokenizer.forEachWord(text) { all.append(Array($0)) }
        length = UInt32(clamping: all.count)
        all.sort { $0.lexicographicallyPrecedes($1) }
        for word in all {
            if let last = words.last, last.word == word {
                words[words.count - 1].occurrences &+= 1
            } else {
                words.append((word, 1))
            }
        }
    }

    /// The byte order of two words of `buffer` (negative, zero, positive), as
    /// `lexicographicallyPrecedes` orders them: a word before the words it is a prefix of.
    @inline(__always)
    private static func compare(_ buffer: UnsafeRawBufferPointer, _ a: Range<Int>, _ b: Range<Int>) -> Int32 {
        guard let base = buffer.baseAddress else { return 0 }
        let common = Swift.min(a.count, b.count)
        let order = common == 0 ? 0 : memcmp(base + a.lowerBound, base + b.lowerBound, common)
        if order != 0 { return order }
        return a.count < b.count ? -1 : a.count > b.count ? 1 : 0
    }

    /// Equal when they hold the same words as often, and as many.
    static func == (a: FullTextDocument, b: FullTextDocument) -> Bool {
        a.length == b.length && a.words.elementsEqual(b.words) { $0.word == $1.word && $0.occurrences == $1.occurrences }
    }
}
