import Foundation
import ObjDB
import ObjDBSyncTestModels
import Testing

@testable import ObjDBSyncProtocol

/// The binary download frame: its exact bytes, every value type, and bad frames refused with an
/// error, never read as something else and never a crash.
@Suite("Download frames")
struct DownloadFrameTests {
    static let small = ServerMessage.Download(
        isReset: true,
        batches: [
            SyncObjectBatch(
                className: "T", propertyNames: ["id", "n"],
                rows: [.init(primaryKey: .string("a"), values: [.string("a"), .int(1)]), .init(primaryKey: .string("b"), values: nil)])
        ], isFinal: true, checkpoint: "c", includesSequence: 5)

    /// The layout of Docs/SyncProtocol.md, "Download frames", byte by byte.
    @Test func exactBytesOfASmallFrame() throws {
        let expected: [UInt8] = [
            0x4F, 0x44, 0x4C, 0x02,  // "ODL", version 2
            0x0F,  // reset, final, checkpoint and included sequence present
            0x01, 0x63,  // checkpoint "c"
            0x05,  // included sequence 5
            0x01,  // one batch
            0x01, 0x54,  // class "T"
            0x02, 0x02, 0x69, 0x64, 0x01, 0x6E,  // properties "id", "n"
            0x02,  // two rows
            0x05, 0x01, 0x61, 0x01, 0x05, 0x01, 0x61, 0x02, 0x01, 0, 0, 0, 0, 0, 0, 0,  // "a": present, "a", 1
            0x05, 0x01, 0x62, 0x00,  // "b": deleted
        ]
        #expect(DownloadFrame.encode(Self.small) == expected)
        #expect(try SyncMessageCoding.frame(.download(Self.small)) == .binary(expected))
        #expect(try DownloadFrame.decode(expected) == Self.small)
        #expect(Self.small.changes == [
            SyncObjectState(className: "T", primaryKey: .string("a"), values: ["id": .string("a"), "n": .int(1)]),
            SyncObjectState(className: "T", primaryKey: .string("b"), values: nil),
        ])
    }

    @Test func everyValueRoundTripsInAFrame() throws {
        let names = ProtocolCodingTests.everyValue.indices.map { "p\($0)" }
        let part = ServerMessage.Download(
            isReset: false,
            batches: [
                SyncObjectBatch(className: "Every", propertyNames: names, rows: [.init(primaryKey: .uuid(UUID()), values: ProtocolCodingTests.everyValue)]),
                SyncObjectBatch(className: "Empty", propertyNames: [], rows: []),
            ], isFinal: false, checkpoint: nil, includesSequence: nil)
        #expect(try DownloadFrame.decode(DownloadFrame.encode(part)) == part)
    }

    /// Consecutive states of one class with the same properties share a batch; a deleted one
    /// joins its class's batch; another class or other properties start a new one.
    @Test func statesAreGroupedIntoBatchesInOrder() {
        let states = [
            SyncObjectState(className: "A", primaryKey: .string("1"), values: ["x": .int(1), "y": .null]),
            SyncObjectState(className: "A", primaryKey: .string("2"), values: ["y": .int(2), "x": .int(3)]),
            SyncObjectState(className: "A", primaryKey: .string("3"), values: nil),
            SyncObjectState(className: "A", primaryKey: .string("4"), values: ["x": .int(4)]),
            SyncObjectState(className: "B", primaryKey: .string("5"), values: nil),
        ]
        let batches = SyncObjectBatch.batches(states)
        #expect(batches.map(\.className) == ["A", "A", "B"])
        #expect(batches[0].propertyNames == ["x", "y"])
        #expect(batches[0].rows.map(\.values) == [[.int(1), .null], [.int(3), .int(2)], nil])
        #expect(batches[1].propertyNames == ["x"] && batches[1].rows.count == 1)
        #expect(batches[2].propertyNames == [] && batches[2].rows == [.init(primaryKey: .string("5"), values: nil)])
        #expect(batches.flatMap(\.states) == states)
    }

    static func code(_ bytes: [UInt8]) -> String? {
        ProtocolCodingTests.code { try DownloadFrame.decode(bytes) }
    }

    static func code(upload bytes: [UInt8]) -> String? {
        ProtocolCodingTests.code { try UploadFrame.decode(bytes) }
    }

    /// 3,000 copies of `good` with 1 to 4 random bytes changed: each decodes to something or is
    /// refused as malformed (or of another version); returns how many were refused.
    static func refusals(of good: [UInt8], seed: UInt64, _ code: ([UInt8]) -> String?) -> Int {
        var generator = SeededGenerator(state: seed)
        var refused = 0
        for _ in 0..<3000 {
            var bytes = good
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if let code = code(bytes) {
                #expect(code == SyncErrorCode.malformedMessage || code == SyncErrorCode.unsupportedProtocolVersion)
                refused += 1
            }
        }
        return refused
    }

    @Test func badFramesAreRefusedWithACode() {
        let good = DownloadFrame.encode(Self.small)
        // Every frame cut short.
        for length in 0..<good.count {
            #expect(Self.code(Array(good[0..<length])) == SyncErrorCode.malformedMessage, "cut at \(length)")
        }
        #expect(Self.code(good + [0]) == SyncErrorCode.malformedMessage)  // a byte after the end
        var wrong = good
        wrong[0] = 0x7B  // "{": not a frame
        #expect(Self.code(wrong) == SyncErrorCode.malformedMessage)
        wrong = good
        wrong[3] = 1  // version 1
        #expect(Self.code(wrong) == SyncErrorCode.unsupportedProtocolVersion)
        wrong = good
        wrong[4] |= 0x10  // an unknown flag
        #expect(Self.code(wrong) == SyncErrorCode.malformedMessage)
        // A property named twice.
        let twice = ServerMessage.Download(
            isReset: false, batches: [SyncObjectBatch(className: "T", propertyNames: ["x", "x"], rows: [])], isFinal: false, checkpoint: nil,
            includesSequence: nil)
        #expect(Self.code(DownloadFrame.encode(twice)) == SyncErrorCode.malformedMessage)
        wrong = good
        wrong[good.count - 1] = 2  // a presence byte that is neither 0 nor 1
        #expect(Self.code(wrong) == SyncErrorCode.malformedMessage)
        // A row count far past what the bytes hold.
        var huge = Array(good[0..<17])
        huge += [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]
        #expect(Self.code(huge) == SyncErrorCode.malformedMessage)
        // A value nested past the depth limit (172: 64 levels of embedded objects, 100 of mixed
        // values, and an entry's own): lists in lists.
        var deep = Array(good[0..<17]) + [0x01, 0x05, 0x01, 0x61, 0x01]
        deep += Array(repeating: [0x0C, 0x01], count: 200).flatMap { $0 } + [0x00, 0x02, 0x01, 0, 0, 0, 0, 0, 0, 0]
        #expect(Self.code(deep) == SyncErrorCode.malformedMessage)
        // Too large.
        #expect(Self.code(good + Array(repeating: 0, count: SyncLimits.maxMessageBytes)) == SyncErrorCode.messageTooLarge)
        // More objects than a part holds.
        let many = ServerMessage.Download(
            isReset: false,
            batches: [SyncObjectBatch(className: "T", propertyNames: [], rows: (0...SyncLimits.maxChangesPerMessage).map { .init(primaryKey: .int(Int64($0)), values: nil) })],
            isFinal: false, checkpoint: nil, includesSequence: nil)
        #expect(Self.code(DownloadFrame.encode(many)) == SyncErrorCode.malformedMessage)
        // A download as JSON text is not the protocol.
        #expect(ProtocolCodingTests.code { try SyncMessageCoding.decodeServer(#"{"type":"download","changes":[]}"#) } == SyncErrorCode.malformedMessage)
    }

    /// Random damage to a frame: each decodes to something or is refused with an error.
    @Test func randomlyDamagedFramesNeverCrash() {
        let good = DownloadFrame.encode(
            ServerMessage.Download(
                isReset: true,
                batches: [SyncObjectBatch(className: "Every", propertyNames: ProtocolCodingTests.everyValue.indices.map { "p\($0)" },
                                          rows: [.init(primaryKey: .string("k"), values: ProtocolCodingTests.everyValue)])],
                isFinal: true, checkpoint: "1:2:", includesSequence: 3))
        #expect(DownloadFrameTests.refusals(of: good, seed: 42, { Self.code($0) }) > 1000)  // most damage is seen; the rest reads as other valid values
    }
}

/// The binary upload frame: operations as the outbox keeps them.
@Suite("Upload frames")
struct UploadFrameTests {
    static let operation = SyncOperation(sequence: 1, className: "T", primaryKey: .string("k"), kind: .create, values: ["n": .int(1)])

    /// The layout of Docs/SyncProtocol.md, "upload", byte by byte.
    @Test func exactBytesOfASmallFrame() throws {
        let entry: [UInt8] = [
            0x01, 0x00,  // entry version 1, create
            0x01, 0x54,  // class "T"
            0x05, 0x01, 0x6B,  // primary key "k"
            0x01, 0x01, 0x6E, 0x02, 0x01, 0, 0, 0, 0, 0, 0, 0,  // one value: "n" = 1
            0x00,  // no list appends
        ]
        let expected: [UInt8] = [0x4F, 0x55, 0x4C, 0x02, 0x01, 0x01, UInt8(entry.count)] + entry
        #expect(UploadFrame.encode([Self.operation]) == expected)
        #expect(try SyncMessageCoding.frame(.upload([Self.operation])) == .binary(expected))
        #expect(try SyncMessageCoding.decodeClient(.binary(expected)) == .upload([Self.operation]))
    }

    @Test func everyValueAndEveryKindRoundTrip() throws {
        let values = Dictionary(uniqueKeysWithValues: ProtocolCodingTests.everyValue.enumerated().map { ("p\($0.offset)", $0.element) })
        let operations = [
            SyncOperation(sequence: 7, className: "Every", primaryKey: .uuid(UUID()), kind: .create, values: values),
            SyncOperation(
                sequence: 8, className: "Every", primaryKey: .objectId(ObjectId()), kind: .update, values: ["p1": .null],
                listAppends: ["tags": [.string("x"), .null]]),
            SyncOperation(sequence: .max, className: "Every", primaryKey: .string(""), kind: .delete),
        ]
        #expect(try UploadFrame.decode(UploadFrame.encode(operations)) == operations)
        #expect(try UploadFrame.decode(UploadFrame.encode([])) == [])
    }

    @Test func badFramesAreRefusedWithACode() {
        let good = UploadFrame.encode([Self.operation])
        for length in 0..<good.count {
            #expect(DownloadFrameTests.code(upload: Array(good[0..<length])) == SyncErrorCode.malformedMessage, "cut at \(length)")
        }
        #expect(DownloadFrameTests.code(upload: good + [0]) == SyncErrorCode.malformedMessage)
        var wrong = good
        wrong[8] = 3  // an operation kind that is not create, update or delete
        #expect(DownloadFrameTests.code(upload: wrong) == SyncErrorCode.malformedMessage)
        wrong = good
        wrong[11] = 0x63  // a value tag no version knows
        #expect(DownloadFrameTests.code(upload: wrong) == SyncErrorCode.malformedMessage)
        wrong = good
        wrong[7] = 2  // an entry version this peer does not know: another protocol
        #expect(DownloadFrameTests.code(upload: wrong) == SyncErrorCode.unsupportedProtocolVersion)
        // More operations than an upload takes, refused before anything is read or reserved.
        #expect(DownloadFrameTests.code(upload: [0x4F, 0x55, 0x4C, 0x02, 0x91, 0x4E] + Array(repeating: 0, count: 10_001)) == SyncErrorCode.protocolViolation)
        // A decimal whose text is not a whole number ("1.2." is read as 1.2 by Decimal alone).
        var decimal = UploadFrame.encode([
            SyncOperation(sequence: 1, className: "T", primaryKey: .string("k"), kind: .create, values: ["d": .decimal(Decimal(string: "1.25") ?? 0)])
        ])
        let text = Array("1.25".utf8)
        if let at = (0...(decimal.count - text.count)).first(where: { Array(decimal[$0..<($0 + text.count)]) == text }) {
            decimal[at + 3] = UInt8(ascii: ".")
        }
        #expect(DownloadFrameTests.code(upload: decimal) == SyncErrorCode.malformedMessage)
        wrong = good
        wrong[3] = 1  // protocol version 1
        #expect(DownloadFrameTests.code(upload: wrong) == SyncErrorCode.unsupportedProtocolVersion)
        wrong = good
        wrong[6] = 0x7F  // an entry longer than the bytes left
        #expect(DownloadFrameTests.code(upload: wrong) == SyncErrorCode.malformedMessage)
        // A download frame is not an upload.
        #expect(DownloadFrameTests.code(upload: DownloadFrame.encode(DownloadFrameTests.small)) == SyncErrorCode.malformedMessage)
        #expect(DownloadFrameTests.code(upload: good + Array(repeating: 0, count: SyncLimits.maxMessageBytes)) == SyncErrorCode.messageTooLarge)
    }

    /// Random damage to an upload: each decodes to something or is refused with an error.
    @Test func randomlyDamagedFramesNeverCrash() {
        let values = Dictionary(uniqueKeysWithValues: ProtocolCodingTests.everyValue.enumerated().map { ("p\($0.offset)", $0.element) })
        let good = UploadFrame.encode([
            SyncOperation(sequence: 1, className: "Every", primaryKey: .string("k"), kind: .create, values: values, listAppends: ["l": [.int(1)]])
        ])
        #expect(DownloadFrameTests.refusals(of: good, seed: 7, { DownloadFrameTests.code(upload: $0) }) > 1000)
    }
}
