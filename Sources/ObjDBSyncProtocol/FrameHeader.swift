import ObjDB

/// What every binary frame of the protocol starts with, and its size limit: three magic bytes
/// naming the frame ("ODL", "OUL"), then the protocol version.
enum FrameHeader {
    /// Throws `messageTooLarge` for bytes past ``SyncLimits/maxMessageBytes``.
    static func checkSize(_ bytes: [UInt8]) throws {
        guard bytes.count <= SyncLimits.maxMessageBytes else {
            throw ObjDBError(
                .invalidValue, "Sync message of \(bytes.count) bytes exceeds \(SyncLimits.maxMessageBytes)", key: SyncErrorCode.messageTooLarge)
        }
    }

    /// The error for a malformed `kind` frame ("download", "upload") at the reader's offset.
    static func malformed(_ kind: String, _ reader: SyncValueReader, _ what: String) -> ObjDBError {
        SyncValueJSON.malformed("\(kind) frame, byte \(reader.offset): \(what)")
    }

    /// Reads the magic bytes and the version: `malformedMessage` for other bytes,
    /// `unsupportedProtocolVersion` for another version.
    static func read(_ reader: inout SyncValueReader, magic: [UInt8], kind: String) throws {
        for byte in magic {
            guard reader.byte() == byte else {
                throw malformed(kind, reader, "not a \(kind) frame (it must start with \"\(String(decoding: magic, as: UTF8.self))\")")
            }
        }
        guard let version = reader.byte() else { throw malformed(kind, reader, "the version is missing") }
        guard Int(version) == SyncProtocol.version else {
            throw ObjDBError(
                .invalidValue, "\(kind.prefix(1).uppercased() + kind.dropFirst()) frame of protocol version \(version); this peer speaks \(SyncProtocol.version)",
                key: SyncErrorCode.unsupportedProtocolVersion)
        }
    }
}
