import Foundation
import NearcatchCommand
import Testing

@Suite struct ReportCommandTests {
    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("nearcatch-\(UUID().uuidString)-\(name)").path
    }

    /// Every output is checked before anything runs, naming the flag and the path.
    @Test func badOutputsAreRefusedBeforeAnythingRuns() throws {
        let file = Self.temporaryPath("exists.html")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(parseError(["report", "t.jsonl"]) == "give -o FILE.html, --svg DIR or both")
        #expect(parseError(["report", "t.jsonl", "-o", "/nonexistent/r.html"])?.contains("--report") == true)
        #expect(parseError(["report", "t.jsonl", "-o", file])?.contains("--force") == true)
        #expect(parseError(["report", "t.jsonl", "--svg", file]) == "--svg: \(file) is a file, not a folder")
        #expect(parseError(["report", "t.jsonl", "--svg", "/nonexistent/pictures"])
            == "--svg: the folder /nonexistent for /nonexistent/pictures does not exist")
        #expect(parseError(["--transport", "memory", "--report", file])?.contains("--force") == true)
        #expect(parseError(["--transport", "memory", "--report", file, "--force"]) == nil)
    }

    /// A run's report, then the same from its trace: the same page; an unreadable trace is named.
    @Test func aRunsReportAndTheTracesAreTheSame() async throws {
        let trace = Self.temporaryPath("run.jsonl"), first = Self.temporaryPath("a.html")
        let second = Self.temporaryPath("b.html"), pictures = Self.temporaryPath("svg")
        defer { for p in [trace, first, second, pictures] { try? FileManager.default.removeItem(atPath: p) } }
        let run = try #require(try NearcatchSim.parseAsRoot(
            ["--peers", "8", "--duration", "10", "--transport", "memory", "--trace", trace, "--report", first,
             "--svg", pictures]) as? RunCommand)
        try await run.run()
        var report = try #require(try NearcatchSim.parseAsRoot(["report", trace, "-o", second]) as? ReportCommand)
        try report.run()
        let a = try Data(contentsOf: URL(fileURLWithPath: first)), b = try Data(contentsOf: URL(fileURLWithPath: second))
        #expect(a == b && a.count > 10_000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: pictures).sorted()
            == ["bump-latency.svg", "direction-error.svg", "distance-error.svg", "room.svg"])
        report = try #require(try NearcatchSim.parseAsRoot(["report", "/nonexistent.jsonl", "-o", second, "--force"])
            as? ReportCommand)
        do {
            try report.run()
            Issue.record("a missing trace was read")
        } catch {
            #expect(NearcatchSim.message(for: error) == "trace /nonexistent.jsonl: does not exist")
        }
    }
}
