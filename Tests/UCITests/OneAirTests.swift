import Air
import DeviceInterface
import Geometry
import Planning
import Testing
import UCI
@testable import UCIRoom

/// The UCI room and a run share one air: for the same two pairs, at the same places and the same instants, a run's
/// planned exchanges and the room's rounds lose the same exchanges to each other (docs/airtime.md, "Frames and
/// capture").
@Suite struct OneAirTests {
    private typealias Bench = UCIRoomTests.Bench

    /// How many of the two exchanges a run loses: pairs 0-1 and 2-3 double-sided, the second `gap` seconds later.
    private func runLoses(_ positions: [Vector3], gap: Double, channels: (UInt8, UInt8), medium: Medium) -> Int {
        var plan = RangingPlan()
        plan.exchanges = [PlannedExchange(pair: 0, offset: 0), PlannedExchange(pair: 1, offset: Float(gap))]
        plan.channels = [channels.0, channels.1]
        plan.collided = [0]
        var air = AirPhysics(medium: medium, scheme: .doubleSided)
        air.resolve(&plan, pairs: [RangingPair(low: 0, high: 1), RangingPair(low: 2, high: 3)], positions: positions,
                    interval: 0.1, circular: false)
        return plan.collided.reduce(0, +)
    }

    /// How many of the two exchanges the room loses to collisions: chip 0 controller of 1, chip 2 of 3, the second
    /// session's round `gap` seconds after the first's.
    private func roomLoses(_ positions: [Vector3], gap: Double, channels: (UInt8, UInt8), medium: Medium) throws -> Int {
        var settings = UCIRoomSettings()
        settings.medium = medium
        // The radio reads the link by the geometry alone, so that only the air decides.
        let b = try Bench(chips: 4, settings: settings)
        for (k, p) in positions.enumerated() {
            _ = b.room.setPose(Pose(position: p, orientation: Orientation(heading: k % 2 == 0 ? 0 : Double.pi)), of: k)
        }
        b.start(0, id: 1, controller: true, own: [0, 1], peers: [[0, 2]], extra: [(UCIAppConfigID.channelNumber, [channels.0])])
        b.start(1, id: 1, controller: false, own: [0, 2], peers: [[0, 1]], extra: [(UCIAppConfigID.channelNumber, [channels.0])])
        b.time = gap
        b.start(2, id: 2, controller: true, own: [0, 3], peers: [[0, 4]], extra: [(UCIAppConfigID.channelNumber, [channels.1])])
        b.start(3, id: 2, controller: false, own: [0, 4], peers: [[0, 3]], extra: [(UCIAppConfigID.channelNumber, [channels.1])])
        // The first round of each, and no other.
        b.advance(to: 0.15 + gap + 0.001)
        #expect(b.room.counters.rounds == 2)
        return b.room.counters.collidedExchanges
    }

    static let cases: [(name: String, positions: [Vector3], gap: Double, channels: (UInt8, UInt8), lost: Int)] = [
        // Side by side 1 m apart: each frame's interferer is √2 m from its receiver, 3 dB under it; both lost.
        ("square", [Vector3(0, 0, 1), Vector3(1, 0, 1), Vector3(0, 1, 1), Vector3(1, 1, 1)], 0.000_05, (9, 9), 2),
        // The same on two channels: both arrive.
        ("two channels", [Vector3(0, 0, 1), Vector3(1, 0, 1), Vector3(0, 1, 1), Vector3(1, 1, 1)], 0.000_05, (9, 5), 0),
        // The same 1 ms apart: frames at 0, 2, 4 ms and 1, 3, 5 ms never meet.
        ("interleaved", [Vector3(0, 0, 1), Vector3(1, 0, 1), Vector3(0, 1, 1), Vector3(1, 1, 1)], 0.001, (9, 9), 0),
        // A pair 0.3 m long and one 3 m long 2 m away: the near pair's frames are captured, the far pair's lost.
        ("capture", [Vector3(0, 0, 1), Vector3(0.3, 0, 1), Vector3(0, 2, 1), Vector3(3, 2, 1)], 0.000_05, (9, 9), 1),
        // Two pairs 0.5 m long 5 m apart: 20 dB each way, both received.
        ("apart", [Vector3(0, 0, 1), Vector3(0.5, 0, 1), Vector3(5, 0, 1), Vector3(5.5, 0, 1)], 0.000_05, (9, 9), 0),
        // Past the interference range: nothing heard.
        ("far", [Vector3(0, 0, 1), Vector3(1, 0, 1), Vector3(0, 25, 1), Vector3(1, 25, 1)], 0.000_05, (9, 9), 0),
    ]

    @Test(arguments: cases.indices)
    func aRunAndTheRoomLoseTheSameExchanges(index: Int) throws {
        let c = Self.cases[index]
        let run = runLoses(c.positions, gap: c.gap, channels: c.channels, medium: Medium())
        let room = try roomLoses(c.positions, gap: c.gap, channels: c.channels, medium: Medium())
        #expect(run == c.lost && room == c.lost, "\(c.name): run \(run), room \(room)")
        // Without capture, every overlapped frame is lost, in both.
        var none = Medium()
        none.captureThreshold = nil
        let runNone = runLoses(c.positions, gap: c.gap, channels: c.channels, medium: none)
        let roomNone = try roomLoses(c.positions, gap: c.gap, channels: c.channels, medium: none)
        #expect(runNone == roomNone, "\(c.name) without capture: run \(runNone), room \(roomNone)")
    }
}
