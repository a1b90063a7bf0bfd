import Foundation
import Geometry
import Testing
@testable import World

/// Scripted encounters: the file's checks, and the world making each class's gesture with the closest approach and
/// the closing speed the file states.
@Suite struct EncounterTests {
    private static func file(_ encounters: String, gap: Double = 0.6) -> String {
        #"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0, "facing": "B"}]}, "#
            + #"{"name": "B", "waypoints": [{"t": 0, "x": \#(gap), "y": 0, "facing": "A"}]}, "#
            + #"{"name": "C", "waypoints": [{"t": 0, "x": 5, "y": 0}]}], "encounters": [\#(encounters)]}"#
    }

    private func parse(_ text: String) throws(ScenarioError) -> ScenarioFile {
        try ScenarioFile.parse(Data(text.utf8), file: "s.json")
    }

    private func problem(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func encountersAreReadInTimeOrder() throws {
        let file = try parse(Self.file(#"{"class": "hardTap", "peers": ["A", "B"], "t": 9, "closingSpeed": 0.5, "minimumDistance": 0.04}, "#
            + #"{"class": "softStop", "peers": ["B", "A"], "t": 2, "closingSpeed": 0.3, "minimumDistance": 0.12, "hold": 1}"#))
        #expect(file.encounters.map(\.kind) == [.softStop, .hardTap])
        #expect(file.encounters[0] == EncounterScript(kind: .softStop, a: 1, b: 0, t: 2, closingSpeed: 0.3,
                                                     minimumDistance: 0.12, hold: 1))
        #expect(file.encounters[1].hold == 0.5)
    }

    @Test(arguments: [
        (#"{"class": "bump", "peers": ["A", "B"], "t": 1, "closingSpeed": 0.5, "minimumDistance": 0.04}"#,
         #"scenario file s.json: encounters[0].class must be one of gentleTouch, hardTap, softStop, hardStop, fistBump, handshake, tableKnock, walkPast, setDown, not "bump""#),
        (#"{"class": "setDown", "peers": ["A", "B"], "t": 1, "closingSpeed": 0.2, "minimumDistance": 0.2}"#,
         "scenario file s.json: encounters[0].peers A's phone must be at least 0.02 m above B's to be set down beside it, got 0.000 m"),
        (#"{"class": "setDown", "peers": ["A", "B"], "t": 1, "closingSpeed": 0.2, "minimumDistance": 0.8}"#,
         "scenario file s.json: encounters[0].minimumDistance is 0.8 m, farther than the 0.6 m its two peers' phones are apart across the table"),
        (#"{"class": "hardTap", "peers": ["A", "Z"], "t": 1, "closingSpeed": 0.5, "minimumDistance": 0.04}"#,
         #"scenario file s.json: encounters[0].peers must name two different peers of the file, not ["A", "Z"]"#),
        (#"{"class": "hardTap", "peers": ["A", "A"], "t": 1, "closingSpeed": 0.5, "minimumDistance": 0.04}"#,
         #"scenario file s.json: encounters[0].peers must name two different peers of the file, not ["A", "A"]"#),
        (#"{"class": "hardTap", "peers": ["A", "B"], "t": 1, "closingSpeed": 0.5, "minimumDistance": -0.01}"#,
         "scenario file s.json: encounters[0].minimumDistance must be between 0 and 10 metres, got -0.01"),
        (#"{"class": "hardStop", "peers": ["A", "B"], "t": 1, "closingSpeed": 0.5, "minimumDistance": 11}"#,
         "scenario file s.json: encounters[0].minimumDistance must be between 0 and 10 metres, got 11.0"),
        (#"{"class": "hardStop", "peers": ["A", "B"], "t": 1, "closingSpeed": 0, "minimumDistance": 0.15}"#,
         "scenario file s.json: encounters[0].closingSpeed must be above 0 and at most 5 m/s, got 0.0"),
        (#"{"class": "hardStop", "peers": ["A", "C"], "t": 1, "closingSpeed": 1, "minimumDistance": 6}"#,
         "scenario file s.json: encounters[0].minimumDistance is 6.0 m, farther than the 5.0 m its two peers stand apart"),
        (#"{"class": "hardTap", "peers": ["A", "B"], "t": 1, "closingSpeed": 0.5, "minimumDistance": 0.04}, "#
            + #"{"class": "softStop", "peers": ["C", "B"], "t": 2, "closingSpeed": 0.3, "minimumDistance": 0.12}"#,
         "scenario file s.json: encounters[1].t is 2.0 s, before B's encounter before it ends (4.19 s)"),
        (#"{"class": "hardTap", "peers": ["A", "B"], "t": 1, "closingSped": 0.5, "minimumDistance": 0.04}"#,
         #"scenario file s.json: encounters[0].closingSped is not a field of an encounter (its fields: class, peers, t, closingSpeed, minimumDistance, hold, pose); did you mean "closingSpeed"?"#),
    ])
    func aBadEncounterIsNamed(_ encounter: String, _ expected: String) {
        let said = problem(Self.file(encounter))
        #expect(said?.hasPrefix(expected) == true, "\(said ?? "accepted")")
    }

    /// A file's own physics: the fields it names over the defaults, checked by name.
    @Test func aFileSetsItsOwnPhysics() throws {
        let base = Self.file(#"{"class": "hardTap", "peers": ["A", "B"], "t": 1, "closingSpeed": 0.5, "minimumDistance": 0.04}"#)
        let own = try parse(base.replacingOccurrences(of: #""encounters""#,
                                                      with: #""motion": {"caseModulus": 1.2e8, "tableMass": 40}, "encounters""#))
        let motion = try #require(own.motion)
        #expect(motion.cases.caseModulus == 1.2e8 && motion.tableMass == 40)
        #expect(motion.hands == MotionSettings().hands && motion.cases.restitution == 0.5)
        #expect(try parse(base).motion == nil)
        // Four times stiffer cases: a contact 4^(2/5) = 1.74 times shorter.
        let stiff = ContactMechanics.duration(closingSpeed: 0.3, reducedMass: 0.1, settings: motion.cases)
        let soft = ContactMechanics.duration(closingSpeed: 0.3, reducedMass: 0.1, settings: ContactSettings())
        #expect(abs(soft / stiff - pow(4, 0.4)) < 1e-9)
        #expect(problem(base.replacingOccurrences(of: #""encounters""#, with: #""motion": {"tableMass": -1}, "encounters""#))
                == "scenario file s.json: motion.tableMass must be between 0.1 and 10000.0, got -1.0")
        #expect(problem(base.replacingOccurrences(of: #""encounters""#, with: #""motion": {"handRestitution": 2}, "encounters""#))
                == "scenario file s.json: motion handRestitution must be between 0 and 1, got 2.0")
        #expect(problem(base.replacingOccurrences(of: #""encounters""#, with: #""motion": {"tablemass": 4}, "encounters""#))?
                .contains(#"motion.tablemass is not a field of the motion"#) == true)
        // The holders' own motion, by the same object.
        let hands = try #require(try parse(base.replacingOccurrences(
            of: #""encounters""#, with: #""motion": {"tremor": 0.3, "screenTapRate": 1, "heelStrikeInPocket": 30}, "encounters""#)).motion)
        #expect(hands.own.tremorMedian == 0.3 && hands.own.screenTapRate == 1 && hands.own.heelStrikeInPocket == 30)
        #expect(hands.own.heelStrikeInHand == HandSettings().heelStrikeInHand)
        let durations = try #require(try parse(base.replacingOccurrences(
            of: #""encounters""#,
            with: #""motion": {"heelStrikeDuration": 0.06, "screenTapDuration": 0.005, "fingertipMass": 0.02}, "encounters""#)).motion)
        #expect(durations.own.heelStrikeDuration == 0.06 && durations.own.screenTapDuration == 0.005
            && durations.own.fingertipMass == 0.02)
        let swipes = try #require(try parse(base.replacingOccurrences(
            of: #""encounters""#, with: #""motion": {"screenSwipeRate": 0.5, "swipeForce": 2}, "encounters""#)).motion)
        #expect(swipes.own.screenSwipeRate == 0.5 && swipes.own.swipeForce == 2)
        #expect(problem(base.replacingOccurrences(of: #""encounters""#, with: #""motion": {"fingertipMass": 1}, "encounters""#))
                == "scenario file s.json: motion fingertipMass must be between 0.001 and 0.2, got 1.0")
        #expect(problem(base.replacingOccurrences(of: #""encounters""#, with: #""motion": {"screenTapRate": 20}, "encounters""#))
                == "scenario file s.json: motion screenTapRate must be between 0.0 and 10.0, got 20.0")
        #expect(problem(base.replacingOccurrences(of: #""encounters""#, with: #""motion": {"tremor": -1}, "encounters""#))
                == "scenario file s.json: motion tremor must be between 0.0 and 5.0, got -1.0")
    }

    /// The world makes each gesture: the phones come to the stated closest approach, or stop where their bodies
    /// meet when the script aims through them (a touch: backs together, the centres a phone's depth apart); a touch
    /// (a fist bump, a handshake's clasp) meets at the stated closing speed, a stop peaks at it, a handshake lifts
    /// both phones together, and the phones end where their waypoints hold them.
    @Test(arguments: [EncounterClass.gentleTouch, .hardTap, .softStop, .hardStop, .fistBump, .handshake])
    func theWorldMakesTheGesture(_ kind: EncounterClass) throws {
        // Where what meets stops the phones: their backs, or the hands around them (twice a hand's reach in front
        // of the back, and the phone's depth); a stop's aim.
        let phone = PhoneBody.iPhone15
        let distance = kind.isTouch ? phone.size.z : kind.grip.map { 2 * $0.size.z + phone.size.z } ?? 0.14
        let speed = [EncounterClass.gentleTouch: 0.06, .hardTap: 0.6, .softStop: 0.3, .hardStop: 1.8,
                     .fistBump: 1.0, .handshake: 0.4][kind]!
        let meets = kind != .softStop && kind != .hardStop
        let aim = meets ? 0 : distance
        let file = try parse(Self.file(#"{"class": "\#(kind.rawValue)", "peers": ["A", "B"], "t": 1, "closingSpeed": \#(speed), "minimumDistance": \#(aim)}"#))
        let world = try World(scenario: .scripted(file), peers: 3, seed: 1)
        var closest = Double.infinity, previousGap = 0.6, fastest = 0.0, atContact: Double?
        var lifted = 0.0
        let dt = 0.0005
        for k in 1...16_000 {
            _ = world.advance(to: Double(k) * dt)
            let a = world.bodies[0].position, b = world.bodies[1].position
            let gap = (b - a).length
            let closing = (previousGap - gap) / dt
            fastest = max(fastest, closing)
            // The last step wholly before the contact: the one that reaches it is cut short by it.
            if gap > distance + 1e-9, closest > distance + 1e-9 { atContact = closing }
            #expect(abs(a.z - b.z) < 1e-9)
            lifted = max(lifted, abs(a.z - 1.2))
            closest = min(closest, gap)
            previousGap = gap
        }
        #expect(abs(closest - distance) < 1e-6, "\(closest)")
        if meets {
            let met = try #require(atContact)
            #expect(abs(met - speed) < 0.03 * speed + 0.002, "met at \(met) m/s")
        } else {
            #expect(abs(fastest - speed) < 0.01 * speed, "peaked at \(fastest) m/s")
        }
        #expect(kind == .handshake ? abs(lifted - 0.03) < 1e-3 : lifted < 1e-9, "\(lifted)")
        #expect((world.bodies[0].position - Vector3(0, 0, 1.2)).length < 1e-9)
        #expect((world.bodies[1].position - Vector3(0.6, 0, 1.2)).length < 1e-9)
        // The truth: a contact of the bodies exactly where the script's touches meet, none elsewhere.
        #expect(world.tracker.contacts.count == (kind.isTouch ? 1 : 0))
    }

    /// A set-down brings the setter's phone straight down from her hand to its place beside the other's, meeting
    /// the table there at the script's speed, leaves it there for the hold, and picks it up the way it came; the
    /// other phone never moves.
    @Test func theWorldSetsAPhoneDown() throws {
        let text = #"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0, "z": 0.95, "pitch": -90}]}, "#
            + #"{"name": "B", "waypoints": [{"t": 0, "x": 0.3, "y": 0, "z": 0.75, "pitch": -90}], "carry": "table"}], "#
            + #""encounters": [{"class": "setDown", "peers": ["A", "B"], "t": 1, "closingSpeed": 0.15, "minimumDistance": 0.2, "hold": 1}]}"#
        let file = try parse(text)
        let world = try World(scenario: .scripted(file), peers: 2, seed: 1)
        let gesture = world.scriptedEncounters[0].gesture
        var previous = world.bodies[0].position, lastDescent = 0.0, lowest = Double.infinity
        let dt = 0.0005
        for k in 1...10_000 {
            _ = world.advance(to: Double(k) * dt)
            let a = world.bodies[0].position
            // The last step wholly before the landing: the one that reaches it is cut short by it.
            if a.z > 0.75 + 1e-9, world.time < gesture.stopAt { lastDescent = (previous.z - a.z) / dt }
            lowest = min(lowest, a.z)
            if abs(world.time - (gesture.stopAt + 0.5)) < dt / 2 {
                #expect((a - Vector3(0.1, 0, 0.75)).length < 1e-9, "\(a)")
            }
            #expect((world.bodies[1].position - Vector3(0.3, 0, 0.75)).length < 1e-12)
            previous = a
        }
        #expect(abs(lastDescent - 0.15) < 0.03 * 0.15, "met the table at \(lastDescent) m/s")
        #expect(abs(lowest - 0.75) < 1e-9, "\(lowest)")
        #expect((world.bodies[0].position - Vector3(0, 0, 0.95)).length < 1e-9)
        #expect(world.tracker.contacts.isEmpty)
    }

    /// examples/bump-classes.json (made by tools/make-bump-classes) is what it says: as many encounters that are not
    /// touches as touches, every class but the set-down (which came after it: tools/make-encounters draws them), each
    /// realised by the world (a touch for each touch, none elsewhere).
    @Test func bumpClassesIsBalancedAndRealised() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = try ScenarioFile.load(path: root.appendingPathComponent("examples/bump-classes.json").path)
        let counts = Dictionary(grouping: file.encounters, by: \.kind).mapValues(\.count)
        #expect(Set(counts.keys) == Set(EncounterClass.allCases).subtracting([.setDown]))
        let touches = file.encounters.filter(\.kind.isTouch).count
        #expect(touches == 36 && file.encounters.count == 72)
        let world = try World(scenario: .scripted(file), peers: file.peers.count, seed: 1)
        _ = world.advance(to: 60)
        let contacts = world.tracker.contacts
        #expect(contacts.count == touches)
        for script in file.encounters where script.kind.isTouch {
            let pair = (min(script.a, script.b), max(script.a, script.b))
            #expect(contacts.contains { ($0.a, $0.b) == pair && abs($0.start - script.t) < 5 })
        }
    }
}
