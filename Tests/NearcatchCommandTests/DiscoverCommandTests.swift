import ArgumentParser
import DiscoveryRun
import Foundation
import NearcatchCommand
import Testing
import TestSupport

@Suite struct DiscoverCommandTests {
    @Test(arguments: [
        (["discover", "--peers", "0"], "--peers must be between 1 and 1000, got 0"),
        (["discover", "--peers", "500"], "--peers over UDP must be at most 400 (the start bursts of larger groups keep two cores behind; docs/discover.md), got 500"),
        (["discover", "--loss", "0.3"], "--loss applies to --transport memory only; over UDP the network decides what is lost"),
        (["discover", "--transport", "memory", "--loss", "1"], "--loss must be between 0 and 0.9, got 1.0"),
        (["discover", "--peers", "5", "--expect-peers", "3"], "--expect-peers must be at least --peers (5) and at most 100000, got 3"),
        (["discover", "--group", "224.0.0.1:5000"], "--group: invalid multicast group 224.0.0.1:5000: the address must be administratively scoped (239.x.y.z)"),
        (["discover", "--duration", "0"], "--duration must be between 0.1 and 3600 seconds, got 0.0"),
    ])
    func validationNamesTheFlag(_ arguments: [String], _ expected: String) {
        #expect(parseError(arguments) == expected)
    }

    @Test func unparsablePeersNamesTheFlag() throws {
        let text = try #require(parseError(["discover", "--peers", "abc"]))
        #expect(text.contains("--peers"))
    }

    @Test func memoryRunReportsConvergenceAsJSON() async throws {
        let command = try #require(
            try NearcatchSim.parseAsRoot(["discover", "--transport", "memory", "--peers", "20", "--format", "json"])
                as? DiscoverCommand)
        let report = try await command.execute()
        let output = try command.render(report)
        let decoded = try JSONDecoder().decode(ClusterReport.self, from: Data(output.utf8))
        #expect(decoded == report)
        #expect(decoded.converged && decoded.sessions == 380 && decoded.expectedSessions == 380)
        #expect(decoded.transport == "memory")
        #expect(decoded.eventDigest?.count == 16)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        for key in ["transport", "peers", "expectedPeers", "seed", "converged", "convergenceSeconds", "sessions",
                    "expectedSessions", "simulatedSeconds", "wallSeconds", "datagrams", "events", "eventDigest",
                    "lostPeers"] {
            #expect(json[key] != nil, "missing \(key)")
        }
        let datagrams = try #require(json["datagrams"] as? [String: Any])
        let refused = try #require(datagrams["refused"] as? [String: Int])
        #expect(refused.keys.sorted() == ["badMagic", "forged", "invalidField", "lengthMismatch", "misaddressed",
                                          "oversized", "replayed", "staleIncarnation", "tokenMismatch", "truncated",
                                          "unauthenticated", "unknownSender", "unknownType", "unsupportedVersion",
                                          "wrongSource"])
    }

    @Test func missingInterfaceNamesTheFlag() async throws {
        let command = try #require(
            try NearcatchSim.parseAsRoot(["discover", "--peers", "2", "--interface", "nope0",
                                          "--group-key", String(repeating: "5a", count: 32)]) as? DiscoverCommand)
        do {
            _ = try await command.execute()
            Issue.record("ran on a missing interface")
        } catch {
            #expect(NearcatchSim.message(for: error).hasPrefix("--interface: no interface \"nope0\""))
        }
    }
}

/// Two processes of the built executable, started side by side on one group, discover each other's peers.
@Suite(.tags(.realTime)) struct TwoProcessDiscoveryTests {
    private var executable: URL {
        get throws {
            let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("nearcatch-sim")
        }
    }

    @Test func twoProcessesDiscoverEachOther() async throws {
        let binary = try executable
        #expect(FileManager.default.isExecutableFile(atPath: binary.path), "\(binary.path) is not built")
        let sizes = [4, 6]
        let total = sizes.reduce(0, +)
        let processes = try sizes.map { peers -> (Process, Pipe) in
            let process = Process()
            process.executableURL = binary
            process.arguments = ["discover", "--peers", "\(peers)", "--expect-peers", "\(total)",
                                 "--group", "239.255.94.1:47941", "--linger", "3", "--duration", "30",
                                 "--format", "json"]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            return (process, pipe)
        }
        var reports: [ClusterReport] = []
        for (process, pipe) in processes {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            reports.append(try JSONDecoder().decode(ClusterReport.self, from: data))
        }
        for (report, peers) in zip(reports, sizes) {
            #expect(report.converged)
            #expect(report.peers == peers && report.expectedPeers == total)
            // Each node holds a session with all 9 others, most of them in the other process.
            #expect(report.sessions == peers * (total - 1))
        }
    }
}
