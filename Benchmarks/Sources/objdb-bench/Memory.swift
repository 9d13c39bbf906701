import Foundation
import ObjDB

/// The `--memory` run: ObjDB reads 1M objects in a fresh child process that reports its memory.
enum MemoryRun {
    /// What a child process measured (all in KiB).
    struct Measurement {
        /// Objects read.
        var count = 0
        /// `ru_maxrss` after opening, before reading.
        var maxRSSBefore = 0
        /// `ru_maxrss` after reading.
        var maxRSSAfter = 0
        /// `VmHWM` (peak RSS of this address space) after opening, before reading.
        var hwmBefore = 0
        /// `VmHWM` after reading.
        var hwmAfter = 0
        /// Anonymous (heap) resident memory before reading.
        var anonBefore = 0
        /// Anonymous (heap) resident memory after reading.
        var anonAfter = 0
        /// File-backed resident memory (binary, libraries, mapped database) before reading.
        var fileBefore = 0
        /// File-backed resident memory (mostly the memory-mapped database) after reading.
        var fileAfter = 0
    }

    /// The reading modes of the child: iterate and drop each object, or keep every object.
    static let modes = ["iterate", "retain"]

    /// Writes `n` objects with ObjDB in one child process, then reads them in one fresh child
    /// process per mode, and tabulates what the readers measured.
    ///
    /// The database is written by a child so that this process stays small: a spawned child
    /// starts with its parent's peak RSS as its `ru_maxrss` (Linux keeps it across `execve`).
    static func run(n: Int) throws -> String {
        let directory = try TempDirectory()
        defer { directory.remove() }
        progress("memory: writing \(formatCount(n)) objects in a child process")
        let written = try spawnChild(["create", directory.path, "\(n)"])
        guard written.count == n else { throw CheckFailure(description: "memory: wrote \(written.count) objects, expected \(n)") }
        let file = ObjDBSystem.configuration(directory: directory.path).fileURL?.path ?? ""
        let fileSize = ((try? FileManager.default.attributesOfItem(atPath: file)[.size]) as? Int) ?? 0
        var table = MarkdownTable(headers: [
            "ObjDB, read all \(formatCount(n)) in a fresh process", "objects", "ru_maxrss before", "ru_maxrss after",
            "VmHWM before", "VmHWM after", "RssAnon before", "RssAnon after", "RssFile before", "RssFile after",
        ])
        for mode in modes {
            let result = try spawnChild([mode, directory.path])
            guard result.count == n else {
                throw CheckFailure(description: "memory child \(mode) read \(result.count) objects, expected \(n)")
            }
            let label = mode == "iterate" ? "`for p in db.objects(Person.self)`, touch all" : "same, appending each object to an array"
            table.append([
                label, "\(result.count)", mib(result.maxRSSBefore), mib(result.maxRSSAfter), mib(result.hwmBefore),
                mib(result.hwmAfter), mib(result.anonBefore), mib(result.anonAfter), mib(result.fileBefore),
                mib(result.fileAfter),
            ])
            progress("memory \(mode): ru_maxrss \(mib(result.maxRSSBefore)) → \(mib(result.maxRSSAfter)), VmHWM \(mib(result.hwmBefore)) → \(mib(result.hwmAfter))")
        }
        return table.render() + "\n\nAll values in MiB. Database file: \(fixed(Double(fileSize) / 1_048_576, 1)) MiB."
    }

    /// KiB as MiB with one decimal.
    private static func mib(_ kib: Int) -> String { fixed(Double(kib) / 1024, 1) }

    /// Runs this executable with the hidden `--memory-child` flag and parses its report.
    private static func spawnChild(_ arguments: [String]) throws -> Measurement {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath())
        process.arguments = ["--memory-child"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CheckFailure(description: "memory child \(arguments[0]) exited with \(process.terminationStatus)")
        }
        var result = Measurement()
        for field in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace) {
            let parts = field.split(separator: "=")
            guard parts.count == 2, let value = Int(parts[1]) else { continue }
            switch parts[0] {
            case "count": result.count = value
            case "maxrss_before_kb": result.maxRSSBefore = value
            case "maxrss_after_kb": result.maxRSSAfter = value
            case "hwm_before_kb": result.hwmBefore = value
            case "hwm_after_kb": result.hwmAfter = value
            case "anon_before_kb": result.anonBefore = value
            case "anon_after_kb": result.anonAfter = value
            case "file_before_kb": result.fileBefore = value
            case "file_after_kb": result.fileAfter = value
            default: break
            }
        }
        return result
    }

    /// The path of the running executable.
    private static func executablePath() -> String {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }

    /// The child side: `create DIR N` writes the database; `iterate DIR` and `retain DIR` open it,
    /// read every object and print the measurements.
    static func child(_ arguments: [String]) throws {
        guard arguments.count >= 2 else { throw CheckFailure(description: "--memory-child MODE DIR [N]") }
        let (mode, directory) = (arguments[0], arguments[1])
        if mode == "create" {
            let n = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 0
            let writer = try ObjDBSystem(directory: directory, create: true)
            try writer.insert(Dataset.people(count: n))
            writer.close()
            print("count=\(n)")
            return
        }
        let db = try Database(configuration: ObjDBSystem.configuration(directory: directory))
        let people = db.objects(ObjDBPerson.self)
        _ = people.count
        let maxBefore = peakRSS()
        let before = procStatus()
        var sum = Checksum()
        var kept: [ObjDBPerson] = []
        for person in people {
            sum.add(id: person.id, name: person.name, age: person.age, score: person.score, created: person.created)
            if mode == "retain" { kept.append(person) }
        }
        let maxAfter = peakRSS()
        let status = procStatus()
        withExtendedLifetime(kept) {
            print(
                "count=\(sum.count) maxrss_before_kb=\(maxBefore) maxrss_after_kb=\(maxAfter)",
                "hwm_before_kb=\(before["VmHWM"] ?? 0) hwm_after_kb=\(status["VmHWM"] ?? 0)",
                "anon_before_kb=\(before["RssAnon"] ?? 0) anon_after_kb=\(status["RssAnon"] ?? 0)",
                "file_before_kb=\(before["RssFile"] ?? 0) file_after_kb=\(status["RssFile"] ?? 0)")
        }
    }

    /// `ru_maxrss`: the peak resident set size so far, in KiB on Linux.
    private static func peakRSS() -> Int {
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Int(usage.ru_maxrss)
        #else
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss) / 1024
        #endif
    }

    /// The `kB` fields of `/proc/self/status` (empty where there is none).
    private static func procStatus() -> [String: Int] {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return [:] }
        var fields: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == ":" || $0.isWhitespace })
            if parts.count >= 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
        }
        return fields
    }
}
