import Bump
import DeviceInterface
import Foundation
import Geometry
import Testing
@testable import World

/// Phones that meet however they are turned: a push along the line between the features that meet (rounded edges,
/// not a tie between a box's axes), a contact timed where the bodies meet and part, a hand aimed short that brakes,
/// and a file whose phones start inside each other refused.
@Suite struct PoseContactTests {
    /// Two phones 60 cm apart along x, each turned by its waypoint's angles (degrees), tapped together at 0.6 m/s,
    /// held `hold` seconds; a third far off.
    private func tapped(_ a: (Double, Double, Double), _ b: (Double, Double, Double), rise: Double = 0,
                        minimumDistance: Double = 0, hold: Double = 0.5)
        throws -> World
    {
        func waypoint(_ x: Double, _ angles: (Double, Double, Double), z: Double) -> String {
            #"[{"t": 0, "x": \#(x), "y": 0, "z": \#(z), "heading": \#(angles.0), "pitch": \#(angles.1), "roll": \#(angles.2)}]"#
        }
        let text = #"{"version": 1, "peers": [{"name": "A", "waypoints": \#(waypoint(0, a, z: 1.2 + rise))}, "#
            + #"{"name": "B", "waypoints": \#(waypoint(0.6, b, z: 1.2))}, {"name": "C", "waypoints": [{"t": 0, "x": 9, "y": 9}]}], "#
            + #""encounters": [{"class": "hardTap", "peers": ["A", "B"], "t": 1, "closingSpeed": 0.6, "#
            + #""minimumDistance": \#(minimumDistance), "hold": \#(hold)}]}"#
        let file = try ScenarioFile.parse(Data(text.utf8), file: "s.json")
        let world = try World(scenario: .scripted(file), peers: 3, seed: 1)
        let clocks = (0..<3).map { DeviceClock(uptimeAtStart: 1000 * Double($0 + 1), rate: 0) }
        try world.startSensing(clocks: clocks, seed: 5, motion: PhoneMotionTests.quiet)
        _ = world.advance(to: 4)
        return world
    }

    /// The strongest jolt each of the two phones found in its own samples, as the world's direction of its push and
    /// the push's upward share the phone read against its resting reading.
    private func pushes(_ world: World) throws -> [(world: Vector3, upward: Float)] {
        try (0..<2).map { d in
            var finder = ImpactExtractor()
            let jolt = try #require(world.samples[d].compactMap { finder.take($0) }.max { $0.peak < $1.peak })
            #expect(jolt.peak > 5, "phone \(d): \(jolt)")
            let o = world.bodies[d].orientation
            let push = o.toWorld(Vector3(Double(jolt.direction.x), Double(jolt.direction.y), Double(jolt.direction.z)))
            return (push, jolt.vertical)
        }
    }

    /// Every pose pushes A straight away from B along the line the hands close on (the world's -x) and B along +x,
    /// within 15°: side-on (right edges together), tops together (held flat), both pitched 45° (the top edges meet),
    /// rolled, screen to back. Before the cases were rounded, the edges' meetings took the first of two tied face
    /// axes, 45° off. The two pushes' upward shares, each read by its own phone, sum to 0 within 0.25. What the chip
    /// reads besides the push is the phone's turn in the hand where the backs meet off their centres (rolled 40° and
    /// -70°: 12.4° and 0.20).
    @Test(arguments: [
        ("sideOn", (90.0, 0.0, 0.0), (270.0, 0.0, 0.0)),
        ("topsTogether", (0.0, -90.0, 0.0), (180.0, -90.0, 0.0)),
        ("pitched45", (0.0, -45.0, 0.0), (180.0, -45.0, 0.0)),
        ("rolled", (0.0, 0.0, 40.0), (180.0, 0.0, -70.0)),
        ("screenToBack", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)),
    ])
    func aPushRunsAlongTheLineBetweenWhatMeets(_ pose: String, _ a: (Double, Double, Double),
                                              _ b: (Double, Double, Double)) throws {
        let world = try tapped(a, b)
        #expect(world.tracker.contacts.count == 1, "\(pose): \(world.tracker.contacts)")
        let p = try pushes(world)
        let cosine = cos(15 * Double.pi / 180)
        #expect(p[0].world.dot(Vector3(-1, 0, 0)) > cosine, "\(pose): A pushed \(p[0].world)")
        #expect(p[1].world.dot(Vector3(1, 0, 0)) > cosine, "\(pose): B pushed \(p[1].world)")
        #expect(abs(p[0].upward + p[1].upward) < 0.25, "\(pose): \(p[0].upward) + \(p[1].upward)")
    }

    /// One phone held 3 cm higher, both upright back to back: still one push each, opposite, and their upward
    /// shares sum to 0.
    @Test func phonesAtDifferentHeightsPushEachOtherOppositely() throws {
        let world = try tapped((0, 0, 0), (180, 0, 0), rise: 0.03)
        #expect(world.tracker.contacts.count == 1)
        let p = try pushes(world)
        #expect((p[0].world + p[1].world).length < 0.2, "\(p[0].world) \(p[1].world)")
        #expect(abs(p[0].upward + p[1].upward) < 0.2)
    }

    /// A tap held 0.21 s: the truth's contact lasts the hold and the few milliseconds the parting takes to clear a
    /// micrometre, not a multiple of the world's 50-ms step (it was scored 0.20 or 0.25 s; under 0.2 s, a brush).
    @Test func aContactIsTimedWhereTheBodiesMeetAndPart() throws {
        let world = try tapped((0, 0, 0), (180, 0, 0), hold: 0.21)
        let contact = try #require(world.tracker.contacts.first)
        let gesture = world.scriptedEncounters[0].gesture
        #expect(abs(contact.start - gesture.stopAt) < 1e-5, "\(contact.start) \(gesture.stopAt)")
        let duration = try #require(contact.duration)
        #expect(duration >= 0.21 && duration < 0.216, "\(duration)")
    }

    /// A tap aimed 4 cm short of where the backs meet brakes to rest there: no contact, the gap closing ever slower
    /// over its last 50 ms, under 1 mm/s at the end (it used to stop dead at 0.5 m/s).
    @Test func aHandAimedShortBrakes() throws {
        let world = try tapped((0, 0, 0), (180, 0, 0), minimumDistance: 0.05)
        #expect(world.tracker.contacts.isEmpty)
        let gesture = world.scriptedEncounters[0].gesture
        let startGap = world.scriptedEncounters[0].startGap
        let h = 0.001
        let speeds = stride(from: gesture.stopAt - 0.05, through: gesture.stopAt, by: 0.01).map { t in
            (gesture.closed(at: t, startGap: startGap) - gesture.closed(at: t - h, startGap: startGap)) / h
        }
        #expect(zip(speeds, speeds.dropFirst()).allSatisfy { $0 > $1 }, "\(speeds)")
        #expect(speeds.last! < 0.001 && speeds.first! > 0.01, "\(speeds)")
        #expect(abs(gesture.closed(at: gesture.stopAt, startGap: startGap) - (startGap - 0.05)) < 1e-9)
    }

    /// Two phones lying on a table 10 cm apart lengthwise are inside each other (a phone in its case is 15.06 cm
    /// long): the file is refused, naming both and how deep (along the axis they overlap least: the whole depth of
    /// the cases, level on one table).
    @Test func phonesStartingInsideEachOtherAreRefused() throws {
        let text = #"{"version": 1, "peers": [{"name": "left", "waypoints": [{"t": 0, "x": 0, "y": 0, "z": 0.75, "pitch": -90}]}, "#
            + #"{"name": "right", "waypoints": [{"t": 0, "x": 0.1, "y": 0, "z": 0.75, "pitch": -90}]}]}"#
        let file = try ScenarioFile.parse(Data(text.utf8), file: "s.json")
        #expect {
            _ = try World(scenario: .scripted(file), peers: 2, seed: 1)
        } throws: { error in
            "\(error)" == #"scenario file s.json: peers puts the phones of "left" and "right" inside each other at the start, 10.8 mm deep (their centres 10.00 cm apart; a phone in its case is 15.06 cm long)"#
        }
        // 15.1 cm apart they lie end to end, 0.4 mm between them.
        let apart = text.replacingOccurrences(of: #""x": 0.1,"#, with: #""x": 0.151,"#)
        _ = try World(scenario: .scripted(try ScenarioFile.parse(Data(apart.utf8), file: "s.json")), peers: 2, seed: 1)
    }
}
