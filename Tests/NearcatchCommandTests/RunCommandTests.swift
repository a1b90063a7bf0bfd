import ArgumentParser
import Foundation
import NearcatchCommand
import Simulation
import Testing

@Suite struct RunCommandTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples").path

    @Test(arguments: [
        (["--peers", "0"], "--peers must be between 2 and 10000, got 0"),
        (["--rate", "0"], "--rate must be between 0.5 and 100 Hz, got 0.0"),
        (["--peers", "500"], "--peers over UDP must be at most 400 (the start bursts of larger groups keep two cores behind; docs/discover.md), got 500"),
        (["--clock", "virtual"], "--clock virtual needs --transport memory: real sockets run in real time"),
        (["--scenario", "/nonexistent/room.json"],
         "--scenario: scenario file /nonexistent/room.json does not exist"),
        (["--scenario", "/tmp"], "--scenario: scenario file /tmp is a folder"),
        (["--workers", "0"], "--workers must be between 1 and 256, got 0"),
        (["--sensors", "samples", "--scenario", examples + "/three-bumps.json", "--imu-rate", "1000"],
         "--imu-rate must be between 1 and 800 Hz, got 1000.0"),
        (["--clock-offset", "2"], "--clock-offset must be between 0 and 1 second, got 2.0"),
        (["--capture-threshold", "70"], "--capture-threshold must be between -10 and 60 dB, or none"),
        (["--imu-range", "1"], "--imu-range must be between 2 and 64 g, got 1.0"),
        (["--stamp-jitter", "0.6"], "--stamp-jitter must be between 0 and 0.5, got 0.6"),
        (["--sensor-gaps", "-1"], "--sensor-gaps must be between 0 and 60 a minute, got -1.0"),
        (["--clock-offset", "-0.01"], "--clock-offset must be between 0 and 1 second, got -0.01"),
        (["--trace", "/nonexistent/dir/t.jsonl"], "--trace: the folder /nonexistent/dir does not exist"),
        // Negative numbers are values, not flags: the message names the flag and its range.
        (["--duration", "-1"], "--duration must be above 0 and at most 86400 seconds, got -1.0"),
        (["--peers", "-5"], "--peers must be between 2 and 10000, got -5"),
        (["--peers", "10001", "--transport", "memory"], "--peers must be between 2 and 10000, got 10001"),
        (["--max-sessions", "0"], "--max-sessions must be between 1 and 10000, got 0"),
        (["--trace-devices", "0"], "--trace-devices must be at least 1 (or all), got 0"),
        (["--discovery-range", "0.5", "--transport", "memory"], "--discovery-range must be at least 1 metre (or none), got 0.5"),
        (["discover", "--duration", "-1"], "--duration must be between 0.1 and 3600 seconds, got -1.0"),
    ])
    func errorsNameTheFlag(_ arguments: [String], _ expected: String) {
        #expect(parseError(arguments) == expected)
    }

    @Test func unparsableDiscoveryRangeAndTraceDevicesNameTheFlag() throws {
        let text = try #require(parseError(["--discovery-range", "far", "--transport", "memory"]))
        #expect(text.contains("--discovery-range") && text.contains("far"))
        #expect(parseError(["--discovery-range", "none", "--transport", "memory", "--duration", "0.5"]) == nil)
        let devices = try #require(parseError(["--trace-devices", "some", "--transport", "memory"]))
        #expect(devices.contains("--trace-devices") && devices.contains("some"))
        #expect(parseError(["--trace-devices", "all", "--transport", "memory", "--duration", "0.5"]) == nil)
        let capture = try #require(parseError(["--capture-threshold", "loud", "--transport", "memory"]))
        #expect(capture.contains("--capture-threshold") && capture.contains("loud"))
        #expect(parseError(["--capture-threshold", "none", "--transport", "memory", "--duration", "0.5"]) == nil)
    }

    @Test func unparsablePeersNamesTheFlag() throws {
        let text = try #require(parseError(["--peers", "abc"]))
        #expect(text.contains("--peers") && text.contains("abc"))
    }

    @Test func malformedScenarioFileNamesTheField() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(#"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": "far", "y": 0}]}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        #expect(parseError(["--scenario", path]) == "--scenario: scenario file \(path): peers[0].waypoints[0].x must be a number, not a string")
        // And a mismatched --peers is named too.
        #expect(parseError(["--scenario", Self.examples + "/three-bumps.json", "--peers", "5"])
                == "--peers 5 disagrees with the scenario file, which has 6 peers")
    }

    /// A scenario file's peer may name its phone's model, over the run's; an unknown model is named as the field.
    @Test func aScenarioPeerNamesItsDevice() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dev-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        func write(_ device: String) throws {
            try Data((#"{"version": 1, "peers": [{"name": "A", "device": "\#(device)", "waypoints": [{"t": 0, "x": 0, "y": 0}]}, "#
                + #"{"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}, "#
                + #"{"name": "C", "waypoints": [{"t": 0, "x": 2, "y": 0}]}]}"#).utf8).write(to: URL(fileURLWithPath: path))
        }
        try write("dw3000")
        let command = try #require(try NearcatchSim.parseAsRoot(
            ["--scenario", path, "--transport", "memory", "--duration", "1", "--device-profile", "pixel"]) as? RunCommand)
        #expect(try await command.execute().run.devices == ["dw3000": 1, "pixel": 2])
        try write("nokia")
        #expect(parseError(["--scenario", path, "--transport", "memory"]) == "--scenario: scenario file \(path): "
            + "peers[0].device must be one of generic, iphone, pixel, galaxy, dw3000, not \"nokia\"")
    }

    @Test func traceNeverReplacesAFolderAndAFileOnlyWithForce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/old.jsonl"
        try Data("old".utf8).write(to: URL(fileURLWithPath: file))
        #expect(parseError(["--trace", folder]) == "--trace: \(folder) is a folder; name a file to write")
        #expect(parseError(["--trace", folder, "--force"]) == "--trace: \(folder) is a folder; name a file to write")
        #expect(parseError(["--trace", file]) == "--trace: \(file) exists; pass --force to replace it")
        #expect(parseError(["--trace", file, "--force"]) == nil)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["old.jsonl"])
    }

    @Test func theScenarioFileIsReadOnceWhenTheFlagsAreChecked() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("once-\(UUID().uuidString).json").path
        try FileManager.default.copyItem(atPath: Self.examples + "/three-bumps.json", toPath: path)
        let command = try #require(try NearcatchSim.parseAsRoot(
            ["--scenario", path, "--transport", "memory", "--duration", "2"]) as? RunCommand)
        // What was checked is what runs: the file is gone before the run, which still has its six peers.
        try FileManager.default.removeItem(atPath: path)
        let summary = try await command.execute()
        #expect(summary.run[RunSettings.peers] == 6)
        #expect(try command.simulationSettings().peerCount == 6)
    }

    @Test func scenarioErrorsExitWithTheUsageCode() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("long-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let long = String(repeating: "x", count: 300)
        try Data(#"{"version": 1, "peers": [{"name": "A", "interests": ["\#(long)"], "waypoints": [{"t": 0, "x": 0, "y": 0}]}, {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        do {
            _ = try NearcatchSim.parseAsRoot(["--scenario", path, "--transport", "memory"])
            Issue.record("the scenario was accepted")
        } catch {
            #expect(NearcatchSim.exitCode(for: error).rawValue == 64)
            let message = NearcatchSim.message(for: error)
            #expect(message.contains(path) && message.contains("peers[0].interests"))
        }
    }

    @Test func versionIsPrinted() throws {
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("nearcatch-sim")
        process.arguments = ["--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(output == NearcatchSim.version + "\n")
    }

    @Test func summaryWordsCountsAndAMissingConvergence() async throws {
        let command = try #require(try NearcatchSim.parseAsRoot(["--peers", "4", "--transport", "memory", "--duration", "3"])
            as? RunCommand)
        var summary = try await command.execute()
        summary.discovery.convergenceSeconds = nil
        summary.bumps.falseBumps = 1
        summary.bumps.falseByTrueDistance = [
            .init(fromMetres: 0, toMetres: 0.08, count: 0), .init(fromMetres: 0.08, toMetres: 0.12, count: 1),
            .init(fromMetres: 0.12, toMetres: 0.2, count: 0), .init(fromMetres: 0.2, toMetres: nil, count: 0),
        ]
        summary.bumps.nearMisses = 1
        summary.bumps.nearMissesByDistance = [
            .init(fromMetres: 0.08, toMetres: 0.12, count: 0), .init(fromMetres: 0.12, toMetres: 0.2, count: 1),
            .init(fromMetres: 0.2, toMetres: 0.25, count: 0),
        ]
        summary.bumps.brushes = 1
        summary.bumps.profilesDelivered = 1
        let text = try command.render(summary)
        #expect(text.contains("discovery   did not converge; 6 pairs"))
        #expect(text.contains("1 false bump, by true distance at firing: 0 up to 8 cm, 1 at 8-12 cm, 0 at 12-20 cm, "
            + "0 beyond 20 cm; 1 near miss, by closest approach: 0 at 8-12 cm, 1 at 12-20 cm, 0 at 20-25 cm"))
        #expect(text.contains("1 brush; 0 bumps on touches that began in the last second (not scored); 1 profile delivered"))
        #expect(!text.contains("by class"))
        summary.bumps.byClass = ["walkPast": .init(encounters: 2, fired: 0, touch: false),
                                 "hardTap": .init(encounters: 3, fired: 2, touch: true),
                                 "softStop": .init(encounters: 1, fired: 1, touch: false)]
        #expect(try command.render(summary).contains(
            "by class    fired on touches: hardTap 2/3; on the rest: softStop 1/1, walkPast 0/2"))
        #expect(!text.contains("by speed"))
        summary.bumps.bySpeed = [
            .init(fromMetresPerSecond: 0, toMetresPerSecond: 0.03, contacts: 4, detected: 1),
            .init(fromMetresPerSecond: 0.03, toMetresPerSecond: 1, contacts: 2, detected: 2),
            .init(fromMetresPerSecond: 1, toMetresPerSecond: nil, contacts: 0, detected: 0),
        ]
        #expect(try command.render(summary).contains(
            "by speed    touches detected by closing speed: 1/4 up to 3 cm/s, 2/2 at 3 cm/s-1 m/s, 0/0 beyond 1 m/s"))
        summary.bumps.nearMisses = 0
        summary.bumps.brushes = 2
        #expect(try command.render(summary).contains("0 near misses, by closest approach"))
        summary.bumps.unscoredBumps = 1
        #expect(try command.render(summary).contains("2 brushes; 1 bump on touches that began in the last second"))
        #expect(!text.contains("declined"))
        summary.bumps.declined = 0
        #expect(try !command.render(summary).contains("declined"))
        summary.bumps.declined = 3
        #expect(try command.render(summary).contains(
            "bumps       \(summary.bumps.fired) fired (3 more declined: their push had made a bump), "))
    }

    @Test func badRunWritesNoTraceFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("t-\(UUID().uuidString).jsonl").path
        #expect(parseError(["--rate", "0", "--trace", path]) != nil)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// The sensors' settings over the profile's: what the flags set, and what the summary's run block reports.
    @Test func sensorFlagsSetTheChipOverTheProfile() async throws {
        let command = try #require(try NearcatchSim.parseAsRoot(
            ["--transport", "memory", "--peers", "4", "--duration", "2", "--sensor-profile", "android", "--imu-range", "4",
             "--stamp-jitter", "0.05", "--sensor-gaps", "6", "--sensor-lag", "0.02", "--format", "json"]) as? RunCommand)
        let s = try command.simulationSettings()
        #expect(s.imu.rate == 200 && s.imu.range == 4 * 9.80665 && s.imu.stampJitter == 0.05)
        #expect(abs(s.imu.gapRate - 0.1) < 1e-12 && s.imu.stampLag == 0.02)
        let run = try await command.execute().run
        #expect(run[RunSettings.imuRange] == 4 && run[RunSettings.stampJitter] == 0.05)
        #expect(abs((run[RunSettings.sensorGaps] ?? 0) - 6) < 1e-9)
        // Unset, the profile's own: iOS has no gaps.
        let plain = try #require(try NearcatchSim.parseAsRoot(["--transport", "memory"]) as? RunCommand)
        #expect(try plain.simulationSettings().imu.gapRate == 0 && plain.simulationSettings().imu.range == 8 * 9.80665)
    }

    /// `--device-profile`: a list mixes the models, device i taking the (i mod n)-th, and the summary counts them;
    /// the generic radio's flags are refused where no device is generic, since they would change nothing.
    @Test func deviceProfilesMixAndAreCounted() async throws {
        let command = try #require(try NearcatchSim.parseAsRoot(
            ["--transport", "memory", "--peers", "5", "--duration", "2", "--device-profile", "iphone,pixel",
             "--format", "json"]) as? RunCommand)
        let s = try command.simulationSettings()
        #expect((0..<5).map { s.radio.profile(of: UInt64($0)) } == [.iphone, .pixel, .iphone, .pixel, .iphone])
        let run = try await command.execute().run
        #expect(run.devices == ["iphone": 3, "pixel": 2])
        let plain = try #require(try NearcatchSim.parseAsRoot(["--transport", "memory"]) as? RunCommand)
        #expect(try plain.simulationSettings().radio.deviceProfiles == [.generic])
        #expect(parseError(["--transport", "memory", "--device-profile", "iphone", "--los-sigma", "0.1"])
            == "--los-sigma and --negative-distance set the generic profile's radio, and no device of "
            + "--device-profile iphone is generic: leave them out, or add generic to the list")
        #expect(parseError(["--transport", "memory", "--duration", "0.5", "--device-profile", "generic,dw3000",
                            "--los-sigma", "0.1"]) == nil)
        let unknown = try #require(parseError(["--transport", "memory", "--device-profile", "iphone,nokia"]))
        #expect(unknown.contains("--device-profile") && unknown.contains("nokia"))
    }

    @Test func defaultsAreTheMainJob() throws {
        let command = try #require(try NearcatchSim.parseAsRoot([]) as? RunCommand)
        let s = try command.simulationSettings()
        #expect(s.peers == 100 && s.duration == 60 && s.rate == 10)
        #expect(s.transport == .udp && s.clock == .real && s.scenario == .mingle)
        let memory = try #require(try NearcatchSim.parseAsRoot(["--transport", "memory"]) as? RunCommand)
        #expect(try memory.simulationSettings().clock == .virtual)
    }

    @Test func jsonSummaryHasItsDocumentedFields() async throws {
        let command = try #require(
            try NearcatchSim.parseAsRoot(["--peers", "10", "--transport", "memory", "--duration", "10", "--format", "json",
                                          "--ranging-policy", "ideal", "--link", "los"]) as? RunCommand)
        let output = try command.render(try await command.execute())
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let expected: [String: Set<String>] = [
            // The run's facts, and each setting its declaration reports.
            "run": Set(["scenario", "transport", "clock", "seed", "interruptedAt", "groupKey", "version", "bumpDistance",
                        "link", "negativeDistance", "devices", "planner", "detector", "sensors", "sensorProfile"])
                .union(RunSettings.reported.compactMap { $0.reporting?.key }),
            "discovery": ["convergenceSeconds", "pairs", "sessions", "expectedSessions", "withinReach"],
            "ranging": ["exchanges", "received", "collided", "suspensions", "updatesDelivered", "sessionsRenewed",
                        "airtime", "bands"],
            "distanceRaw": ["rmse", "p50", "p95", "count"],
            "distanceFiltered": ["rmse", "p50", "p95", "count"],
            "direction": ["p50Degrees", "p95Degrees", "nilShare"],
            "bumps": ["fired", "declined", "trueContacts", "detected", "precision", "recall", "latencyP50",
                      "latencyP95", "earlyDetections", "unscoredBumps", "falseBumps", "falseByTrueDistance", "nearMisses", "nearMissesByDistance",
                      "brushes", "bySpeed", "profilesDelivered", "byClass", "jolts"],
            "performance": ["wallSeconds", "updatesPerSecond", "realTimeFactor", "peakMemoryMB"],
        ]
        for (section, keys) in expected {
            let object = try #require(json[section] as? [String: Any], "missing \(section)")
            // Optional figures are left out of the JSON when there is nothing to report (no bumps in 10 s).
            let optional = Set(["convergenceSeconds", "rmse", "p50", "p95", "p50Degrees", "p95Degrees", "precision",
                                "recall", "latencyP50", "latencyP95", "interruptedAt", "byClass", "jolts", "withinReach",
                                "declined"])
                .union(RunSettings.reported.compactMap { $0.reporting?.absentUnless == nil ? nil : $0.reporting?.key })
            #expect(Set(object.keys).isSubset(of: keys), "\(section) has unknown fields")
            #expect(keys.subtracting(optional).isSubset(of: Set(object.keys)), "\(section) misses fields")
        }
        let airtime = try #require((json["ranging"] as? [String: Any])?["airtime"] as? [String: Any])
        // Under `ideal` no air: no capture, survival or lost report is reported, only that there is none.
        #expect(Set(airtime.keys) == ["channels", "slotsPerExchange", "capacityPerSecond", "demandPerSecond", "overCapacity",
                                      "interferenceRange", "perChannel", "model"])
        #expect(airtime["model"] as? String == "none (no air)")
        // 1-2 m, in line of sight, every pair every round: the estimate an app holds is a round old or two.
        let band = try #require(((json["ranging"] as? [String: Any])?["bands"] as? [[String: Any]])?[2])
        #expect(Set(band.keys).isSubset(of: ["fromMetres", "toMetres", "pairSeconds", "received", "perPairPerSecond",
                                             "ageP50", "ageP95", "withoutEstimateShare"]))
        #expect(band["ageP95"] as? Double ?? 9 < 0.2)
        let discovery = try #require(json["discovery"] as? [String: Any])
        #expect(discovery["sessions"] as? Int == 90 && discovery["pairs"] as? Int == 45)
        let decoded = try JSONDecoder().decode(SimulationSummary.self, from: Data(output.utf8))
        #expect(decoded.ranging.updatesDelivered > 1000)
    }

    /// Each declared setting appears in the help of the commands that take it, with its values, and the policies'
    /// help is made from their own list.
    @Test func theHelpSaysWhatTheDeclarationsSay() {
        let run = RunCommand.helpMessage(columns: 10_000)
        for setting in RunSettings.all {
            let help = run.contains(setting.help(showingDefault: false)) || run.contains(setting.help(showingDefault: true))
            #expect(run.contains(setting.flag + " ") && help, "\(setting.flag)")
        }
        for policy in SimulationSettings.RangingPolicy.allCases {
            #expect(run.contains("\(policy.rawValue) (\(policy.explanation))"))
        }
        let radio = RadioCommand.helpMessage(columns: 10_000)
        let discover = DiscoverCommand.helpMessage(columns: 10_000)
        for setting in [RunSettings.lineOfSightSigma.help(), RunSettings.levelBias.help()] { #expect(radio.contains(setting)) }
        #expect(discover.contains(RunSettings.maximumSessions.help()))
    }
}
