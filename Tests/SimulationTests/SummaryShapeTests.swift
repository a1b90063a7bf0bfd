import Foundation
import Radio
import Simulation
import Testing

/// The paths a summary can have (``SummaryShape``), read from its type, are the paths real summaries hold: what
/// `sweep plan` checks a metric against before any run.
@Suite struct SummaryShapeTests {
    /// Every path of a run's summary, dotted, array positions and every key of a keyed block as given.
    private static func paths(of summary: SimulationSummary) throws -> Set<String> {
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(summary))
        var found = Set<String>()
        func walk(_ value: Any, _ prefix: String) {
            if !prefix.isEmpty { found.insert(prefix) }
            let joined = { (key: String) in prefix.isEmpty ? key : prefix + "." + key }
            if let object = value as? [String: Any] {
                for (key, child) in object { walk(child, joined(key)) }
            } else if let array = value as? [Any] {
                for (i, child) in array.enumerated() { walk(child, joined(String(i))) }
            }
        }
        walk(object, "")
        return found
    }

    private static func matches(_ path: String) -> Bool {
        let keys = path.split(separator: ".")
        return SummaryShape.paths.contains { pattern in
            let parts = pattern.split(separator: ".")
            return parts.count == keys.count && zip(parts, keys).allSatisfy { $0 == "*" || $0 == $1 }
        }
    }

    /// Runs unlike each other (the mingle with contacts and a mixed room of device models, a random walk on two
    /// channels, the range-only detector): each of their summaries' paths is in the shape, and the shape holds the
    /// figures the committed sweeps read.
    @Test(arguments: [0, 1, 2]) func everyPathOfARealSummaryIsInTheShape(kind: Int) async throws {
        var s = SimulationSettings()
        s.transport = .memory
        s.clock = .virtual
        s.peers = 12
        s.duration = 20
        switch kind {
        case 0: s.radio.deviceProfiles = [.iphone, .pixel]
        case 1:
            s.scenario = .randomWaypoint
            s.medium.channels = 2
        default: s.bump.method = .range
        }
        let summary = try await Simulation(settings: s).run()
        let held = try Self.paths(of: summary)
        #expect(held.count > 50)
        let outside = held.filter { !Self.matches($0) }.sorted()
        #expect(outside.isEmpty, "paths the shape lacks: \(outside)")
    }

    @Test func theShapeHoldsTheFiguresSweepsRead() {
        for path in ["bumps.recall", "bumps.precision", "ranging.exchanges", "discovery.sessions", "run.seed",
                     "run.devices.*", "run.peers"] {
            #expect(SummaryShape.paths.contains(path), "\(path)")
        }
        #expect(!SummaryShape.paths.contains("bumps.recal"))
    }
}
