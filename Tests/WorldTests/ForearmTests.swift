import DeviceInterface
import Foundation
import Geometry
import Testing
@testable import World

/// Forearms are bodies: a phone held up has one behind it, sloping back to its holder's elbow, and a phone that
/// meets another holder's forearm is pushed by it, as that holder's phone is through the arm. No touch of phones.
@Suite struct ForearmTests {
    /// A phone held upright with its back to the east has its forearm to the west, below it: the near end 3 cm past
    /// the phone's bottom edge, 27 cm long, sloping 30° down; a phone lying flat has none.
    @Test func aForearmLiesBehindAPhoneHeldUp() throws {
        let pose = Pose(position: Vector3(0, 0, 1.2), orientation: Orientation(heading: 0))
        let arm = try #require(Forearm.adult.box(behind: .iPhone15, at: pose))
        let axis = arm.orientation.screen
        #expect(abs(axis.x + cos(Double.pi / 6)) < 1e-9 && abs(axis.y) < 1e-9 && abs(axis.z + 0.5) < 1e-9)
        let bottom = 1.2 - PhoneBody.iPhone15.size.y / 2
        let near = arm.centre - axis * arm.halfExtents.z
        #expect((near - Vector3(0, 0, bottom) - axis * 0.03).length < 1e-9, "\(near)")
        #expect(abs(arm.halfExtents.z * 2 - 0.27) < 1e-12)
        let flat = Pose(position: .zero, orientation: Orientation(heading: 0, pitch: -.pi / 2))
        #expect(Forearm.adult.box(behind: .iPhone15, at: flat) == nil)
    }

    /// B carries her phone west to east at 0.5 m/s, 10 cm under A's, through where A's forearm runs back from it:
    /// the phone meets the forearm, and both phones feel it (B's by far the more: 0.2 kg against the arm's 1.85 with
    /// its hand and phone);
    /// the phones never touch. With B's phone in a pocket, A's arm still meets it; with A's phone lying flat, there
    /// is no forearm to meet.
    @Test func aPhoneThatMeetsAForearmIsPushedAndSoIsItsHoldersPhone() throws {
        func run(_ aTurn: String, bCarry: String = "hand") throws -> (meetings: Int, peaks: [Double], touches: Int) {
            let text = #"{"version": 1, "peers": [{"name": "A", "waypoints": "#
                + #"[{"t": 0, "x": 0, "y": 0, "z": 1.2, \#(aTurn)}]}, "#
                + #"{"name": "B", "carry": "\#(bCarry)", "waypoints": "#
                + #"[{"t": 0, "x": -0.6, "y": 0, "z": 1.0, "heading": 90}, "#
                + #"{"t": 1, "x": -0.6, "y": 0, "z": 1.0, "heading": 90}, "#
                + #"{"t": 2.2, "x": 0, "y": 0.0, "z": 1.0, "heading": 90}]}]}"#
            // Past B's start and stop; B walks meanwhile (0.5 m/s), her steps 3.2 m/s² at most.
            let (world, peaks) = try stilledDepartures(text, rest: 0.5, window: 1.3..<2.0, until: 2.5)
            return (world.limbMeetings, peaks, world.tracker.contacts.count)
        }
        let held = try run(#""heading": 0"#)
        #expect(held.meetings == 1 && held.touches == 0)
        // B's phone takes 0.59 m/s (the arm's side is 1.85 kg), A's through its arm 0.06 m/s.
        #expect(held.peaks[1] > 20 && held.peaks[0] > 2 && held.peaks[0] < held.peaks[1] / 5, "\(held.peaks)")
        let pocket = try run(#""heading": 0"#, bCarry: "pocket")
        #expect(pocket.meetings == 1, "\(pocket)")
        let flat = try run(#""heading": 0, "pitch": -90"#)
        #expect(flat.meetings == 0 && flat.peaks[1] < 3.5 && flat.peaks[0] < 0.1, "\(flat)")
    }

    /// The mingle's people turn at a body's rate and keep their reaches (phone back to elbow) apart: on 100 peers for
    /// a minute no body turns more than `turnRate` allows in a step, and forearms meet 8 (seed 1) and 12 (seed 2)
    /// times, where a crowd kept apart phone to phone met 52 and 67 times, at up to 3.7 m/s.
    @Test(arguments: [UInt64(1), 2])
    func minglersTurnAtABodysRateAndKeepTheirForearmsApart(seed: UInt64) throws {
        let world = try World(scenario: .mingle, peers: 100, seed: seed)
        try world.startSensing(clocks: (0..<100).map { _ in DeviceClock(uptimeAtStart: 100, rate: 0) }, seed: 5)
        func heading(_ pose: Pose) -> Double { atan2(-pose.orientation.screen.y, -pose.orientation.screen.x) }
        var before = world.bodies.map(heading)
        var fastest = 0.0
        for step in 1...1200 {
            _ = world.advance(to: Double(step) * 0.05)
            let now = world.bodies.map(heading)
            fastest = max(fastest, zip(before, now).map { abs(remainder($1 - $0, 2 * .pi)) }.max()!)
            before = now
        }
        #expect(fastest <= MingleSettings().turnRate * 0.05 + 1e-9, "\(fastest) rad in a step")
        #expect(fastest > MingleSettings().turnRate * 0.05 * 0.99, "somebody turned as fast as a body does")
        #expect(world.limbMeetings <= 20, "\(world.limbMeetings) meetings of forearms")
        #expect(world.finishedEncounters.count >= 230, "\(world.finishedEncounters.count) encounters")
    }

    /// The nearest points of two people's reaches on the floor plan: crossing (0 apart), side by side (0.6 m apart),
    /// one's end before the other's middle (a T: 0.3 m), heights ignored.
    @Test func reachesAreFoundApartSegmentToSegment() {
        func gap(_ a: (Vector3, Vector3), _ b: (Vector3, Vector3)) -> Double {
            let (p, q) = World.closest(a, b)
            return Vector3(q.x - p.x, q.y - p.y, 0).length
        }
        let east = (Vector3(0, 0, 1.2), Vector3(0.26, 0, 1.2))
        #expect(gap(east, (Vector3(0.1, -0.2, 1.0), Vector3(0.1, 0.2, 1.3))) < 1e-12)
        #expect(abs(gap(east, (Vector3(0, 0.6, 1.2), Vector3(0.26, 0.6, 1.2))) - 0.6) < 1e-12)
        #expect(abs(gap(east, (Vector3(0.13, 0.3, 1.2), Vector3(0.13, 0.56, 1.2))) - 0.3) < 1e-12)
        #expect(abs(gap(east, (Vector3(0.56, 0, 1.2), Vector3(0.82, 0, 1.2))) - 0.3) < 1e-12)
        #expect(abs(Forearm.adult.reach - ((0.03 + 0.27) * cos(Double.pi / 6) + 0.04 * sin(Double.pi / 6))) < 1e-12)
    }
}
