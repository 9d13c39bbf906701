import Foundation
import Synchronization
import Testing
@testable import ObjDB

struct ObjectIdTests {
    @Test func stringFormRoundTrips() throws {
        let id = try #require(ObjectId(string: "65A1F0C2b3e4d5f6a7b8c9d0"))
        #expect(id.stringValue == "65a1f0c2b3e4d5f6a7b8c9d0")
        #expect(id.bytes == [0x65, 0xA1, 0xF0, 0xC2, 0xB3, 0xE4, 0xD5, 0xF6, 0xA7, 0xB8, 0xC9, 0xD0])
        #expect(ObjectId(bytes: id.bytes) == id)
        #expect(id.timestamp == Date(timeIntervalSince1970: 0x65A1F0C2))
        #expect(ObjectId(id.description) == id)
    }

    @Test(arguments: ["", "65a1f0c2b3e4d5f6a7b8c9d", "65a1f0c2b3e4d5f6a7b8c9d0a", "65a1f0c2b3e4d5f6a7b8c9dg", "zz", "65a1f0c2 3e4d5f6a7b8c9d0"])
    func rejectsMalformedStrings(_ text: String) {
        #expect(ObjectId(string: text) == nil)
    }

    @Test func rejectsWrongByteCounts() {
        #expect(ObjectId(bytes: [UInt8](repeating: 1, count: 11)) == nil)
        #expect(ObjectId(bytes: [UInt8](repeating: 1, count: 13)) == nil)
    }

    @Test func generatedIdsAreUniqueIncreasingAndTimestamped() {
        let before = Date().timeIntervalSince1970.rounded(.down)
        let ids = (0..<10_000).map { _ in ObjectId.generate() }
        let after = Date().timeIntervalSince1970
        #expect(Set(ids).count == ids.count)
        // Within one second the counter makes them increase; across a second boundary the timestamp does.
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 || $0.timestamp < $1.timestamp })
        #expect(ids.allSatisfy { $0.timestamp.timeIntervalSince1970 >= before && $0.timestamp.timeIntervalSince1970 <= after })
    }

    @Test func idsKeepIncreasingWhenTheCounterWrapsWithinASecond() {
        // A counter two steps from wrapping in the second of the last identifier, and a clock
        // stuck on that second.
        let generator = ObjectIdGenerator(random: 7, counter: 0xFF_FFFD, lastSeconds: 1_700_000_000, clock: { 1_700_000_000 })
        let ids = (0..<5).map { _ in generator.next() }
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 })
        #expect(Set(ids).count == 5)
        // Past the wrap it moved on to the next second rather than go back.
        #expect(ids.map { Int($0.timestamp.timeIntervalSince1970) } == [1_700_000_000, 1_700_000_000, 1_700_000_001, 1_700_000_001, 1_700_000_001])
    }

    @Test func idsDoNotGoBackWhenTheClockDoes() {
        let seconds = Mutex<UInt32>(1_700_000_010)
        let generator = ObjectIdGenerator(random: 7, counter: 5, clock: { seconds.withLock { $0 } })
        let first = generator.next()
        seconds.withLock { $0 = 1_700_000_000 }
        let second = generator.next()
        #expect(first < second)
        #expect(second.timestamp == first.timestamp)
    }

    @Test func ordersByBytes() throws {
        let a = try #require(ObjectId(string: "000000000000000000000001"))
        let b = try #require(ObjectId(string: "000000000000000000000100"))
        let c = try #require(ObjectId(string: "010000000000000000000000"))
        #expect(a < b && b < c && !(c < a))
        #expect([c, a, b].sorted() == [a, b, c])
    }

    @Test func codableAsHexString() throws {
        let id = try #require(ObjectId(string: "65a1f0c2b3e4d5f6a7b8c9d0"))
        let json = try JSONEncoder().encode([id])
        #expect(String(decoding: json, as: UTF8.self) == #"["65a1f0c2b3e4d5f6a7b8c9d0"]"#)
        #expect(try JSONDecoder().decode([ObjectId].self, from: json) == [id])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ObjectId].self, from: Data(#"["nope"]"#.utf8)) }
    }
}
