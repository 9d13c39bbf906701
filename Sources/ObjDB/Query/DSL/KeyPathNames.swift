import Foundation

/// Turns Swift key paths of model classes into property names (`\Person.age` → `"age"`), for
/// `sorted(by:)`, aggregates and the `where { }` DSL.
///
/// A *probe* — an instance of the class with no database, whose wrappers hold their field
/// numbers instead of the "unmanaged" marker — is read through the key path. Reading a property
/// of it reaches ObjDB's managed-read path, which records the field number and returns the
/// property's default instead of touching a database. The result is cached per key path.
enum KeyPathNames {
    private static let cache = NameCache()

    /// The name of the property `keyPath` reads, or `nil` if it reads no `@Persisted` property
    /// (a computed property that reads none, or a key path through a link).
    static func name<Root: ObjectBase>(of keyPath: PartialKeyPath<Root>) -> String? {
        path(of: keyPath)?.first
    }

    /// The name of the property `keyPath` reads as a one-component key path (`["age"]`), kept
    /// with the name so that a `where { }` member on the root allocates no array.
    static func path<Root: ObjectBase>(of keyPath: PartialKeyPath<Root>) -> [String]? {
        if let path = cache.get(keyPath) { return path }
        // try?: a model class that cannot be described names no key path; the caller stops with a
        // message naming the key path.
        guard let layout = try? SchemaDiscovery.layout(of: Root.self) else { return nil }
        let probe = Root()
        probe._objdbGeneration = UnsafePointer(probeGeneration)
        probe._objdbRowGeneration = 0
        let base = probe._objdbBase
        for field in layout.fields { (base + field.columnWordOffset).storeBytes(of: field.index, as: Int.self) }
        _ = probe[keyPath: keyPath]
        let read = Int(probe._objdbKey) - 1
        // Put the wrappers back in the unmanaged state before the probe is released.
        for field in layout.fields { (base + field.columnWordOffset).storeBytes(of: -1, as: Int.self) }
        guard read >= 0 && read < layout.fields.count else { return nil }
        // A key path through an optional link (`\.owner?.id`) reads the link field, then goes on
        // into another object: its value is not the field's, and it names no property here.
        let valueType = type(of: keyPath).valueType
        let fieldType = layout.fields[read].valueType
        guard valueType == fieldType else { return nil }
        let path = [layout.fields[read].name]
        cache.put(keyPath, path)
        return path
    }

    /// The name of `keyPath`'s property; a key path that names none is a programmer error.
    static func require<Root: ObjectBase>(_ keyPath: PartialKeyPath<Root>, _ function: String) -> String {
        requirePath(keyPath, function)[0]
    }

    /// ``path(of:)``; a key path that names no property is a programmer error.
    static func requirePath<Root: ObjectBase>(_ keyPath: PartialKeyPath<Root>, _ function: String) -> [String] {
        guard let path = path(of: keyPath) else {
            objdbFatal("\(function): the key path does not name a @Persisted property of \(Root.className) (key paths through links are written as strings: \"owner.name\")")
        }
        return path
    }

    /// The generation probes compare against: never equal to their row generation (0).
    private nonisolated(unsafe) static let probeGeneration: UnsafeMutablePointer<UInt64> = {
        let cell = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        cell.initialize(to: 1)
        return cell
    }()
}

/// The process-wide cache of resolved key paths.
///
/// Hashing a key path walks its components; a key path literal evaluates to the same instance
/// every time, so instances seen before are found by identity first. The identity table keeps
/// its key paths alive (an identifier is never reused while its entry exists) and is emptied
/// when it grows past ``identityLimit``, for key paths built anew each time (`appending(path:)`).
private final class NameCache: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`: the run-time exclusivity checks would only repeat it.
    /// Each key path's property name, as a one-component path.
    @exclusivity(unchecked) private var names: [AnyKeyPath: [String]] = [:]
    @exclusivity(unchecked) private var byIdentity: [ObjectIdentifier: (keyPath: AnyKeyPath, path: [String])] = [:]
    private let identityLimit = 4096

    func get(_ keyPath: AnyKeyPath) -> [String]? {
        lock.withLock {
            if let known = byIdentity[ObjectIdentifier(keyPath)] { return known.path }
            guard let path = names[keyPath] else { return nil }
            remember(keyPath, path)
            return path
        }
    }

    func put(_ keyPath: AnyKeyPath, _ path: [String]) {
        lock.withLock {
            names[keyPath] = path
            remember(keyPath, path)
        }
    }

    private func remember(_ keyPath: AnyKeyPath, _ path: [String]) {
        if byIdentity.count >= identityLimit { byIdentity.removeAll(keepingCapacity: true) }
        byIdentity[ObjectIdentifier(keyPath)] = (keyPath, path)
    }
}
