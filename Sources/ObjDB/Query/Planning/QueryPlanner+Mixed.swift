extension QueryPlanner {
    /// The index keys under which a mixed property's index holds the values equal to
    /// `comparand`: one per stored form of an equal value (zero as `0.0` or `-0.0` for a date;
    /// a string and data are apart). `nil` for a number, which equals numbers of
    /// every type in several encodings (`1`, `1.0`, a float, a decimal): those are scanned.
    static func mixedKeys(_ comparand: Comparand) -> [[UInt8]]? {
        var stored: [[UInt8]]
        switch comparand {
        case .null:
            return [[KeyEncoding.nullTag]]
        case .bool(let v):
            stored = [[MixedFormat.Tag.bool.rawValue, v ? 1 : 0]]
        case .date(let v):
            guard !v.isNaN else { return [] }  // NaN equals nothing
            stored = (v == 0 ? [0.0, -0.0] : [v]).map { seconds in
                var bytes = [MixedFormat.Tag.date.rawValue]
                ColumnCodec.appendDouble(seconds, to: &bytes)
                return bytes
            }
        case .bytes(let v):
            stored = [[MixedFormat.Tag.string.rawValue] + v]
        case .tagged(let tag, let v):
            stored = [[tag.rawValue] + v]
        case .int, .double, .decimal, .object:
            return nil
        }
        var keys: [[UInt8]] = []
        for bytes in stored {
            var key: [UInt8] = []
            if bytes.withUnsafeBytes({ KeyEncoding.append(.value($0), kind: .bytes, to: &key) }) { keys.append(key) }
        }
        return keys
    }
}
