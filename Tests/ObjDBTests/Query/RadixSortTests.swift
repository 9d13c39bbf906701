import Testing
@testable import ObjDB

/// ``RadixSort`` against the standard library's sort.
struct RadixSortTests {
    @Test(arguments: [0, 1, 2, 255, 256, 257, 1_000, 20_000])
    func wordsAndIntegersSortLikeTheStandardLibrary(count: Int) {
        var rng = SeededRandom(seed: UInt64(count) &+ 0x5AD1)
        // Small values (most bytes shared), full-width values, repeats, and the extremes.
        let words: [UInt64] = (0..<count).map { i in
            switch i % 4 {
            case 0: rng.next() % 1_000
            case 1: rng.next()
            case 2: [0, .max, 1 << 63, (1 << 63) - 1][rng.below(4)]
            default: rng.next() & 0xFF00_0000_0000_00FF
            }
        }
        #expect(RadixSort.sorted(words) == words.sorted())
        let integers = words.map { Int64(bitPattern: $0) }
        #expect(RadixSort.sorted(integers) == integers.sorted())
        // Positions by word, equal words in position order: what a stable sort gives.
        let stable = words.indices.sorted { words[$0] != words[$1] ? words[$0] < words[$1] : $0 < $1 }
        #expect(RadixSort.order(words) == stable)
    }

    @Test func listsWhoseWordsAreAllEqualOrSortedStayWhole() {
        let same = [UInt64](repeating: 42, count: 1_000)
        #expect(RadixSort.sorted(same) == same)
        let ascending = (0..<5_000).map { Int64($0) - 2_500 }
        #expect(RadixSort.sorted(ascending) == ascending)
        #expect(RadixSort.sorted(Array(ascending.reversed())) == ascending)
    }
}
