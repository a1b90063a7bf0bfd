import Foundation
import NearcatchCommand
import Testing
import TestSupport

/// The documentation against the program: every deterministic sample is what the program prints now, and every
/// link leads to a file of the repository.
@Suite struct DocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var documents: [URL] {
        let docs = root.appendingPathComponent("docs")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
        return [root.appendingPathComponent("README.md")]
            + names.filter { $0.hasSuffix(".md") }.sorted().map { docs.appendingPathComponent($0) }
    }

    /// The code blocks of a document that show a command (`$ tools/run ...`) and what it printed.
    private static func samples(in text: String) -> [(command: [String], output: String)] {
        var result: [(command: [String], output: String)] = []
        let blocks = text.components(separatedBy: "```")
        for block in stride(from: 1, to: blocks.count, by: 2).map({ blocks[$0] }) {
            var lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines.removeFirst()
            guard let first = lines.first, first.hasPrefix("$ tools/run ") else { continue }
            let command = first.dropFirst("$ tools/run ".count).split(separator: " ").map(String.init)
            result.append((command, lines.dropFirst().joined(separator: "\n").trimmingCharacters(in: .newlines)))
        }
        return result
    }

    /// The radio probe is deterministic: each of its samples in the docs is byte for byte what it prints.
    @Test func radioSamplesAreWhatTheProgramPrints() throws {
        var checked = 0
        for document in Self.documents {
            let text = try String(contentsOf: document, encoding: .utf8)
            for sample in Self.samples(in: text) where sample.command.first == "radio" {
                let command = try #require(try NearcatchSim.parseAsRoot(sample.command) as? RadioCommand)
                #expect(try command.render() == sample.output, "\(document.lastPathComponent): \(sample.command)")
                checked += 1
            }
        }
        #expect(checked >= 1)
    }

    /// Every relative link of the README and docs/ names a file of the repository: none leaves it, none is missing.
    @Test func linksLeadToFilesOfTheRepository() throws {
        var links = 0
        var broken: [String] = []
        let pattern = try NSRegularExpression(pattern: #"\]\(([^)#\s]+)(#[^)]*)?\)"#)
        for document in Self.documents {
            let text = try String(contentsOf: document, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let target = String(text[range])
                if target.hasPrefix("http://") || target.hasPrefix("https://") { continue }
                links += 1
                let resolved = document.deletingLastPathComponent().appendingPathComponent(target).standardizedFileURL
                if !resolved.path.hasPrefix(Self.root.standardizedFileURL.path + "/") {
                    broken.append("\(document.lastPathComponent): \(target) leaves the repository")
                } else if !FileManager.default.fileExists(atPath: resolved.path) {
                    broken.append("\(document.lastPathComponent): \(target) does not exist")
                }
            }
            // A path outside the repository, even when not a link; a document or example named in the text.
            if text.contains("../") { broken.append("\(document.lastPathComponent) names a path with ../") }
            let named = try NSRegularExpression(pattern: #"(?<![\w/.])((?:docs|examples|tools)/[\w./-]*\w)"#)
            for match in named.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let path = String(text[range])
                if !FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path) {
                    broken.append("\(document.lastPathComponent): \(path) does not exist")
                }
            }
        }
        #expect(broken.isEmpty, "\(broken)")
        #expect(links >= 10)
    }

    /// A table of the docs that a committed sweep made is that sweep's report as committed under sweeps/results/,
    /// between `<!-- sweep report: sweeps/results/NAME.md -->` and `<!-- end sweep report -->`, and every report
    /// there is shown: a figure changed in one place and not the other fails here.
    @Test func sweepTablesAreTheCommittedReports() throws {
        let results = Self.root.appendingPathComponent("sweeps/results")
        let reports = try FileManager.default.contentsOfDirectory(atPath: results.path).filter { $0.hasSuffix(".md") }
        #expect(reports.count >= 2)
        var shown = Set<String>()
        for document in Self.documents {
            let text = try String(contentsOf: document, encoding: .utf8)
            for block in text.components(separatedBy: "<!-- sweep report: ").dropFirst() {
                let name = try #require(block.components(separatedBy: " -->").first)
                let body = try #require(block.components(separatedBy: "<!-- end sweep report -->").first)
                    .dropFirst(name.count + " -->".count)
                let report = try String(contentsOf: Self.root.appendingPathComponent(name), encoding: .utf8)
                #expect(body.trimmingCharacters(in: .whitespacesAndNewlines)
                            == report.trimmingCharacters(in: .whitespacesAndNewlines),
                        "\(document.lastPathComponent) shows \(name) otherwise than it is committed")
                shown.insert(name)
            }
        }
        #expect(shown == Set(reports.map { "sweeps/results/" + $0 }), "\(shown)")
    }

    /// docs/architecture.md's table of modules against the manifest: a row for every target but the executable and
    /// the tests' support, and in each row what its modules depend on beyond each other.
    @Test func theModuleTableIsTheManifests() throws {
        let manifest = try PackageManifest.targets(of: PackageManifest.text())
        let targets = Set(manifest.keys.filter { !$0.hasSuffix("Tests") }).subtracting(["nearcatch-sim", "TestSupport"])
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let section = try #require(page.components(separatedBy: "\n## Modules\n").dropFirst().first)
        let table = try #require(section.components(separatedBy: "\n\n").first { $0.contains("| module |") })
        var rowed = Set<String>()
        var wrong: [String] = []
        for row in table.split(separator: "\n").dropFirst(2) {
            let cells = row.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4 else { continue }
            let named = Set(cells[1].matches(of: try Regex(#"`(\w+)`"#)).compactMap { $0.output[1].substring.map(String.init) })
            rowed.formUnion(named)
            let written = Set(cells[3] == "—" ? [] : cells[3].components(separatedBy: ", "))
            let actual = Set(named.flatMap { manifest[$0] ?? [] }).subtracting(named)
            if written != actual { wrong.append("\(named.sorted()): the page says \(written.sorted()), the manifest \(actual.sorted())") }
        }
        #expect(wrong == [])
        #expect(targets.subtracting(rowed).sorted() == [], "targets without a row")
        #expect(rowed.subtracting(targets).sorted() == [], "rows without a target")
    }
}
