extension ClassInfo {
    /// The key path of the value property at `column`, bound before (``queryPaths``): paths
    /// depend on the stored class alone, and a query binds its paths again for every `where`.
    func boundPath(column: Int) -> BoundPath? {
        queryPaths[column].map { unsafeDowncast($0, to: BoundPath.self) }
    }

    /// Keeps `path` for the value property at `column`. Information that frozen instances share
    /// across threads (``isShared``) keeps nothing: it only reads the paths its live original
    /// had bound when it was copied.
    func keep(_ path: BoundPath, column: Int) {
        guard !isShared else { return }
        queryPaths[column] = path
    }
}
