import Foundation

extension PredicateBinder {
    /// `value` as a constant compared with a mixed property: each constant keeps its own type,
    /// as realm-core's `Mixed` does (numbers compare across types, strings with data by their
    /// bytes, UUIDs and ObjectIds only with their own type). `nil` for a value a mixed property
    /// cannot hold (an object).
    static func mixedComparand(_ value: QueryValue, options: QueryStringOptions) -> Comparand? {
        switch value {
        case .null: return .null
        case .bool(let v): return .bool(v)
        case .int(let v): return .int(v)
        case .double(let v): return .double(v)
        case .decimal(let v): return .decimal(v)
        case .string(let v): return .bytes(Array((options.isEmpty ? v : QueryText.fold(v, options)).utf8))
        case .data(let v) where options.isEmpty: return .bytes(Array(v))
        case .data(let v): return .bytes(Array(QueryText.fold(String(decoding: v, as: UTF8.self), options).utf8))
        case .date(let v): return .date(v.timeIntervalSinceReferenceDate)
        case .uuid(let v): return .tagged(.uuid, withUnsafeBytes(of: v.uuid) { Array($0) })
        case .objectId(let v): return .tagged(.objectId, v.bytes)
        case .object: return nil
        }
    }
}

extension QueryValue {
    /// The constant a mixed value is (`none` is nil, a float a double).
    init(mixed value: MixedValue) {
        switch value {
        case .none: self = .null
        case .int(let v): self = .int(Int64(v))
        case .bool(let v): self = .bool(v)
        case .float(let v): self = .double(Double(v))
        case .double(let v): self = .double(v)
        case .string(let v): self = .string(v)
        case .data(let v): self = .data(v)
        case .date(let v): self = .date(v)
        case .objectId(let v): self = .objectId(v)
        case .decimal(let v): self = .decimal(v)
        case .uuid(let v): self = .uuid(v)
        }
    }
}
