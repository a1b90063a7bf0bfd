import Foundation
import Simulation
import TestSupport
import Testing

/// A run's results are never thrown away for a path: every output path is checked before the run, and when
/// publishing fails at the end anyway (the disk full), the summary comes first and the failure in one plain line.
@Suite struct OutputFailureTests {
    private func run(_ arguments: [String]) throws -> (status: Int32, output: Data, errors: String) {
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("nearcatch-sim")
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Standard error is small; read after standard output so that neither pipe fills.
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, out, err)
    }

    @Test func aFullDiskKeepsTheSummaryAndSaysSoInOneLine() throws {
        let small = try ScratchFileSystem(bytes: 131_072)
        defer { small.remove() }
        let trace = small.folder + "/t.jsonl"
        // 10 peers for 20 s trace about 1 MB: the 128 KiB disk fills during the run.
        let (status, output, errors) = try run(["--peers", "10", "--transport", "memory", "--duration", "20",
                                                "--trace", trace, "--format", "json"])
        #expect(status == 74)
        let summary = try JSONDecoder().decode(SimulationSummary.self, from: output)
        #expect(summary.run.interruptedAt == nil)
        #expect(summary.discovery.sessions == 90)
        #expect(summary.ranging.updatesDelivered > 100)
        #expect(summary.traceLines == nil)
        #expect(errors == "error: --trace: cannot write \(trace): No space left on device\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: small.folder).isEmpty)
    }

    @Test func aFullDiskForTheReportKeepsTheSummaryAndTheTrace() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let small = try ScratchFileSystem(bytes: 16_384)
        defer { small.remove() }
        let trace = folder + "/t.jsonl"
        let report = small.folder + "/r.html"
        let (status, output, errors) = try run(["--peers", "4", "--transport", "memory", "--duration", "5",
                                                "--trace", trace, "--report", report, "--format", "json"])
        #expect(status == 74)
        let summary = try JSONDecoder().decode(SimulationSummary.self, from: output)
        #expect(summary.traceLines == (try String(contentsOfFile: trace, encoding: .utf8)).split(separator: "\n").count)
        #expect(errors == "error: --report: cannot write \(report): No space left on device\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: small.folder).isEmpty)
    }

    /// Issue 49: on a full disk `report --svg` left one picture of four and exited 64 with the usage text.
    @Test func aFullDiskLeavesNoPictureAndTheReportSaysSoInOneLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let trace = folder + "/t.jsonl"
        let made = try run(["--peers", "4", "--transport", "memory", "--duration", "5", "--trace", trace])
        #expect(made.status == 0, "\(made.errors)")
        // Room for the first picture, not for all four.
        let small = try ScratchFileSystem(bytes: 16_384)
        defer { small.remove() }
        let pictures = small.folder + "/pictures"
        let (status, output, errors) = try run(["report", trace, "--svg", pictures])
        #expect(status == 74)
        #expect(output.isEmpty)
        #expect(errors.hasPrefix("error: --svg: cannot write \(pictures)/") && errors.hasSuffix(": No space left on device\n")
                && errors.split(separator: "\n").count == 1, "\(errors)")
        // Nothing of it: no picture, no temporary file, not the folder it made.
        #expect(try FileManager.default.contentsOfDirectory(atPath: small.folder).isEmpty)
    }

    /// Issue 49: `--trace X --report X` was refused only after the whole run.
    @Test func twoOutputsAtOnePathAreRefusedBeforeTheRun() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Folders that exist, so that only the clash is left to refuse.
        for name in ["sub", "p"] {
            try FileManager.default.createDirectory(atPath: folder + "/" + name, withIntermediateDirectories: false)
        }
        let cases: [(flags: [String], said: String)] = [
            (["--trace", folder + "/x", "--report", folder + "/x"],
             "--trace and --report name the same file, \(folder)/x"),
            (["--trace", folder + "/x", "--report", folder + "/./sub/../x"],
             "--trace and --report name the same file, \(folder)/./sub/../x"),
            (["--report", folder + "/p/room.svg", "--svg", folder + "/p"],
             "--report and --svg name the same file, \(folder)/p/room.svg"),
        ]
        for (flags, said) in cases {
            let (status, _, errors) = try run(["--peers", "4", "--transport", "memory", "--duration", "5"] + flags)
            #expect(status == 64 && errors.contains(said), "\(flags): \(errors)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["p", "sub"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/p").isEmpty)
        }
    }

    @Test func everyOutputPathIsCheckedBeforeTheRun() throws {
        let readOnly = try ScratchFileSystem(bytes: 65_536, readOnly: true)
        defer { readOnly.remove() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createSymbolicLink(atPath: folder + "/dangling", withDestinationPath: folder + "/gone")
        let cases: [(flags: [String], said: String)] = [
            (["--svg", readOnly.folder + "/pictures"],
             "--svg: cannot create files in \(readOnly.folder): Read-only file system"),
            (["--svg", readOnly.folder], "--svg: cannot create files in \(readOnly.folder): Read-only file system"),
            (["--report", readOnly.folder + "/r.html"],
             "--report: cannot create files in \(readOnly.folder): Read-only file system"),
            (["--trace", readOnly.folder + "/t.jsonl"],
             "--trace: cannot create files in \(readOnly.folder): Read-only file system"),
            (["--trace", folder + "/dangling"],
             "--trace: \(folder)/dangling is a link whose target does not exist; pass --force to replace the link"),
            (["--trace", folder + "/missing/t.jsonl"], "--trace: the folder \(folder)/missing does not exist"),
            (["--svg", folder + "/missing/pictures"],
             "--svg: the folder \(folder)/missing for \(folder)/missing/pictures does not exist"),
        ]
        for (flags, said) in cases {
            // A 600-second run: refused before it starts, or this test would take ten minutes.
            let (status, output, errors) = try run(["--peers", "4", "--transport", "memory", "--clock", "real",
                                                    "--duration", "600"] + flags)
            #expect(status == 64, "\(flags)")
            #expect(output.isEmpty, "\(flags)")
            #expect(errors.hasPrefix("Error: \(said)\n"), "\(flags): \(errors)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["dangling"])
    }
}
