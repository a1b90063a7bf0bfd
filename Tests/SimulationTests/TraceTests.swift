import Foundation
import Sessions
import Simulation
import Synchronization
import Radio
import Testing
import TestSupport

/// The trace as users read it: every line checked against docs/schemas/trace.schema.json, in time order, with
/// the poses, the updates around every bump, and every update an app receives delivered to observers.
@Suite struct TraceTests {
    static let schemaPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/schemas/trace.schema.json").path

    private struct Line {
        let object: [String: Any]
        var t: Double { object["t"] as? Double ?? -1 }
        var type: String { object["type"] as? String ?? "" }
        func int(_ key: String) -> Int { object[key] as? Int ?? -1 }
    }

    /// A counter the observers share.
    private final class Count: Sendable {
        let value = Mutex([String: Int]())
        func add(_ key: String) { value.withLock { $0[key, default: 0] += 1 } }
        subscript(_ key: String) -> Int { value.withLock { $0[key] ?? 0 } }
    }

    private func tracedRun(
        peers: Int = 30, duration: Double = 20, seed: UInt64 = 1, updateInterval: Double = 5, devices: Int? = nil,
        observe: ((Simulation) -> Void)? = nil
    ) async throws -> (summary: SimulationSummary, lines: [String]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nearcatch-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var s = SimulationSettings()
        s.transport = .memory
        s.clock = .virtual
        s.peers = peers
        s.duration = duration
        s.seed = seed
        // Every pair every round, every link clear and unfaded: the trace's volume and the updates around bumps are
        // what is tested here, not the radio.
        s.rangingPolicy = .ideal
        s.radio.linkModel = .lineOfSight
        s.radio.fadeSNR = -200
        s.radio.fadeWidth = 0
        s.tracePath = path
        s.traceUpdateInterval = updateInterval
        s.traceDevices = devices
        let simulation = try Simulation(settings: s)
        observe?(simulation)
        let summary = try await simulation.run()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (summary, text.split(separator: "\n").map(String.init))
    }

    @Test func everyLineMatchesTheSchemaAndLinesAreInTimeOrder() async throws {
        let schema = try JSONSchema(path: Self.schemaPath)
        let (summary, lines) = try await tracedRun(updateInterval: 2)
        #expect(lines.count == summary.traceLines)
        var problems: [String] = []
        var previous = -Double.infinity
        var outOfOrder = 0
        var types: [String: Int] = [:]
        for line in lines {
            problems += schema.problems(line: line).map { "\($0) in \(line.prefix(120))" }
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let t = try #require(object["t"] as? Double)
            if t < previous { outOfOrder += 1 }
            previous = t
            types[object["type"] as? String ?? "", default: 0] += 1
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(outOfOrder == 0)
        // Every kind a mingle of 30 peers for 20 s produces is there, each as often as the summary says.
        #expect(types["run"] == 1)
        #expect(types["found"] == 870 && types["session"] == 870)
        #expect(types["bump"] == summary.bumps.fired && summary.bumps.fired > 0)
        #expect(types["profile"] == summary.bumps.profilesDelivered)
        #expect(types["nearMiss"] == summary.bumps.nearMisses)
        #expect(try #require(types["contactStart"]) >= summary.bumps.trueContacts)
        // Poses at 0, 0.5 ... 20 s: 41 samples of 30 devices.
        #expect(types["pose"] == 41 * 30)
        // 870 sessions, an update each every 2 s from when it began, and the seconds before each bump.
        #expect(try #require(types["update"]) > 8_000)
    }

    /// A trace that follows 6 of 30 devices (every 5th) is the whole trace's lines of those devices: their own
    /// lines, the truth's lines of their pairs, and the air; the run goes as it would untraced, and the header says
    /// whom the trace follows.
    @Test func aTraceOfSomeDevicesIsTheWholeTracesLinesOfThem() async throws {
        let (summary, all) = try await tracedRun(updateInterval: 2)
        let (sampledSummary, sampled) = try await tracedRun(updateInterval: 2, devices: 6)
        func object(_ line: String) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
        }
        let followed = { (d: Int) in d % 5 == 0 }
        let kept = all.dropFirst().dropLast().filter { line in
            let o = object(line), device = o["device"] as? Int ?? -1, peer = o["peer"] as? Int ?? -1
            switch o["type"] as? String {
            case "air": return true
            case "contactStart", "contactEnd", "nearMiss": return followed(device) || followed(peer)
            default: return followed(device)
            }
        }
        #expect(Array(sampled.dropFirst().dropLast()) == kept)
        #expect(kept.count * 3 < all.count, "\(kept.count) of \(all.count) lines")
        let header = object(sampled[0])["run"] as? [String: Any]
        #expect(header?["traceEvery"] as? Int == 5)
        let wholeHeader = try #require(object(all[0])["run"] as? [String: Any])
        #expect(wholeHeader["traceEvery"] == nil && wholeHeader["peers"] as? Int == 30)
        // Poses of devices 0, 5 ... 25 at 0, 0.5 ... 20 s.
        #expect(sampled.filter { $0.contains(#""type":"pose""#) }.count == 41 * 6)
        var scores = sampledSummary
        scores.run = summary.run
        scores.traceLines = summary.traceLines
        scores.performance = summary.performance
        #expect(scores == summary)
    }

    /// The schema check can fail: a misspelled field, a missing one, a wrong type and an unknown type are refused.
    @Test func theSchemaRefusesWhatItDoesNotDescribe() throws {
        let schema = try JSONSchema(path: Self.schemaPath)
        #expect(schema.problems(line: #"{"t":1.000,"type":"found","device":1,"peer":2}"#).isEmpty)
        #expect(!schema.problems(line: #"{"t":1.000,"type":"found","device":1,"pear":2}"#).isEmpty)
        #expect(!schema.problems(line: #"{"t":1.000,"type":"found","device":1}"#).isEmpty)
        #expect(!schema.problems(line: #"{"t":"1","type":"found","device":1,"peer":2}"#).isEmpty)
        #expect(!schema.problems(line: #"{"t":1.000,"type":"teleport","device":1,"peer":2}"#).isEmpty)
        #expect(!schema.problems(line: #"{"t":1.000,"type":"lost","device":1,"peer":2,"reason":"bored"}"#).isEmpty)
    }

    /// With one update a session every 5 s, the updates of a bump's pair in the second before it are still all in
    /// the trace: 10 rounds at 10 Hz, both sides, less the exchanges the radio lost.
    @Test func updatesBeforeEveryBumpAreTracedWhateverTheInterval() async throws {
        let (summary, lines) = try await tracedRun(updateInterval: 5)
        let parsed = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .map(Line.init)
        let bumps = parsed.filter { $0.type == "bump" }
        #expect(bumps.count == summary.bumps.fired && bumps.count >= 5)
        for bump in bumps {
            let pair = Set([bump.int("device"), bump.int("peer")])
            let before = parsed.filter {
                $0.type == "update" && Set([$0.int("device"), $0.int("peer")]) == pair
                    && $0.t <= bump.t + 1e-9 && $0.t >= bump.t - 1 + 1e-9
            }
            // 20 updates at most (10 rounds, two sides); a lost exchange takes two. Close pairs lose about 2%.
            #expect(before.count >= 16 && before.count <= 20, "bump at \(bump.t): \(before.count) updates")
        }
        // And around every near miss, from 2 s before its closest moment to 1 s after: about 60 updates (both
        // sides at 10 Hz), fewer when the pair's sessions began during it; at least a second's worth.
        let misses = parsed.filter { $0.type == "nearMiss" }
        #expect(misses.count == summary.bumps.nearMisses && misses.count >= 1)
        for miss in misses {
            let pair = Set([miss.int("device"), miss.int("peer")])
            let around = parsed.filter {
                $0.type == "update" && Set([$0.int("device"), $0.int("peer")]) == pair
                    && $0.t >= miss.t - 2 - 1e-9 && $0.t <= miss.t + 1 + 1e-9
            }
            #expect(around.count >= 20 && around.count <= 62, "near miss at \(miss.t): \(around.count) updates")
        }
        // Away from bumps the interval holds: a session's updates are 5 s apart or more.
        let updates = parsed.filter { $0.type == "update" }
        #expect(updates.count < summary.ranging.updatesDelivered / 20)
    }

    /// didUpdate is delivered: an observer that asks for updates receives every estimate an app would, each with
    /// the whole update, and the figures the summary counts.
    @Test func everyUpdateIsDeliveredToObservers() async throws {
        let count = Count()
        let radio = RadioConfiguration()
        let (summary, _) = try await tracedRun(duration: 10) { simulation in
            let clocks = simulation.clocks
            simulation.observe(wanting: .updates) { event in
                guard case .session(let device, _, .didUpdate(let u), let reading) = event.kind else { return }
                count.add("update")
                // Stamped on the device's own clock when it held the exchange's timestamps (docs/radio-model.md).
                if let reading, u.timestamp == clocks[device].reading(at: event.time + (reading.initiator
                    ? radio.initiatorReadingDelay : radio.responderReadingDelay)) { count.add("complete") }
                if u.distance != nil { count.add("distance") }
                if u.direction != nil, u.horizontalAngle != nil { count.add("direction") }
            }
            simulation.observe { event in
                if case .session(_, _, .didUpdate, _) = event.kind { count.add("unasked") }
            }
        }
        #expect(count["update"] == summary.ranging.updatesDelivered && count["update"] > 50_000)
        #expect(count["complete"] == count["update"])
        #expect(count["unasked"] == 0)
        #expect(count["distance"] == summary.distanceFiltered.count)
        let withDirection = Double(count["direction"]) / Double(count["update"])
        #expect(abs(withDirection - (1 - summary.direction.nilShare)) < 1e-9)
    }
}
