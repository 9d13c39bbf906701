import Foundation

/// Buffered writes to standard output: one system call per 64 KiB instead of per line.
final class OutputWriter {
    private var buffer = Data()
    private let handle = FileHandle.standardOutput

    init() { buffer.reserveCapacity(1 << 16) }

    /// Appends `line` and a newline.
    func line(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Appends `bytes` (UTF-8) and a newline.
    func line(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Writes what is buffered.
    func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}
