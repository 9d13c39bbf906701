import Foundation
import ObjDB
import Testing

@testable import ObjDBSyncProtocol

@Suite("Sync protocol coding")
struct ProtocolCodingTests {
    static let everyValue: [SyncValue] = [
        .null, .bool(true), .bool(false), .int(.min), .int(.max), .int(0), .float(1.1), .float(-.infinity), .float(.nan), .float(-0.0),
        .float(.leastNonzeroMagnitude), .double(1.5), .double(.pi), .double(.nan), .double(.infinity), .double(-.infinity),
        .double(-0.0), .double(.leastNonzeroMagnitude), .double(.greatestFiniteMagnitude), .double(1e300), .double(123456789.123456789),
        .string(""), .string("a \"quoted\" \\ line\nnext\u{1}\u{7F} é 😀"), .data(Data()), .data(Data([0, 1, 2, 255])),
        .date(Date(timeIntervalSince1970: 0)), .date(Date(timeIntervalSinceReferenceDate: 817594185.0911537)),
        .date(Date(timeIntervalSince1970: -1.5)), .date(Date(timeIntervalSinceReferenceDate: .infinity)),
        .decimal(Decimal(string: "123.45") ?? 0), .decimal(Decimal(string: "-0.000001") ?? 0), .decimal(.nan), .decimal(Decimal(string: "99999999999999999999999999999999999999") ?? 0),
        .uuid(UUID()), .objectId(ObjectId()), .link(.string("target")), .link(.uuid(UUID())),
        .list([]), .list([.int(1), .null, .string("x")]), .map([:]), .map(["a": .double(4.5), "b": .null]),
        .object(["name": .string("n"), "inner": .object(["x": .list([.float(2)])])]),
    ]

    @Test func everyValueRoundTrips() throws {
        for value in Self.everyValue {
            let text = SyncValueJSON.encode(value).text
            let back = try SyncValueJSON.decode(SyncJSON.parse(text))
            #expect(back == value, "\(value) → \(text) → \(back)")
        }
    }

    @Test func exactJSONOfValues() throws {
        #expect(SyncValueJSON.encode(.null).text == "null")
        #expect(SyncValueJSON.encode(.bool(true)).text == #"{"bool":true}"#)
        #expect(SyncValueJSON.encode(.int(.min)).text == #"{"int":"-9223372036854775808"}"#)
        #expect(SyncValueJSON.encode(.double(1.5)).text == #"{"double":1.5}"#)
        #expect(SyncValueJSON.encode(.double(.nan)).text == #"{"double":"NaN"}"#)
        #expect(SyncValueJSON.encode(.double(-.infinity)).text == #"{"double":"-Infinity"}"#)
        #expect(SyncValueJSON.encode(.double(-0.0)).text == #"{"double":"-0"}"#)
        #expect(SyncValueJSON.encode(.float(.infinity)).text == #"{"float":"Infinity"}"#)
        #expect(SyncValueJSON.encode(.date(Date(timeIntervalSince1970: 1_700_000_000.25))).text == #"{"date":1700000000.25}"#)
        #expect(SyncValueJSON.encode(.string("a")).text == #"{"string":"a"}"#)
        #expect(SyncValueJSON.encode(.data(Data([1, 2, 3]))).text == #"{"data":"AQID"}"#)
        #expect(SyncValueJSON.encode(.decimal(Decimal(string: "123.45") ?? 0)).text == #"{"decimal":"123.45"}"#)
        #expect(SyncValueJSON.encode(.link(.string("k"))).text == #"{"link":{"string":"k"}}"#)
        #expect(SyncValueJSON.encode(.list([.int(1), .null])).text == #"{"list":[{"int":"1"},null]}"#)
        #expect(SyncValueJSON.encode(.map(["b": .bool(false), "a": .null])).text == #"{"map":{"a":null,"b":{"bool":false}}}"#)
        #expect(SyncValueJSON.encode(.object(["x": .int(2)])).text == #"{"object":{"x":{"int":"2"}}}"#)
        let oid = ObjectId()
        #expect(SyncValueJSON.encode(.objectId(oid)).text == #"{"objectId":""# + oid.description + #""}"#)
    }

    @Test func randomDoublesAndFloatsKeepEveryBit() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let d = Double(bitPattern: generator.next())
            let f = Float(bitPattern: UInt32(truncatingIfNeeded: generator.next()))
            for value in [SyncValue.double(d), .float(f)] {
                let back = try SyncValueJSON.decode(SyncJSON.parse(SyncValueJSON.encode(value).text))
                switch (value, back) {
                case (.double(let a), .double(let b)) where a.isNaN: #expect(b.isNaN)
                case (.float(let a), .float(let b)) where a.isNaN: #expect(b.isNaN)
                default: #expect(back == value, "\(value)")
                }
            }
        }
    }

    @Test func randomDatesKeepEveryBit() throws {
        var generator = SystemRandomNumberGenerator()
        for i in 0..<20_000 {
            let bits = Double(bitPattern: generator.next())
            guard bits.isFinite else { continue }
            // Half built from seconds since 1970, half from seconds since 2001, and a band of
            // ordinary present-day dates whose two epochs differ in their last bit.
            let date: Date =
                switch i % 3 {
                case 0: Date(timeIntervalSince1970: bits)
                case 1: Date(timeIntervalSinceReferenceDate: bits)
                default: Date(timeIntervalSinceReferenceDate: Double.random(in: 0..<1e9))
                }
            let value = SyncValue.date(date)
            let back = try SyncValueJSON.decode(SyncJSON.parse(SyncValueJSON.encode(value).text))
            #expect(back == value, "\(date.timeIntervalSinceReferenceDate)")
        }
    }

    @Test func plainSecondsFromOtherClientsRead() throws {
        let value = try SyncValueJSON.decode(SyncJSON.parse(#"{"date":1700000000.5}"#))
        #expect(value == .date(Date(timeIntervalSince1970: 1_700_000_000.5)))
        #expect(try SyncValueJSON.decode(SyncJSON.parse(#"{"date":1.7e9}"#)) == .date(Date(timeIntervalSince1970: 1.7e9)))
        #expect(try SyncValueJSON.decode(SyncJSON.parse(#"{"date":"-0"}"#)) == .date(Date(timeIntervalSince1970: -0.0)))
    }

    static func sampleHello() -> ClientMessage.Hello {
        ClientMessage.Hello(
            clientID: UUID(),
            schema: [
                SyncClassSchema(
                    name: "Todo",
                    properties: [
                        SyncPropertySchema(name: "id", type: .string, isPrimaryKey: true),
                        SyncPropertySchema(name: "tags", type: .string, collection: .list),
                        SyncPropertySchema(name: "owner", type: .object, isOptional: true, objectClassName: "Person"),
                    ]),
                SyncClassSchema(name: "Address", isEmbedded: true, properties: [SyncPropertySchema(name: "city", type: .string)]),
            ], subscriptions: ["Todo"], checkpoint: nil, lastSequence: 7)
    }

    @Test func messagesRoundTrip() throws {
        let op = SyncOperation(
            sequence: 3, className: "Todo", primaryKey: .string("a"), kind: .update, values: ["title": .string("t"), "done": .bool(true)],
            listAppends: ["tags": [.string("x"), .string("y")]])
        let clientMessages: [ClientMessage] = [
            .hello(Self.sampleHello()), .hello(.init(clientID: UUID(), schema: [], subscriptions: [], checkpoint: "10:12:11", lastSequence: 0)),
            .upload([op, SyncOperation(sequence: 4, className: "Todo", primaryKey: .string("a"), kind: .delete)]), .upload([]),
        ]
        for m in clientMessages { #expect(try SyncMessageCoding.decodeClient(SyncMessageCoding.frame(m)) == m) }
        let serverMessages: [ServerMessage] = [
            .welcome(acknowledged: 0), .welcome(acknowledged: .max), .ack(through: 12),
            .download(
                .init(
                    isReset: true, changes: [.init(className: "Todo", primaryKey: .string("a"), values: ["id": .string("a"), "n": .double(.nan)])],
                    isFinal: false, checkpoint: nil, includesSequence: nil)),
            .download(
                .init(
                    isReset: false, changes: [.init(className: "Todo", primaryKey: .uuid(UUID()), values: nil)], isFinal: true,
                    checkpoint: "100:105:101,103", includesSequence: 9)),
            .rejected(sequence: 5, className: "Todo", primaryKey: .objectId(ObjectId()), reason: "no"), .reset(reason: "copied"),
            .error(code: "malformedMessage", message: "bad"),
        ]
        for m in serverMessages { #expect(try SyncMessageCoding.decodeServer(SyncMessageCoding.frame(m)) == m) }
    }

    @Test func exactJSONOfMessages() throws {
        #expect(try SyncMessageCoding.encode(.ack(through: 5)) == #"{"type":"ack","through":5}"#)
        #expect(try SyncMessageCoding.encode(.welcome(acknowledged: 2)) == #"{"type":"welcome","protocol":2,"acknowledged":2}"#)
    }

    static func code(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch let e as ObjDBError {
            return e.key
        } catch {
            return "other"
        }
    }

    @Test func malformedInputIsRefusedWithACode() throws {
        let malformed = [
            "", "{", "[]", "nul", #"{"type":1}"#, #"{"type":"hello"}"#, "\"\u{1}\"",
            #"{"type":"hello","type":"upload"}"#, "{\"type\":\"requestDownload\",\"id\":1} x", #"{"type":"requestDownload","id":-1}"#,
            // Uploads travel as binary frames (BinaryFrameTests): as text, they are not the protocol.
            #"{"type":"upload","operations":[]}"#,
            String(repeating: "[", count: 10_000),
        ]
        for text in malformed {
            #expect(Self.code { try SyncMessageCoding.decodeClient(text) } == SyncErrorCode.malformedMessage, "\(text.prefix(60))")
        }
        #expect(Self.code { try SyncMessageCoding.decodeClient(#"{"type":"goodbye"}"#) } == SyncErrorCode.unknownMessageType)
        var hello = try SyncMessageCoding.encode(.hello(Self.sampleHello()))
        hello = hello.replacingOccurrences(of: #""protocol":2"#, with: #""protocol":1"#)
        #expect(Self.code { try SyncMessageCoding.decodeClient(hello) } == SyncErrorCode.unsupportedProtocolVersion)
        let big = #"{"type":"hello","pad":""# + String(repeating: "x", count: SyncLimits.maxMessageBytes) + #""}"#
        #expect(Self.code { try SyncMessageCoding.decodeClient(big) } == SyncErrorCode.messageTooLarge)
        let oversize = ClientMessage.upload([
            SyncOperation(sequence: 1, className: "T", primaryKey: .string("k"), kind: .create, values: ["s": .string(String(repeating: "y", count: 5 << 20))])
        ])
        #expect(Self.code { try SyncMessageCoding.frame(oversize) } == SyncErrorCode.messageTooLarge)
        #expect(Self.code { try SyncMessageCoding.encode(ClientMessage.upload([])) } == SyncErrorCode.protocolViolation)
    }

    @Test func schemaOfAnObjectSchema() throws {
        let schema = ObjectSchema(
            className: "Person",
            properties: [
                Property(name: "id", type: .uuid, isPrimaryKey: true), Property(name: "name", type: .string),
                Property(name: "pets", type: .object, objectClassName: "Pet", collection: .list),
                Property(name: "owners", type: .linkingObjects, objectClassName: "Home", linkOriginPropertyName: "people"),
            ])
        let s = SyncClassSchema(schema)
        #expect(s.properties.map(\.name) == ["id", "name", "pets"])
        #expect(s.primaryKey?.name == "id")
        #expect(s["pets"]?.collection == .list)
        let text = SyncMessageCoding.encodeSchema(s)
        #expect(try SyncMessageCoding.decodeSchema(text) == s)
    }
}
