/// Sorting of 64-bit words by their bytes, least significant byte first (an LSD radix sort):
/// what orders the long integer lists of `IN` before they are sought in the primary-key table
/// or an index, and the order words of a sort by one number, date or bool column.
enum RadixSort {
    /// Lists shorter than this are sorted by comparisons, cheaper at that size than counting.
    static let minimumCount = 256

    /// `words` in ascending order.
    ///
    /// One pass counts every byte position at once; each position where the words differ then
    /// moves them once (ids below 2²⁴ differ in three bytes, so three moves).
    ///
    /// - Complexity: O(n × k) for n words that differ in k of their 8 bytes, and O(n) memory.
    static func sorted(_ words: [UInt64]) -> [UInt64] {
        guard words.count >= minimumCount else { return words.sorted() }
        return sorted(words) { $0 }
    }

    /// The positions of `words` in ascending order of their words; equal words keep the order
    /// of their positions (a stable sort).
    ///
    /// - Complexity: O(n × k) for n words that differ in k of their 8 bytes, and O(n) memory.
    static func order(_ words: [UInt64]) -> [Int] {
        guard words.count >= minimumCount else {
            return words.indices.sorted { words[$0] != words[$1] ? words[$0] < words[$1] : $0 < $1 }
        }
        let pairs = words.enumerated().map { (word: $1, position: $0) }
        return sorted(pairs) { $0.word }.map(\.position)
    }

    /// `elements` in ascending order of `word`, stable.
    @inline(__always)
    private static func sorted<Element>(_ elements: [Element], word: (Element) -> UInt64) -> [Element] {
        let count = elements.count
        var counts = [Int](repeating: 0, count: 8 * 256)
        counts.withUnsafeMutableBufferPointer { counts in
            for element in elements {
                let word = word(element)
                for byte in 0..<8 { counts[byte << 8 | Int(truncatingIfNeeded: word >> (byte << 3)) & 0xFF] += 1 }
            }
        }
        guard let first = elements.first else { return elements }
        var source = elements
        var target = [Element](repeating: first, count: count)
        for byte in 0..<8 {
            let shift = UInt64(byte << 3)
            let digitCounts = counts[(byte << 8)..<((byte << 8) + 256)]
            // A byte every word shares moves nothing.
            if digitCounts.contains(count) { continue }
            var starts = [Int](repeating: 0, count: 256)
            var next = 0
            for (digit, digitCount) in digitCounts.enumerated() {
                starts[digit] = next
                next += digitCount
            }
            source.withUnsafeBufferPointer { source in
                target.withUnsafeMutableBufferPointer { target in
                    starts.withUnsafeMutableBufferPointer { starts in
                        // In order within each digit: the sort of the lower bytes is kept.
                        for element in source {
                            let digit = Int(truncatingIfNeeded: word(element) >> shift) & 0xFF
                            target[starts[digit]] = element
                            starts[digit] += 1
                        }
                    }
                }
            }
            swap(&source, &target)
        }
        return source
    }

    /// `values` in ascending order, sorted by the order-preserving words of their sign-flipped
    /// bits (no copies of the list into words and back).
    static func sorted(_ values: [Int64]) -> [Int64] {
        guard values.count >= minimumCount else { return values.sorted() }
        return sorted(values, word: QuerySort.integerWord)
    }
}
