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
/// Every commit writes the file (its pages, then its meta page), so each commit by any process
/// wakes the watcher at least once; the block then reads the newest version, and several
/// wake-ups for one commit announce it once (``ChangeNotifier/announce(_:)``).
final class FileWatcher: @unchecked Sendable {
    #if os(Linux)
    /// Written to stop the thread.
    private let wakeWrite: Int32

    init?(path: String, onChange: @escaping @Sendable () -> Void) {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        guard inotify_add_watch(descriptor, path, UInt32(IN_MODIFY)) >= 0 else {
            close(descriptor)
            return nil
        }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            close(descriptor)
            return nil
        }
        wakeWrite = ends[1]
        let watched = (inotify: descriptor, wake: ends[0])
        let thread = Thread {
            Self.run(inotify: watched.inotify, wake: watched.wake, onChange: onChange)
        }
        thread.name = "ObjDB change watcher"
        thread.start()
    }

    /// The thread's loop: sleep until the file is written or ``stop()`` writes to the pipe.
    private static func run(inotify: Int32, wake: Int32, onChange: @Sendable () -> Void) {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var descriptors = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if descriptors[1].revents != 0 { break }
            if descriptors[0].revents != 0 {
                // The events say only "written"; drain them and look at the newest version.
                _ = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
                onChange()
            }
        }
        close(inotify)
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
