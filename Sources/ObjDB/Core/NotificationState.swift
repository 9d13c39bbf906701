import Foundation

/// How a live ``Database`` instance delivers notifications: its observers, whether a delivery
/// moves it to the newest version, and where deliveries run.
///
/// The instance does not know what its observers are: Observation's `ObservationCenter`
/// installs itself here through ``InstanceObservers`` at the first `observe`.
struct NotificationState {
    /// The observers of this instance, created by the first `observe`: told of this instance's
    /// commits and refreshes.
    var observers: (any InstanceObservers)?
    /// Whether deliveries move the database to new versions by themselves (``Database/autorefresh``).
    var refreshesAutomatically = true
    /// Where notifications run between the owner's calls: the main queue for a database opened
    /// by main-actor code, the queue of `observe(on:)` for the database it opens there.
    var queue: DispatchQueue?
    /// The actor that opened the database, other than the main actor: notifications of other
    /// instances' commits are delivered on it. Weak: the actor usually owns the database.
    weak var actor: (any Actor)?
}
