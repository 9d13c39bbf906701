/// What a ``Database`` instance tells the observers registered on it (Observation's
/// `ObservationCenter`) of its own versions, and asks of them: declared here so that the
/// instance calls up without knowing the layer that listens.
protocol InstanceObservers: AnyObject {
    /// Whether any observer is registered.
    var isEmpty: Bool { get }
    /// Whether observers are being called now (a delivery point reached from a callback waits).
    var isDelivering: Bool { get }
    /// The observers that skip the commit in progress (`write(withoutNotifying:)`).
    var skipping: Set<ObjectIdentifier> { get set }
    /// This instance committed `version`, which made `changes`.
    func didCommit(_ changes: ChangeSet, version: UInt64)
    /// ``Database/refresh()`` moved the instance to a newer version.
    func didRefresh()
    /// ``Database/refresh()`` found the instance at the newest version: observers that saw an
    /// older one are told now, those waiting for their first call get it.
    func catchUpIfBehind()
}
