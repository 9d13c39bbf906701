import Foundation
import Testing
@testable import ObjDB

/// `String(validatingUTF8Bytes:)` against the standard library's `String(validating:as:)`, with
/// the one non-ASCII byte at every position around the 8-byte words its ASCII check reads.
struct ValidatedUTF8Tests {
    static func decode(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { String(validatingUTF8Bytes: $0) }
    }

    @Test func asciiAndValidUTF8AreTakenAsTheyAre() {
        #expect(Self.decode([]) == "")
        #expect(Self.decode(Array("name".utf8)) == "name")
        #expect(Self.decode(Array("a\u{0}b".utf8)) == "a\u{0}b")
        #expect(Self.decode(Array("crème brûlée, 東京, 🎉".utf8)) == "crème brûlée, 東京, 🎉")
        for length in 1...20 {
            for position in 0..<length {
                var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                bytes[position] = 0x7F
                #expect(Self.decode(bytes) == String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    @Test func invalidUTF8IsRefusedWhereverItStands() {
        for length in 1...20 {
            for position in 0..<length {
                // A lone continuation byte, and a lead byte with no continuation.
                for bad: UInt8 in [0x80, 0xC3, 0xFF] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                    bytes[position] = bad
                    #expect(Self.decode(bytes) == nil, "\(bytes)")
                    #expect(bytes.withUnsafeBytes { String(validating: $0, as: UTF8.self) } == nil)
                }
            }
        }
        // An overlong encoding of "/" and a surrogate are not UTF-8 either.
        #expect(Self.decode([0xC0, 0xAF]) == nil)
        #expect(Self.decode([0xED, 0xA0, 0x80]) == nil)
    }
}
