import Foundation
import Geometry
import Radio
import Simulation
import Synchronization
import Testing
import TestSupport
import World

/// The radio ranges between the antennas (docs/radio-model.md, docs/simulation.md "What touches"): two phones whose
/// bodies stand still 1 m apart, B facing A upright, then rolled upside down about its body's centre. The truth an
/// app's update is scored against, and the noiseless radio's reading, follow B's antenna as it moves with the turn,
/// not the body's centre.
///
/// What crosses an `await` here is scalars only: a `SIMD3<Double>` (every `Vector3`) kept in an async frame
/// overflowed the frame's allocation by 8 bytes under Swift 6.3.1 (AddressSanitizer, heap-buffer-overflow in the
/// task allocator), which corrupted the heap of the whole test process at random.
@Suite struct AntennaTruthTests {
    /// A's first update and the world's geometry then, as plain numbers.
    struct Seen: Sendable {
        var trueDistance = 0.0, rawDistance = 0.0
        var trueDirection: [Double] = []
        var antennaDistance = 0.0, centreDistance = 0.0
        var antennaDirection: [Double] = [], centreDirection: [Double] = []
    }

    static func scenario(bRoll: Double) throws -> ScenarioFile {
        let json = """
            {"version": 1, "name": "antennas", "peers": [
              {"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0, "heading": 0}]},
              {"name": "B", "waypoints": [{"t": 0, "x": 1, "y": 0, "heading": 180, "roll": \(bRoll)}]}
            ]}
            """
        return try ScenarioFile.parse(Data(json.utf8), file: "antennas.json")
    }

    /// The world's antennas and bodies one second in, computed without an `await`.
    static func geometry(_ file: ScenarioFile, into seen: inout Seen) throws {
        let world = try World(scenario: .scripted(file), peers: 0, seed: 1)
        _ = world.advance(to: 1)
        let antennas = PairGeometry(world.poses[0], world.poses[1])
        let centres = PairGeometry(world.bodies[0], world.bodies[1])
        seen.antennaDistance = antennas.distance
        seen.centreDistance = centres.distance
        let a = antennas.bearingFromA.direction, c = centres.bearingFromA.direction
        seen.antennaDirection = [a.x, a.y, a.z]
        seen.centreDirection = [c.x, c.y, c.z]
    }

    static func firstUpdate(bRoll: Double) async throws -> Seen {
        let file = try scenario(bRoll: bRoll)
        var seen = Seen()
        try geometry(file, into: &seen)
        var settings = SimulationSettings()
        settings.transport = .memory
        settings.clock = .virtual
        settings.scenario = .scripted(file)
        settings.duration = 4
        settings.rangingPolicy = .ideal
        settings.radio = Fixtures.noiseless
        settings.radio.orientationBias = 0
        let simulation = try Simulation(settings: settings)
        let first = Mutex<Seen?>(nil)
        let base = seen
        simulation.observe(wanting: .updates) { event in
            guard case .session(0, _, .didUpdate, let reading?) = event.kind, let raw = reading.rawDistance else { return }
            first.withLock {
                guard $0 == nil else { return }
                var s = base
                s.trueDistance = reading.trueDistance
                s.rawDistance = raw
                s.trueDirection = [reading.trueDirection.x, reading.trueDirection.y, reading.trueDirection.z]
                $0 = s
            }
        }
        _ = try await simulation.run()
        return try #require(first.withLock { $0 })
    }

    static func angle(_ u: [Double], _ v: [Double]) -> Double {
        acos(min(max(zip(u, v).map(*).reduce(0, +), -1), 1)) * 180 / .pi
    }

    /// Upright, and upside down: the scored truth is the antennas' distance and A's direction to B's antenna (to
    /// 1e-9), and the noiseless reading the antennas' distance to the ticks' 2.3 mm. Rolled, B's antenna (15 mm
    /// under the top of its 14.9-cm case) drops from level with A's to 11 cm below it: the truth tilts down by
    /// 6.4° and lengthens by 0.6 cm, while the bodies' centres stay where they were.
    @Test func theTruthAndTheReadingFollowTheAntennas() async throws {
        let upright = try await Self.firstUpdate(bRoll: 0)
        let rolled = try await Self.firstUpdate(bRoll: 180)
        for s in [upright, rolled] {
            #expect(abs(s.trueDistance - s.antennaDistance) < 1e-9)
            #expect(Self.angle(s.trueDirection, s.antennaDirection) < 1e-6)
            #expect(abs(s.rawDistance - s.antennaDistance) < 0.0025, "\(s.rawDistance) against \(s.antennaDistance)")
        }
        #expect(abs(upright.centreDistance - rolled.centreDistance) < 1e-9)
        #expect(Self.angle(upright.centreDirection, rolled.centreDirection) < 1e-6)
        let tilt = Self.angle(upright.trueDirection, rolled.trueDirection)
        #expect(abs(tilt - 6.4) < 0.5, "the truth tilted by \(tilt)°")
        #expect(rolled.trueDirection[1] < upright.trueDirection[1] - 0.1)
        #expect(abs(rolled.trueDistance - upright.trueDistance - 0.006) < 0.002,
                "\(upright.trueDistance) to \(rolled.trueDistance)")
    }
}
