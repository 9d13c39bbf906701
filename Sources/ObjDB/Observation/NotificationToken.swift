import Foundation

/// Keeps an observation alive: notifications stop when you call ``invalidate()`` or release
/// the token.
///
/// ```swift
/// var token: NotificationToken? = people.observe { change in … }
/// token = nil   // or token?.invalidate()
/// ```
///
/// `invalidate()` may be called from any thread. A call in progress finishes; none starts
/// after `invalidate()` returns on the thread that delivers the notifications.
public final class NotificationToken: @unchecked Sendable {
    /// The observer's cancellation state.
    let control: ObserverControl
    private let lock = NSLock()
    private var onInvalidate: (@Sendable () -> Void)?

    init(control: ObserverControl, onInvalidate: (@Sendable () -> Void)? = nil) {
        self.control = control
        self.onInvalidate = onInvalidate
    }

    /// Stops the observation. Calling it again does nothing.
    public func invalidate() {
        control.cancel()
        let action = lock.withLock {
            defer { onInvalidate = nil }
            return onInvalidate
        }
        action?()
    }

    /// Whether ``invalidate()`` was called.
    public var isInvalidated: Bool { control.isCancelled }

    deinit { invalidate() }
}
