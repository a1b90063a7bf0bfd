import Foundation
import NearcatchCommand
import Testing
import TestSupport
import UCIRoom

/// The live endpoint (`nearcatch-sim uci`) driven by the independent Python host (Tests/uci-host/check.py), which
/// checks each scenario's messages byte by byte and prints its figures; the figures the issue names are checked here.
@Suite(.serialized, .tags(.realTime)) struct UCIHostTests {
    private var executable: URL {
        get throws {
            let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("nearcatch-sim")
        }
    }

    private static let hostDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("uci-host")

    /// Starts the endpoint on free ports, runs one scenario of the host against it, stops the endpoint.
    ///
    /// - Returns: the host's figures and the endpoint's closing summary.
    private func run(_ scenario: String, _ extra: [String] = [], endpoint: [String] = []) throws
        -> (figures: [String: Any], summary: String)
    {
        let server = Process()
        server.executableURL = try executable
        // The host lays its messages out as UCI 1.1 does (sessions named by their ids).
        server.arguments = ["uci", "--uci-port", "0", "--web-port", "0", "--uci-version", "1.1"] + endpoint
        let out = Pipe()
        server.standardOutput = out
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        // The first two lines name the ports.
        var text = ""
        while text.components(separatedBy: "\n").count < 3 {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let ports = text.components(separatedBy: "\n").compactMap { $0.split(separator: ":").last.flatMap { Int($0) } }
        try #require(ports.count == 2, "the endpoint printed \(text)")
        let host = Process()
        host.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let named = extra.map { $0 == "{server-pid}" ? "\(server.processIdentifier)" : $0 }
        host.arguments = ["python3", "check.py", scenario, "--port", "\(ports[0])", "--web-port", "\(ports[1])"] + named
        host.currentDirectoryURL = Self.hostDirectory
        let hostOut = Pipe()
        host.standardOutput = hostOut
        host.standardError = hostOut
        try host.run()
        let report = String(decoding: hostOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        host.waitUntilExit()
        kill(server.processIdentifier, SIGINT)
        let summary = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        server.waitUntilExit()
        try #require(host.terminationStatus == 0, "\(scenario): \(report)")
        let line = try #require(report.split(separator: "\n").last)
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return (figures, summary)
    }

    @Test func oneToOneOneToManyAndDataRunTheirWholeSequence() throws {
        let (figures, summary) = try run("sequence")
        #expect(figures["one_to_many_controlees"] as? Int == 4)
        #expect(summary.contains("0 malformed, 0 commands refused") && summary.contains("data 1 delivered"))
    }

    @Test func measurementsFollowThePositionsTheWebAPISets() throws {
        let (figures, _) = try run("truth")
        #expect((figures["at_3m_ok"] as? Int ?? 0) >= 48)
        #expect(abs(figures["at_3m_mean_error_m"] as? Double ?? 1) < 0.2)
        #expect(figures["at_20m_timeouts"] as? Int == 20)
    }

    /// 100 chips in 50 sessions at 10 Hz: every chip keeps reporting, and the endpoint says how late it sent the
    /// reports. How late, and how evenly spaced, is a figure of the machine and the build as much as of the endpoint:
    /// tools/bench-machine checks it on the release build (5 ms at p95).
    @Test func aHundredChipsInFiftySessionsReport() throws {
        let (figures, summary) = try run("scale", ["--seconds", "10", "--interval-ms", "100"])
        #expect((figures["intervals"] as? Int ?? 0) >= 9_600)
        #expect(figures["p95_ms"] is Double, "\(figures)")
        #expect(summary.range(of: #"p95 [0-9.]+ ms after"#, options: .regularExpression) != nil, "\(summary)")
    }

    /// 100,000 malformed packets while 10 chips range: each answered, ranging on schedule, each counted.
    @Test func malformedPacketsAreAnsweredAndRangingGoesOn() throws {
        let (figures, summary) = try run("fuzz")
        #expect(figures["answered"] as? Int == 100_000)
        #expect((figures["measured_during"] as? Int ?? 0) > 0)
        // Every packet in, counted once: the 100,000 and the 30 commands of the ranging chips.
        #expect(summary.contains("100030 packets in"), "\(summary)")
    }

    /// A host that sends 4-byte commands as fast as its socket takes them and never reads their answers (issue 49:
    /// 24 MB of them took the endpoint from 218 to 917 MB): the endpoint stops reading it once its answers fill its
    /// socket, so it takes a few MB at most, and its memory grows by less than 32 MB (the bound docs/uci.md states);
    /// a new host is then served.
    @Test func aHostThatNeverReadsIsReadNoMore() throws {
        let (figures, summary) = try run("flood", ["--seconds", "6", "--server-pid", "{server-pid}"])
        let sent = figures["sent_bytes"] as? Int ?? .max
        let before = figures["rss_before_kb"] as? Int ?? 0, peak = figures["rss_peak_kb"] as? Int ?? .max
        #expect(sent < 8 << 20, "\(figures)")
        #expect(peak - before < 32 << 10, "\(figures)")
        #expect(summary.contains("0 malformed"), "\(summary)")
    }

    /// With --scenario the chips follow the world's peers as they range, and every packet is captured.
    @Test func chipsFollowAMovingWorldAndAreCaptured() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uci-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (figures, _) = try run("moving", endpoint: ["--scenario", "random-waypoint", "--peers", "4", "--pcapng-dir", folder.path])
        #expect(figures["moved"] as? Int ?? 0 >= 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == ["device-0.pcapng", "device-1.pcapng"])
        // Each capture holds its chip's session: at least the 6 commands and 20 reports.
        let size = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("device-0.pcapng").path)[.size] as? Int
        #expect(size ?? 0 > 26 * 40)
    }
}

/// docs/uci.md against the program: its table of k sessions against one-to-many is what the study gives, and its
/// sample lines are what the endpoint prints.
@Suite struct UCIDocTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/uci.md")

    /// The rows of 10 phones, computed again (the whole table takes a minute in a release build: `--compare`).
    @Test func theTableOfTenPhonesIsWhatTheStudyGives() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        #expect(text.contains(UCIStudy.header))
        for k in [2, 4, 8] {
            for mode in UCIStudy.Mode.allCases {
                let row = try UCIStudy.run(phones: 10, peers: k, mode: mode)
                #expect(text.contains(row.line + "\n"), "\(row.line)")
            }
        }
    }

    @Test func theSampleSummaryHasTheProgramsShape() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        let sample = try #require(text.split(separator: "\n").first { $0.hasPrefix("nearcatch-sim uci: ") && $0.contains("packets in") })
        let shape = try NSRegularExpression(pattern: "^" + NSRegularExpression.escapedPattern(for: String(sample))
            .replacingOccurrences(of: #"[0-9]+"#, with: #"[0-9]+"#, options: .regularExpression) + "$")
        let printed = UCICommand.summary(UCICounters(), lateness: (0.2, 0.4))
        #expect(shape.firstMatch(in: printed, range: NSRange(printed.startIndex..., in: printed)) != nil, "\(printed)")
    }
}
