import Foundation
import Simulation
import Synchronization
import Testing
import TestSupport
import World

/// The one rule (docs/architecture.md): the world knows, the devices observe. A run records every device's
/// observations and actions (discovery and session events, each exchange's measurement and the updates made of it,
/// Bluetooth readings, the phones' own speeds and accelerometer peaks, the exchanges asked for, bumps, haptics,
/// profiles); the same run with everything only the scorer reads relabelled (contacts, near misses, who walks to
/// whom, each scripted encounter's class, the scorer's own distances) must give the same record, line for line.
@Suite struct DeviceBoundaryTests {
    private struct Recorded {
        let lines: [String]
        let summary: SimulationSummary
    }

    /// - Parameters:
    ///   - sensors: what the phones' accelerometers are made of, for a run without a scenario file.
    ///   - plant: a line put first in the record, read from the world as it starts: a planted leak.
    private func record(
        _ policy: SimulationSettings.RangingPolicy, scramble: TruthScramble?, sampled: ScenarioFile? = nil,
        sensors: Sensors = .samples, plant: ((World) -> String)? = nil
    ) async throws -> Recorded {
        var s = SimulationSettings()
        s.transport = .memory
        s.clock = .virtual
        s.peers = 24
        s.duration = 30
        s.seed = 4
        s.rangingPolicy = policy
        s.truthScramble = scramble
        s.sensors = sensors
        if let sampled {
            s.scenario = .scripted(sampled)
            s.sensors = .samples
        }
        let simulation = try Simulation(settings: s)
        let lines = Mutex<[String]>(plant.map { [$0(simulation.truth)] } ?? [])
        simulation.deviceRecord = { line in lines.withLock { $0.append(line) } }
        let summary = try await simulation.run()
        return Recorded(lines: lines.withLock { $0 }, summary: summary)
    }

    /// Where two records first part, `nil` when they are the same.
    private func firstDifference(_ a: [String], _ b: [String]) -> String? {
        if let k = a.indices.first(where: { $0 < b.count && a[$0] != b[$0] }) {
            return "line \(k): \(a[k].prefix(300)) | \(b[k].prefix(300))"
        }
        return a.count == b.count ? nil : "lengths \(a.count) and \(b.count)"
    }

    @Test func devicesAreBlindToTheTruth() async throws {
        let plain = try await record(.proximity, scramble: nil)
        let scrambled = try await record(.proximity, scramble: TruthScramble(seed: 7))
        let difference = firstDifference(plain.lines, scrambled.lines)
        #expect(difference == nil, "\(difference ?? "")")
        // The record holds what matters: exchanges, their updates, plans, accelerometer peaks and bumps.
        let kinds = Dictionary(grouping: plain.lines, by: { $0.split(separator: " ").prefix(2).last.map(String.init) ?? "" })
        #expect((kinds["session"]?.count ?? 0) > 1_000)
        #expect(plain.lines.filter { $0.hasPrefix("plan ") }.count == 300)
        // Every pair found once a second, on the second (none at 0 s: no pair has been found yet), and each pair as
        // it is found.
        #expect(plain.lines.filter { $0.hasPrefix("bluetooth ") }.count == 29)
        #expect(plain.lines.contains { $0.hasPrefix("bluetooth-found ") })
        #expect((kinds["bump"]?.count ?? 0) >= 5)
        // The relabelling reached the scorer: the same bumps now meet other pairs' contacts.
        let recall = try #require(plain.summary.bumps.recall)
        #expect(recall > 0.8 && plain.summary.bumps.trueContacts >= 5)
        #expect((scrambled.summary.bumps.recall ?? 0) < recall / 2)
    }

    /// examples/bump-classes.json and a pair of its own for the one class it does not hold: a phone set down beside
    /// one lying on a table, four times.
    private static func everyClass() throws -> ScenarioFile {
        let url = PackageManifest.root.appendingPathComponent("examples/bump-classes.json")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var peers = try #require(object["peers"] as? [[String: Any]])
        var encounters = try #require(object["encounters"] as? [[String: Any]])
        peers.append(["name": "setter", "waypoints": [["t": 0, "x": -3, "y": -3, "z": 0.95, "pitch": -90]]])
        peers.append(["name": "lying", "waypoints": [["t": 0, "x": -2.7, "y": -3, "z": 0.75, "pitch": -90]],
                      "carry": "table"])
        for t in [3.0, 9, 15, 21] {
            encounters.append(["class": "setDown", "peers": ["setter", "lying"], "t": t, "closingSpeed": 0.05 * t / 3,
                               "minimumDistance": 0.18, "hold": 2])
        }
        object["peers"] = peers
        object["encounters"] = encounters
        return try ScenarioFile.parse(try JSONSerialization.data(withJSONObject: object), file: "every-class.json")
    }

    /// With the accelerometers sampled from physics (a scenario file of every class of encounter), the devices find
    /// their jolts in their own samples: the record is the same again when the scorer's contacts, the encounters'
    /// classes and the scorer's distances are all told otherwise. Every push comes from bodies meeting; a class only
    /// planned its gesture.
    @Test func devicesAreBlindToTheTruthWithSampledSensors() async throws {
        let file = try Self.everyClass()
        let plain = try await record(.proximity, scramble: nil, sampled: file)
        let scrambled = try await record(.proximity, scramble: TruthScramble(seed: 7), sampled: file)
        let difference = firstDifference(plain.lines, scrambled.lines)
        #expect(difference == nil, "\(difference ?? "")")
        #expect(plain.summary.run.sensors == "samples")
        #expect(plain.lines.filter { $0.hasPrefix("impacts ") && $0.contains("magnitude") }.count > 10)
        #expect(plain.summary.bumps.trueContacts > 10 && (plain.summary.bumps.recall ?? 0) > 0.3)
        #expect((scrambled.summary.bumps.recall ?? 1) < (plain.summary.bumps.recall ?? 0) / 2)
        // The classes reached the scorer told otherwise: the touches' bumps are scored under other classes.
        let byClass = try #require(plain.summary.bumps.byClass), told = try #require(scrambled.summary.bumps.byClass)
        #expect(Set(byClass.keys) == Set(told.keys) && told != byClass)
        #expect(byClass["hardTap"]?.fired != told["hardTap"]?.fired)
    }

    /// The test can fail on what a sensor reads. Accelerometer peaks made from the truth's contacts (`--sensors
    /// peaks`, kept to compare with) land on other phones when the contacts are relabelled; and a line a sensor
    /// would make from the encounters' classes or from the scorer's near-miss distance differs when those are told
    /// otherwise.
    @Test func aSensorThatReadsTheTruthIsFound() async throws {
        let peaks = try await record(.proximity, scramble: nil, sensors: .peaks)
        let scrambledPeaks = try await record(.proximity, scramble: TruthScramble(seed: 7), sensors: .peaks)
        #expect(firstDifference(peaks.lines, scrambledPeaks.lines) != nil)
        let file = try ScenarioFile.load(path: PackageManifest.root.appendingPathComponent("examples/bump-classes.json").path)
        let labels: (World) -> String = {
            "planted " + $0.scriptedEncounters.map(\.script.kind.rawValue).joined(separator: ",")
        }
        let plainLabels = try await record(.proximity, scramble: nil, sampled: file, plant: labels)
        let toldLabels = try await record(.proximity, scramble: TruthScramble(seed: 7), sampled: file, plant: labels)
        #expect(firstDifference(plainLabels.lines, toldLabels.lines)?.hasPrefix("line 0:") == true)
        let threshold: (World) -> String = { "planted \($0.tracker.nearMissDistance)" }
        let plainThreshold = try await record(.proximity, scramble: nil, plant: threshold)
        let toldThreshold = try await record(.proximity, scramble: TruthScramble(seed: 7), plant: threshold)
        #expect(firstDifference(plainThreshold.lines, toldThreshold.lines)?.hasPrefix("line 0:") == true)
    }

    /// The test can fail: the `oracle` policy is told who walks to whom, and its plans follow the labels.
    @Test func theOracleReadsTheTruth() async throws {
        let plain = try await record(.oracle, scramble: nil)
        let scrambled = try await record(.oracle, scramble: TruthScramble(seed: 7))
        #expect(firstDifference(plain.lines, scrambled.lines) != nil)
        #expect(plain.summary.run.planner.contains("upper bound"))
    }

    /// What runs on a phone: the session table, the estimators, the bump detector, discovery, the ranging
    /// service's planning and the reference app, and the vocabulary they share with the world (docs/architecture.md).
    static let deviceModules = ["DeviceInterface", "Sessions", "Estimation", "Bump", "Discovery", "Planning", "ReferenceApp"]
    /// What only the world or the scorer may read: the truth, the radio channel, the world's air, the in-memory
    /// network with the devices' positions, the round step that holds the world's radio, and the run.
    static let truthModules: Set = ["World", "Radio", "Air", "SimulatedNetwork", "Ranging", "Simulation"]

    /// Every breach of the line: a device module that depends on a truth module, even through another, and every
    /// `import` of a truth module in a device module's source (`sources`: each device module's files' texts).
    static func breaches(dependencies: [String: [String]], sources: [String: [String: String]]) -> [String] {
        func reach(_ module: String) -> Set<String> {
            var seen = Set<String>(), next = [module]
            while let m = next.popLast() {
                for d in dependencies[m] ?? [] where seen.insert(d).inserted { next.append(d) }
            }
            return seen
        }
        var found: [String] = []
        for module in deviceModules {
            let reached = reach(module).intersection(truthModules)
            if !reached.isEmpty { found.append("\(module) depends on \(reached.sorted())") }
            for (file, text) in (sources[module] ?? [:]).sorted(by: { $0.key < $1.key }) {
                for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.contains(" import ") {
                    let imported = line.split(separator: " ").last.map(String.init) ?? ""
                    if truthModules.contains(imported) { found.append("\(module)/\(file): \(line)") }
                }
            }
        }
        return found
    }

    private static func deviceSources() throws -> [String: [String: String]] {
        var sources: [String: [String: String]] = [:]
        for module in deviceModules {
            let folder = PackageManifest.root.appendingPathComponent("Sources/\(module)")
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
                sources[module, default: [:]][file] = try String(contentsOf: folder.appendingPathComponent(file),
                                                                  encoding: .utf8)
            }
        }
        return sources
    }

    /// No device-side source file imports the truth, and no device-side target depends on it, even through another.
    @Test func deviceModulesImportNoTruth() throws {
        let dependencies = try PackageManifest.targets(of: PackageManifest.text())
        #expect(dependencies.count > 20)
        for module in Self.deviceModules + Self.truthModules.sorted() {
            #expect(dependencies[module] != nil, "\(module) is a target")
        }
        let sources = try Self.deviceSources()
        for module in Self.deviceModules {
            #expect(sources[module]?.isEmpty == false, "\(module) has sources")
        }
        #expect(Self.breaches(dependencies: dependencies, sources: sources) == [])
    }

    /// The check bites: an import of the radio planted in the planner's sources, a dependency on the in-memory
    /// network planted in discovery's target, and one reached through another module are each named.
    @Test func aPlantedImportOfTheTruthIsFound() throws {
        let dependencies = try PackageManifest.targets(of: PackageManifest.text())
        var sources = try Self.deviceSources()
        sources["Planning"]?["Planted.swift"] = "import Geometry\nimport Radio\n\nlet planted = 0\n"
        #expect(Self.breaches(dependencies: dependencies, sources: sources)
                == ["Planning/Planted.swift: import Radio"])

        var planted = dependencies
        planted["Discovery", default: []].append("SimulatedNetwork")
        #expect(Self.breaches(dependencies: planted, sources: try Self.deviceSources())
                == ["Discovery depends on [\"SimulatedNetwork\"]"])

        // Through another: the reference app depends on Bump, and Bump on the world's radio.
        var through = dependencies
        through["Bump", default: []].append("Radio")
        let found = Self.breaches(dependencies: through, sources: try Self.deviceSources())
        #expect(found.contains("ReferenceApp depends on [\"Radio\"]"))
        #expect(found.contains("Bump depends on [\"Radio\"]"))
    }
}
