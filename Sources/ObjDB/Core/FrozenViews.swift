/// What a live ``Database`` instance shares with the frozen views of its current version, while
/// anything frozen uses them (both weak): ``Database/freeze()`` returns the same view again for
/// the same version, and everything frozen at one version pins it once.
struct FrozenViews {
    /// The frozen view of the current version.
    weak var view: Database?
    /// The pinned form of the current version.
    weak var version: FrozenVersion?
}
