import Observation

/// One object for a view: a frozen copy of it, replaced on the main actor after every commit
/// that changes it, and `nil` once it is deleted. `@Observable`.
///
/// ```swift
/// @MainActor let one = LiveObject(todo)
/// one.object?.title              // frozen: reads the version of the last change, never fails
/// try db.write { db.delete(todo) }
/// one.object                     // nil
/// ```
///
/// A view reads ``object`` — a frozen object, whose row stays readable for as long as it is
/// held — so a view still on screen after the deletion reads the last version it was given,
/// and its next update reads `nil`. Nothing it does can touch a deleted row. Write through the
/// live object: `object?.thaw()` inside a write (`nil` if it was deleted meanwhile).
///
/// The object's database must belong to the main actor. See Docs/SwiftUI.md.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor @Observable
public final class LiveObject<Element: Object> {
    /// The object, frozen at the version of its last change; `nil` once it was deleted (or if
    /// it was deleted before this was created).
    public private(set) var object: Element?

    /// Why the object stopped updating, if it did; ``object`` then stays as it was.
    public private(set) var error: (any Error)?

    /// The notification token; released with this object, or when the object is deleted.
    @ObservationIgnored private var token: NotificationToken?

    /// Follows `object`: a managed object of the main actor's database, or a frozen one (it is
    /// thawed there first). An object deleted already gives `nil` at once; an unmanaged object
    /// is a programmer error.
    ///
    /// ```swift
    /// let detail = LiveObject(list.snapshot[3])    // a row of a LiveResults
    /// ```
    public init(_ object: Element) {
        objdbPrecondition(
            object._objdbDatabase != nil,
            "LiveObject was given an unmanaged \(Element.className); add it to a database first")
        guard let live = object.isFrozen ? object.thaw() : object, !live.isInvalidated else {
            self.object = nil
            return
        }
        objdbPrecondition(
            live._objdbDatabase?.isInWriteTransaction != true,
            "LiveObject was created inside a write transaction, whose uncommitted changes belong to no version; create it after the commit")
        self.object = live.freeze()
        token = live.observe { [weak self] change in
            self?.receive(change)
        }
    }

    /// Takes a change delivered on the main actor.
    private func receive(_ change: ObjectChange<Element>) {
        switch change {
        case .change(let live, _):
            // Inside a write another callback began, the change belongs to no version yet; the
            // commit delivers again.
            guard live._objdbDatabase?.isInWriteTransaction != true, !live.isInvalidated else { return }
            object = live.freeze()
        case .deleted:
            object = nil
            token = nil
        case .error(let error):
            self.error = error
            token = nil
        }
    }
}
