import ObjDB

/// The binary form of an upload: one WebSocket binary message (Docs/SyncProtocol.md, "upload").
/// Each operation travels as the entry the file's outbox keeps, so a client sends its outbox
/// without decoding it, and the service reads it without a parse tree.
///
/// ```
/// frame := "OUL" version:u8 (2) varint(n) (varint(sequence) varint(length) entry)^n
/// entry := the outbox entry of the operation (Docs/FileFormat.md, "The outbox")
/// ```
public enum UploadFrame {
    /// The first bytes of every upload frame: "OUL".
    static let magic: [UInt8] = [0x4F, 0x55, 0x4C]

    /// The bytes of an upload of `operations`.
    public static func encode(_ operations: [SyncOperation]) -> [UInt8] {
        frame(operations.map { (sequence: $0.sequence, bytes: SyncOperationBytes.encode($0)) })
    }

    /// The bytes of an upload of a file's outbox entries, as stored.
    package static func encode(entries: [SyncOutboxEntry]) -> [UInt8] {
        frame(entries.map { (sequence: $0.sequence, bytes: $0.bytes) })
    }

    private static func frame(_ entries: [(sequence: UInt64, bytes: [UInt8])]) -> [UInt8] {
        var out = magic
        out.reserveCapacity(entries.reduce(8) { $0 + $1.bytes.count + 12 })
        out.append(UInt8(SyncProtocol.version))
        SyncValueBytes.append(varint: UInt64(entries.count), to: &out)
        for entry in entries {
            SyncValueBytes.append(varint: entry.sequence, to: &out)
            SyncValueBytes.append(varint: UInt64(entry.bytes.count), to: &out)
            out.append(contentsOf: entry.bytes)
        }
        return out
    }

    /// Reads an upload; throws ``ObjDBError`` (`.invalidValue`, key `malformedMessage`,
    /// `messageTooLarge`, `protocolViolation` for more than ``SyncLimits/maxOperationsPerUpload``
    /// operations, or `unsupportedProtocolVersion`) naming what is wrong.
    public static func decode(_ bytes: [UInt8]) throws -> [SyncOperation] {
        try FrameHeader.checkSize(bytes)
        return try bytes.withUnsafeBytes { raw in
            var reader = SyncValueReader(bytes: raw)
            func malformed(_ what: String) -> ObjDBError { FrameHeader.malformed("upload", reader, what) }
            try FrameHeader.read(&reader, magic: magic, kind: "upload")
            guard let count = reader.count() else { throw malformed("the operation count is cut") }
            guard count <= SyncLimits.maxOperationsPerUpload else {
                throw ObjDBError(
                    .invalidValue, "An upload holds at most \(SyncLimits.maxOperationsPerUpload) operations, not \(count)",
                    key: SyncErrorCode.protocolViolation)
            }
            var operations: [SyncOperation] = []
            operations.reserveCapacity(count)
            for _ in 0..<count {
                guard let sequence = reader.varint() else { throw malformed("a sequence is cut") }
                guard let length = reader.count(), let entry = reader.take(length) else { throw malformed("the entry of operation \(sequence) is cut") }
                // The entry is the outbox's: one of another version is another protocol.
                if let version = entry.first, version != SyncOperationBytes.entryVersion {
                    throw ObjDBError(
                        .invalidValue, "Upload entry of version \(version); this peer reads version \(SyncOperationBytes.entryVersion)",
                        key: SyncErrorCode.unsupportedProtocolVersion)
                }
                do {
                    operations.append(try SyncOperationBytes.decode(entry, sequence: sequence))
                } catch let error as ObjDBError {
                    throw malformed(error.message)
                }
            }
            guard reader.isAtEnd else { throw malformed("bytes follow the last operation") }
            return operations
        }
    }
}
