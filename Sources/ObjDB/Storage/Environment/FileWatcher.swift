import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Calls a block when a file is written, without polling: on Linux a thread sleeps in `poll`
/// on an inotify descriptor (`IN_MODIFY`); on Apple platforms a dispatch source watches the
/// file (`kqueue`). Elsewhere there is no watcher (`init` returns `nil`) and commits by other
/// processes are seen at `refresh()`.
///
/// When inotify cannot watch the file (the per-user limit of inotify instances or watches is
/// reached, a file system without inotify), the thread calls the block every
/// ``fallbackInterval`` instead, and ``fallbackReason`` says why: other processes' commits then
/// arrive up to that much later, at the cost of a few microseconds per call.
///
/// Every commit writes the file (its pages, then its meta page), so each commit by any process
/// wakes the watcher at least once; the block then reads the newest version, and several
/// wake-ups for one commit announce it once (``ChangeNotifier/announce(_:)``).
final class FileWatcher: @unchecked Sendable {
    /// How often the block runs when inotify is not available: milliseconds.
    static let fallbackInterval: Int32 = 50
    /// Why the watcher calls the block at ``fallbackInterval`` instead of on writes; `nil` when
    /// it watches the file.
    let fallbackReason: String?

    #if os(Linux)
    #if OBJDB_INTERNAL_CHECKS
    /// Tests only: the files for which inotify fails as when the per-user limit of instances is
    /// reached.
    static let unwatchableForTesting = UnwatchableFiles()

    /// A set of paths any thread may change.
    final class UnwatchableFiles: @unchecked Sendable {
        private let lock = NSLock()
        private var paths: Set<String> = []
        func insert(_ path: String) { lock.withLock { _ = paths.insert(path) } }
        func remove(_ path: String) { lock.withLock { _ = paths.remove(path) } }
        func contains(_ path: String) -> Bool { lock.withLock { paths.contains(path) } }
    }
    #endif

    /// Written to stop the thread.
    private let wakeWrite: Int32

    init?(path: String, onChange: @escaping @Sendable () -> Void) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        wakeWrite = ends[1]
        let (inotify, failure) = Self.watch(path)
        fallbackReason = failure
        let watched = (inotify: inotify, wake: ends[0])
        let thread = Thread {
            Self.run(inotify: watched.inotify, wake: watched.wake, onChange: onChange)
        }
        thread.name = "ObjDB change watcher"
        thread.start()
    }

    /// An inotify descriptor watching `path` for writes, or -1 and why there is none.
    private static func watch(_ path: String) -> (descriptor: Int32, failure: String?) {
        #if OBJDB_INTERNAL_CHECKS
        if unwatchableForTesting.contains(path) { return (-1, "inotify_init1: \(String(cString: strerror(EMFILE)))") }
        #endif
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { return (-1, "inotify_init1: \(String(cString: strerror(errno)))") }
        guard inotify_add_watch(descriptor, path, UInt32(IN_MODIFY)) >= 0 else {
            let failure = "inotify_add_watch: \(String(cString: strerror(errno)))"
            close(descriptor)
            return (-1, failure)
        }
        return (descriptor, nil)
    }

    /// The thread's loop: sleep until the file is written or ``stop()`` writes to the pipe;
    /// without an inotify descriptor, wake every ``fallbackInterval``.
    private static func run(inotify: Int32, wake: Int32, onChange: @Sendable () -> Void) {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var descriptors = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0), pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)]
        let watching = inotify >= 0
        while true {
            let ready = poll(&descriptors, watching ? 2 : 1, watching ? -1 : fallbackInterval)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if descriptors[0].revents != 0 { break }
            if !watching {
                onChange()
            } else if descriptors[1].revents != 0 {
                // The events say only "written"; drain them and look at the newest version.
                _ = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
                onChange()
            }
        }
        if watching { close(inotify) }
        close(wake)
    }

    /// Stops the watcher; its thread ends soon after.
    func stop() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        close(wakeWrite)
    }
    #elseif canImport(Darwin)
    private let source: DispatchSourceFileSystemObject

    init?(path: String, onChange: @escaping @Sendable () -> Void) {
        let descriptor = open(path, O_EVTONLY)
        guard descriptor >= 0 else { return nil }
        fallbackReason = nil
        source = DispatchSource.makeFileSystemObjectSource(
            fileDescriptor: descriptor, eventMask: [.write, .extend], queue: DispatchQueue(label: "ObjDB change watcher"))
        source.setEventHandler(handler: onChange)
        source.setCancelHandler { close(descriptor) }
        source.resume()
    }

    /// Stops the watcher.
    func stop() { source.cancel() }
    #else
    init?(path: String, onChange: @escaping @Sendable () -> Void) { return nil }

    func stop() {}
    #endif
}
