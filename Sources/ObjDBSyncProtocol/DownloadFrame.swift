import ObjDB

/// The binary form of a download part: one WebSocket binary message (Docs/SyncProtocol.md,
/// "download"). Downloads carry the bulk of what a service sends (a first download is
/// every object of the subscribed classes), so they skip JSON: property names once per batch,
/// values in the outbox's binary value encoding, read without a parse tree.
///
/// ```
/// frame := "ODL" version:u8 (2) flags:u8 [string(checkpoint)] [varint(includesSequence)]
///          varint(b) batch^b
/// flags := bit 0 isReset, bit 1 isFinal, bit 2 checkpoint present, bit 3 includesSequence present
/// batch := string(class) varint(p) string(property)^p varint(r) row^r
/// row   := value(primary key) u8 (0: deleted, 1: present) [value^p when present]
/// ```
///
/// Strings are a varint length and UTF-8; varints are LEB128; a value is the outbox's value
/// encoding (tag byte, then its payload).
public enum DownloadFrame {
    /// The first bytes of every download frame: "ODL".
    static let magic: [UInt8] = [0x4F, 0x44, 0x4C]

    /// The bytes of a download part.
    ///
    /// - Complexity: O(*n*) in the size of the part.
    public static func encode(_ part: ServerMessage.Download) -> [UInt8] {
        var out = magic
        out.append(UInt8(SyncProtocol.version))
        var flags: UInt8 = 0
        if part.isReset { flags |= 1 }
        if part.isFinal { flags |= 2 }
        if part.checkpoint != nil { flags |= 4 }
        if part.includesSequence != nil { flags |= 8 }
        out.append(flags)
        if let checkpoint = part.checkpoint { SyncValueBytes.append(checkpoint, to: &out) }
        if let sequence = part.includesSequence { SyncValueBytes.append(varint: sequence, to: &out) }
        SyncValueBytes.append(varint: UInt64(part.batches.count), to: &out)
        for batch in part.batches {
            SyncValueBytes.append(batch.className, to: &out)
            SyncValueBytes.append(varint: UInt64(batch.propertyNames.count), to: &out)
            for name in batch.propertyNames { SyncValueBytes.append(name, to: &out) }
            SyncValueBytes.append(varint: UInt64(batch.rows.count), to: &out)
            for row in batch.rows {
                SyncValueBytes.append(row.primaryKey, to: &out)
                guard let values = row.values else {
                    out.append(0)
                    continue
                }
                out.append(1)
                for value in values { SyncValueBytes.append(value, to: &out) }
            }
        }
        return out
    }

    /// Reads a download part; throws ``ObjDBError`` (`.invalidValue`, key `malformedMessage`,
    /// or `messageTooLarge`) naming the byte offset of what is wrong.
    public static func decode(_ bytes: [UInt8]) throws -> ServerMessage.Download {
        try FrameHeader.checkSize(bytes)
        return try bytes.withUnsafeBytes { raw in
            var reader = SyncValueReader(bytes: raw)
            func malformed(_ what: String) -> ObjDBError { FrameHeader.malformed("download", reader, what) }
            try FrameHeader.read(&reader, magic: magic, kind: "download")
            guard let flags = reader.byte(), flags & 0xF0 == 0 else { throw malformed("unknown flags") }
            var checkpoint: String?
            if flags & 4 != 0 {
                guard let text = reader.string() else { throw malformed("the checkpoint is cut or not UTF-8") }
                checkpoint = text
            }
            var includesSequence: UInt64?
            if flags & 8 != 0 {
                guard let sequence = reader.varint() else { throw malformed("the included sequence is cut") }
                includesSequence = sequence
            }
            guard let batchCount = reader.count() else { throw malformed("the batch count is cut") }
            var batches: [SyncObjectBatch] = []
            var rowsInFrame = 0
            for _ in 0..<batchCount {
                guard let className = reader.string() else { throw malformed("a class name is cut or not UTF-8") }
                guard let propertyCount = reader.count() else { throw malformed("a property count is cut") }
                var names: [String] = []
                names.reserveCapacity(propertyCount)
                for _ in 0..<propertyCount {
                    guard let name = reader.string() else { throw malformed("a property name is cut or not UTF-8") }
                    names.append(name)
                }
                guard Set(names).count == names.count else { throw malformed("a property of '\(className)' is named twice") }
                // Each row takes at least two bytes: a count past what is left is refused by count().
                guard let rowCount = reader.count() else { throw malformed("a row count is cut") }
                rowsInFrame += rowCount
                guard rowsInFrame <= SyncLimits.maxChangesPerMessage else {
                    throw malformed("a part holds at most \(SyncLimits.maxChangesPerMessage) objects")
                }
                var rows: [SyncObjectBatch.Row] = []
                rows.reserveCapacity(rowCount)
                for _ in 0..<rowCount {
                    guard let primaryKey = reader.value() else { throw malformed("a primary key is cut or of an unknown type") }
                    switch reader.byte() {
                    case 0:
                        rows.append(SyncObjectBatch.Row(primaryKey: primaryKey, values: nil))
                    case 1:
                        var values: [SyncValue] = []
                        values.reserveCapacity(propertyCount)
                        for _ in 0..<propertyCount {
                            guard let value = reader.value() else { throw malformed("a value of '\(className)' is cut or of an unknown type") }
                            values.append(value)
                        }
                        rows.append(SyncObjectBatch.Row(primaryKey: primaryKey, values: values))
                    default:
                        throw malformed("a row's presence byte is neither 0 nor 1")
                    }
                }
                batches.append(SyncObjectBatch(className: className, propertyNames: names, rows: rows))
            }
            guard reader.isAtEnd else { throw malformed("bytes follow the last batch") }
            return ServerMessage.Download(
                isReset: flags & 1 != 0, batches: batches, isFinal: flags & 2 != 0, checkpoint: checkpoint, includesSequence: includesSequence)
        }
    }
}
