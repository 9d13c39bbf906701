import Foundation
import Testing

/// The layers of `Sources/ObjDB` as Docs/Architecture.md's "Layers" section gives them: a folder
/// may use the types of its own layer and of the layers below, and the references upward that
/// remain are listed there. Reads the sources and the page; fails on any other reference upward,
/// on a listed one no longer made, and on a folder the page does not place.
@Suite struct LayeringTests {
    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A type reference from a folder to a folder of a higher layer.
    struct Upward: Hashable, CustomStringConvertible {
        let from: String
        let to: String
        let name: String
        var description: String { "\(from) → \(to) through \(name)" }
    }

    /// What the page says: the layer of each folder, and the references upward it allows.
    struct Rules {
        var layer: [String: Int] = [:]
        var allowed: Set<Upward> = []
    }

    /// The tests of `Sources/ObjDB/X` are in `Tests/ObjDBTests/X`: every test file is in a folder
    /// named like a source folder (or `Architecture` and `Support`, which test and serve all).
    @Test func testFoldersMirrorSourceFolders() throws {
        let manager = FileManager.default
        let sources = Set(try manager.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Sources/ObjDB").path))
        let tests = Self.root.appendingPathComponent("Tests/ObjDBTests")
        var misplaced: [String] = []
        for entry in try manager.contentsOfDirectory(atPath: tests.path).sorted() where !entry.hasPrefix(".") {
            var isDirectory: ObjCBool = false
            _ = manager.fileExists(atPath: tests.appendingPathComponent(entry).path, isDirectory: &isDirectory)
            if !isDirectory.boolValue || !(sources.contains(entry) || ["Architecture", "Support"].contains(entry)) {
                misplaced.append(entry)
            }
        }
        #expect(misplaced == [], "Tests/ObjDBTests entries that are not a source folder's tests")
    }

    @Test func everyReferenceGoesDownOrIsListed() throws {
        let rules = try Self.rules()
        let sources = try Self.sources()
        let folders = Set(sources.map(\.folder))
        #expect(folders.subtracting(rules.layer.keys).sorted() == [], "folders the Layers table does not place")
        #expect(Set(rules.layer.keys).subtracting(folders).sorted() == [], "folders the Layers table places that do not exist")

        let found = Self.upwardReferences(sources, rules.layer)
        let unlisted = found.subtracting(rules.allowed).map(\.description).sorted()
        #expect(unlisted == [], "references upward that Docs/Architecture.md does not list")
        let paidOff = rules.allowed.subtracting(found).map(\.description).sorted()
        #expect(paidOff == [], "listed references upward no longer made: remove them from Docs/Architecture.md")
    }

    // The checker itself: a reference in a comment or a string is no reference; one in code is.
    @Test func theCheckerSeesCodeOnly() {
        let files = [
            Source(folder: "Low", text: "struct Low { let high: High? }\n"),
            Source(folder: "Mid", text: "/// Mentions High.\nlet text = \"High\"\n// High\nstruct Mid {}\n"),
            Source(folder: "High", text: "struct High { let low: Low; let mid: Mid }\n"),
        ]
        let found = Self.upwardReferences(files, ["Low": 1, "Mid": 2, "High": 3])
        #expect(found == [Upward(from: "Low", to: "High", name: "High")])
    }

    // MARK: Reading the page and the sources

    /// One source file: its folder under `Sources/ObjDB` and its text.
    struct Source {
        let folder: String
        let text: String
    }

    static func sources() throws -> [Source] {
        let base = root.appendingPathComponent("Sources/ObjDB")
        guard let walk = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var sources: [Source] = []
        for case let url as URL in walk where url.pathExtension == "swift" {
            let relative = url.path.dropFirst(base.path.count + 1)
            guard let folder = relative.split(separator: "/").first, relative.contains("/") else { continue }
            sources.append(Source(folder: String(folder), text: try String(contentsOf: url, encoding: .utf8)))
        }
        return sources
    }

    /// The two tables of the "Layers" section of Docs/Architecture.md.
    static func rules() throws -> Rules {
        let page = try String(contentsOf: root.appendingPathComponent("Docs/Architecture.md"), encoding: .utf8)
        guard let start = page.range(of: "\n## Layers\n") else {
            Issue.record("Docs/Architecture.md has no '## Layers' section")
            return Rules()
        }
        let section = page[start.upperBound...].prefix { _ in true }
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        var rules = Rules()
        for line in section[..<end].split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            let names = cells.map(codeSpans)
            if cells.count == 2, let layer = Int(cells[0]) {
                for folder in names[1] { rules.layer[folder] = layer }
            } else if cells.count == 3, names[1].count == 1 {
                for from in names[0] {
                    for name in names[2] { rules.allowed.insert(Upward(from: from, to: names[1][0], name: name)) }
                }
            }
        }
        return rules
    }

    /// The `code` spans of a table cell.
    static func codeSpans(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    // MARK: The checker

    /// Every reference by type name from a folder to a type declared (at the top level) only in
    /// folders of a higher layer.
    static func upwardReferences(_ sources: [Source], _ layer: [String: Int]) -> Set<Upward> {
        let code = sources.map { (folder: $0.folder, text: withoutCommentsAndStrings($0.text)) }
        var owners: [String: Set<String>] = [:]
        for file in code {
            for name in declaredTypes(file.text) { owners[name, default: []].insert(file.folder) }
        }
        var found: Set<Upward> = []
        for file in code {
            guard let own = layer[file.folder] else { continue }
            for name in identifiers(file.text) {
                guard let homes = owners[name], !homes.contains(file.folder) else { continue }
                // Declared in a folder this one may use: not upward.
                guard homes.allSatisfy({ (layer[$0] ?? 0) > own }) else { continue }
                for home in homes { found.insert(Upward(from: file.folder, to: home, name: name)) }
            }
        }
        return found
    }

    /// The names of the types declared at the top level of `code` (not nested: those are used
    /// qualified, or inside their type).
    static func declaredTypes(_ code: String) -> Set<String> {
        let pattern = /^(?:@[\w().,: ]+\s+)*(?:(?:public|package|internal|private|fileprivate|open|final|indirect|nonisolated)\s+)*(?:class|struct|enum|protocol|typealias|actor)\s+([A-Za-z_]\w*)/
            .anchorsMatchLineEndings()
        return Set(code.matches(of: pattern).map { String($0.output.1) })
    }

    /// The identifiers of `code`.
    static func identifiers(_ code: String) -> Set<String> {
        Set(code.matches(of: /[A-Za-z_]\w*/).map { String($0.output) })
    }

    /// `text` with its comments and string literals blanked out.
    static func withoutCommentsAndStrings(_ text: String) -> String {
        text.replacing(/\/\*[\s\S]*?\*\//, with: " ")
            .replacing(/\/\/[^\n]*/, with: " ")
            .replacing(/"""[\s\S]*?"""/, with: "\"\"")
            .replacing(/"(?:\\.|[^"\\\n])*"/, with: "\"\"")
    }
}
