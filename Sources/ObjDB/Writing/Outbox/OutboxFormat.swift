import Foundation

/// The bytes of one entry of the `outbox` table (a ``SyncOperation``), and of the values the
/// `sync` table keeps (see `Docs/FileFormat.md`, "The outbox").
///
/// ```
/// entry  := version:u8 (1)  kind:u8 (0 create, 1 update, 2 delete)  string(class)  value(primary key)
///           entries(values)  varint(n) (string(name) varint(m) value^m)^n      list appends
/// value  := 0 | 1 u8 | 2 i64 | 3 f32 | 4 f64 | 5 string | 6 bytes | 7 f64 (seconds since 2001)
///         | 8 string (decimal) | 9 16 bytes | 10 12 bytes | 11 value (link)
///         | 12 varint(n) value^n (list) | 13 entries (map) | 14 entries (embedded object)
/// entries:= varint(n) (string(key) value)^n        keys ascending
/// string := varint(length) UTF-8      bytes := varint(length) bytes
/// ```
///
/// Numbers are little-endian; floating-point values keep their bit patterns (NaN, ±∞, −0).
/// Varints are LEB128, as in the change log.
enum OutboxFormat {
    /// Whether `text` is a whole decimal number as `Decimal.description` writes one (`-12.5`,
    /// `1E-7`), or `NaN`.
    static func isDecimalText(_ text: String) -> Bool {
        if text == "NaN" { return true }
        var bytes = Substring(text).utf8[...]
        func digits() -> Int {
            let before = bytes.count
            while let c = bytes.first, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") { bytes = bytes.dropFirst() }
            return before - bytes.count
        }
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        var count = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            count += digits()
        }
        guard count > 0 else { return false }
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }

    /// The version byte of entries this build writes and reads.
    static let version: UInt8 = 1
    /// How deep embedded objects may nest in a synced value (refused at the commit beyond).
    static let maxEmbeddedDepth = 64
    /// Nesting depth past which a value is refused as damaged: embedded objects as deep as
    /// ``maxEmbeddedDepth``, holding mixed values nested as deep as ``MixedFormat/maxDepth``,
    /// and the levels of an entry around them.
    static let maxDepth = maxEmbeddedDepth + MixedFormat.maxDepth + 8

    // MARK: Writing

    /// The entry of `operation` (its sequence is the table's key, not part of the entry).
    static func encode(_ operation: SyncOperation) -> [UInt8] {
        var out: [UInt8] = [version, kindByte(operation.kind)]
        appendString(operation.className, to: &out)
        append(operation.primaryKey, to: &out)
        appendEntries(operation.values, to: &out)
        let appends = operation.listAppends.sorted { $0.key < $1.key }
        VarintBytes.append(UInt64(appends.count), to: &out)
        for (name, elements) in appends {
            appendString(name, to: &out)
            VarintBytes.append(UInt64(elements.count), to: &out)
            for element in elements { append(element, to: &out) }
        }
        return out
    }

    /// The bytes of one value.
    static func encode(_ value: SyncValue) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    private static func kindByte(_ kind: SyncOperation.Kind) -> UInt8 {
        switch kind {
        case .create: 0
        case .update: 1
        case .delete: 2
        }
    }

    static func append(_ value: SyncValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(0)
        case .bool(let v): out.append(1); out.append(v ? 1 : 0)
        case .int(let v): out.append(2); appendLittleEndian(UInt64(bitPattern: v), to: &out)
        case .float(let v): out.append(3); appendLittleEndian(v.bitPattern, to: &out)
        case .double(let v): out.append(4); appendLittleEndian(v.bitPattern, to: &out)
        case .string(let v): out.append(5); appendString(v, to: &out)
        case .data(let v): out.append(6); appendBytes(v, to: &out)
        case .date(let v): out.append(7); appendLittleEndian(v.timeIntervalSinceReferenceDate.bitPattern, to: &out)
        case .decimal(let v): out.append(8); appendString(v.description, to: &out)
        case .uuid(let v): out.append(9); withUnsafeBytes(of: v.uuid) { out.append(contentsOf: $0) }
        case .objectId(let v): out.append(10); out.append(contentsOf: v.bytes)
        case .link(let v): out.append(11); append(v, to: &out)
        case .list(let v):
            out.append(12)
            VarintBytes.append(UInt64(v.count), to: &out)
            for element in v { append(element, to: &out) }
        case .map(let v): out.append(13); appendEntries(v, to: &out)
        case .object(let v): out.append(14); appendEntries(v, to: &out)
        }
    }

    private static func appendEntries(_ entries: [String: SyncValue], to out: inout [UInt8]) {
        VarintBytes.append(UInt64(entries.count), to: &out)
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
            appendString(key, to: &out)
            append(value, to: &out)
        }
    }

    private static func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    static func appendString(_ string: String, to out: inout [UInt8]) {
        let utf8 = string.utf8
        VarintBytes.append(UInt64(utf8.count), to: &out)
        out.append(contentsOf: utf8)
    }

    private static func appendBytes(_ bytes: some Collection<UInt8>, to out: inout [UInt8]) {
        VarintBytes.append(UInt64(bytes.count), to: &out)
        out.append(contentsOf: bytes)
    }

    // MARK: Reading

    /// The operation of an entry whose key is `sequence`.
    ///
    /// - Throws: ``ObjDBError/Code/corruptFile`` for bytes that are not an entry.
    static func decode(_ bytes: UnsafeRawBufferPointer, sequence: UInt64, path: String?) throws -> SyncOperation {
        var reader = Reader(bytes: bytes)
        func damaged(_ what: String) -> ObjDBError {
            ObjDBError(.corruptFile, "The outbox entry \(sequence) is damaged: \(what)", path: path)
        }
        guard let version = reader.byte() else { throw damaged("it is empty") }
        guard version == Self.version else { throw damaged("its version is \(version), not \(Self.version)") }
        let kind: SyncOperation.Kind
        switch reader.byte() {
        case 0: kind = .create
        case 1: kind = .update
        case 2: kind = .delete
        case let other: throw damaged("its kind is \(other.map(String.init) ?? "missing")")
        }
        guard let className = reader.string() else { throw damaged("its class name is cut") }
        guard let primaryKey = reader.value(depth: 0) else { throw damaged("its primary key is cut or unknown") }
        guard let values = reader.entries(depth: 0) else { throw damaged("its values are cut or unknown") }
        guard let appendCount = reader.count() else { throw damaged("its list appends are cut") }
        var appends: [String: [SyncValue]] = [:]
        for _ in 0..<appendCount {
            guard let name = reader.string(), let count = reader.count() else { throw damaged("its list appends are cut") }
            var elements: [SyncValue] = []
            for _ in 0..<count {
                guard let element = reader.value(depth: 1) else { throw damaged("an appended element is cut or unknown") }
                elements.append(element)
            }
            appends[name] = elements
        }
        guard reader.isAtEnd else { throw damaged("\(bytes.count - reader.offset) bytes follow its end") }
        return SyncOperation(
            sequence: sequence, className: className, primaryKey: primaryKey, kind: kind, values: values, listAppends: appends)
    }

    /// The value in `bytes`, or `nil` if they are not exactly one value.
    static func decodeValue(_ bytes: UnsafeRawBufferPointer) -> SyncValue? {
        var reader = Reader(bytes: bytes)
        guard let value = reader.value(depth: 0), reader.isAtEnd else { return nil }
        return value
    }

    /// Reads values off bytes (``VarintReader``, with the reads of values below).
    private typealias Reader = VarintReader
}

extension VarintReader {
    /// A varint count or length, which never exceeds what is left to read.
    mutating func count() -> Int? {
        guard let value = varint(), value <= UInt64(bytes.count - offset) else { return nil }
        return Int(value)
    }

    mutating func word64() -> UInt64? {
        take(8).map { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
    }

    mutating func string() -> String? {
        guard let length = count(), let raw = take(length) else { return nil }
        return String(validatingUTF8Bytes: raw)
    }

    mutating func entries(depth: Int) -> [String: SyncValue]? {
        guard let count = count() else { return nil }
        var result: [String: SyncValue] = [:]
        result.reserveCapacity(count)
        for _ in 0..<count {
            guard let key = string(), let value = value(depth: depth + 1) else { return nil }
            result[key] = value
        }
        return result
    }

    mutating func value(depth: Int) -> SyncValue? {
        guard depth < OutboxFormat.maxDepth, let tag = byte() else { return nil }
        switch tag {
        case 0: return .null
        case 1:
            switch byte() {
            case 0: return .bool(false)
            case 1: return .bool(true)
            default: return nil
            }
        case 2: return word64().map { .int(Int64(bitPattern: $0)) }
        case 3: return take(4).map { .float(Float(bitPattern: UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)))) }
        case 4: return word64().map { .double(Double(bitPattern: $0)) }
        case 5: return string().map { .string($0) }
        case 6:
            guard let length = count(), let raw = take(length) else { return nil }
            return .data(Data(raw))
        case 7: return word64().map { .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0))) }
        case 8:
            // The whole text must be a decimal number: `Decimal(string:)` alone reads a prefix.
            guard let text = string(), OutboxFormat.isDecimalText(text) else { return nil }
            return Decimal(syncText: text).map { .decimal($0) }
        case 9:
            guard let raw = take(16) else { return nil }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: raw) }
            return .uuid(UUID(uuid: uuid))
        case 10: return take(12).flatMap { ObjectId(bytes: $0) }.map { .objectId($0) }
        case 11: return value(depth: depth + 1).map { .link($0) }
        case 12:
            guard let count = count() else { return nil }
            var elements: [SyncValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
            }
            return .list(elements)
        case 13: return entries(depth: depth).map { .map($0) }
        case 14: return entries(depth: depth).map { .object($0) }
        default: return nil
        }
    }
}
