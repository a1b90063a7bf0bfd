import Bump
import DeviceInterface
import Foundation
import Geometry
import Radio
import Testing
@testable import World

/// The accelerometers of a scripted scenario feel the phones' motion: a tap's push, a stop's braking, a knock
/// through the table, a walk's steps; and a phone at rest feels nothing but its chip's noise.
@Suite struct PhoneMotionTests {
    /// The world's physics with the holders' own motion left out: each test looks at one thing the world makes.
    static let quiet: MotionSettings = {
        var m = MotionSettings()
        m.own = .still
        return m
    }()

    /// Two phones 60 cm apart and one at rest far off; one encounter of the two at 1 s (a table knock: both lie on a
    /// table, 25 cm apart; a walk past: the first walks past the second at 0.5 m).
    private func sensed(_ kind: EncounterClass, speed: Double, distance: Double, until end: Double = 5,
                        motion: MotionSettings = quiet)
        throws -> (samples: [[AccelerometerSample]], clocks: [DeviceClock], world: World)
    {
        var a: String, b: String, hold: String
        switch kind {
        case .setDown:
            // A holds her phone flat 20 cm over the table B's lies on, 25 cm from it, and sets it down 20 cm from
            // B's, where it lies a second.
            a = #"[{"t": 0, "x": -0.25, "y": 0, "z": 0.95, "pitch": -90}]"#
            b = #"[{"t": 0, "x": 0, "y": 0, "z": 0.75, "pitch": -90}], "carry": "table""#
            hold = "1"
        case .tableKnock:
            a = #"[{"t": 0, "x": 0, "y": 0, "z": 0.75, "pitch": -90}]"#
            b = #"[{"t": 0, "x": 0.25, "y": 0, "z": 0.75, "pitch": -90}]"#
            hold = "0.3"
        case .walkPast:
            a = #"[{"t": 0, "x": -3, "y": 0.5, "heading": 0}, {"t": 1, "x": -3, "y": 0.5, "heading": 0}, {"t": 5, "x": 3, "y": 0.5, "heading": 0}]"#
            b = #"[{"t": 0, "x": 0, "y": 0, "facing": "A"}]"#
            hold = "4"
        default:
            a = #"[{"t": 0, "x": 0, "y": 0, "facing": "B"}]"#
            b = #"[{"t": 0, "x": 0.6, "y": 0, "facing": "A"}]"#
            hold = "0.5"
        }
        let text = #"{"version": 1, "peers": [{"name": "A", "waypoints": \#(a)}, {"name": "B", "waypoints": \#(b)}, "#
            + #"{"name": "C", "waypoints": [{"t": 0, "x": 9, "y": 9}]}], "encounters": [{"class": "\#(kind.rawValue)", "#
            + #""peers": ["A", "B"], "t": 1, "closingSpeed": \#(speed), "minimumDistance": \#(distance), "hold": \#(hold)}]}"#
        let file = try ScenarioFile.parse(Data(text.utf8), file: "s.json")
        let world = try World(scenario: .scripted(file), peers: 3, seed: 1)
        let clocks = (0..<3).map { DeviceClock(uptimeAtStart: 1000 * Double($0 + 1), rate: 1e-5 * Double($0)) }
        try world.startSensing(clocks: clocks, seed: 5, motion: motion)
        _ = world.advance(to: end)
        return (world.samples, clocks, world)
    }

    /// How far each sample is from what the phone read at rest before the encounter (gravity and its offset), and
    /// when, on the world's time.
    private func motion(_ samples: [AccelerometerSample], _ clock: DeviceClock) -> [(time: Double, value: Double)] {
        let rest = samples.filter { clock.time(atReading: $0.timestamp) < 0.9 }
        let n = Double(rest.count)
        let base = rest.reduce(Vector3.zero) { $0 + Vector3(Double($1.x), Double($1.y), Double($1.z)) } / n
        return samples.map { s in
            (clock.time(atReading: s.timestamp), (Vector3(Double(s.x), Double(s.y), Double(s.z)) - base).length)
        }
    }

    private func peak(_ m: [(time: Double, value: Double)]) -> (time: Double, value: Double) {
        m.max { $0.value < $1.value }!
    }

    @Test func aTapPushesBothPhonesAtOnceAndAGentleTouchBarely() throws {
        // A touch aims through the other phone; the bodies meet first (backs together, centres 1.08 cm apart).
        let tap = try sensed(.hardTap, speed: 0.6, distance: 0)
        let pa = peak(motion(tap.samples[0], tap.clocks[0])), pb = peak(motion(tap.samples[1], tap.clocks[1]))
        let contact = tap.world.scriptedEncounters[0].gesture.stopAt
        // Each phone's speed changes by 0.45 m/s in 4.5 ms; the chip's filter (3.9 ms) spreads it to 0.45 / 0.0039 =
        // 114 m/s² at most, and a sample up to 10 ms later reads e^(-10/3.9) of that: 9 m/s². Which sample falls
        // where is the phases' business (here 33 and 13); both are far over a hand's few m/s².
        #expect(pa.value > 9 && pb.value > 9, "\(pa) \(pb)")
        #expect(max(pa.value, pb.value) > 15, "\(pa) \(pb)")
        #expect(abs(pa.time - contact) < 0.02 && abs(pb.time - contact) < 0.02, "\(pa.time) \(pb.time) \(contact)")
        let gentle = try sensed(.gentleTouch, speed: 0.05, distance: 0)
        let ga = peak(motion(gentle.samples[0], gentle.clocks[0]))
        #expect(ga.value < pa.value / 5 && ga.value > 0.5, "\(ga)")
        // The phone at rest far off feels its chip's noise alone.
        #expect(peak(motion(tap.samples[2], tap.clocks[2])).value < 0.1)
        // 100 samples a second, on each phone's own clock.
        #expect(abs(tap.samples[0].count - 500) <= 1)
        #expect(tap.samples[1][0].timestamp > 2000 && tap.samples[1][0].timestamp < 2000.01)
    }

    /// What the phones themselves make of a tap (``ImpactExtractor``, on their own samples): one jolt each, at the
    /// contact on the world's time, narrow, each pushed away from the other, out of its own screen (the backs met).
    @Test func eachPhoneFindsTheTapInItsOwnSamples() throws {
        let tap = try sensed(.hardTap, speed: 0.6, distance: 0)
        let contact = tap.world.scriptedEncounters[0].gesture.stopAt
        for d in 0..<2 {
            var extractor = ImpactExtractor()
            let jolts = tap.samples[d].compactMap { extractor.take($0) }
            let strong = jolts.filter { $0.peak >= 6 }
            #expect(strong.count == 1, "\(jolts)")
            let jolt = try #require(strong.first)
            #expect(abs(tap.clocks[d].time(atReading: jolt.time) - contact) < 0.02)
            #expect(jolt.width <= 0.03)
            #expect(jolt.direction.z > 0.9, "\(jolt.direction)")
        }
    }

    /// Phones the waypoints bring together (no encounter scripted) feel their cases meet: each a push when their
    /// backs meet, at the speed they closed, away from the other.
    @Test func waypointsThatMeetPush() throws {
        let text = #"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0, "facing": "B"}, "#
            + #"{"t": 1, "x": 0, "y": 0, "facing": "B"}, {"t": 2, "x": 0.295, "y": 0, "facing": "B"}]}, "#
            + #"{"name": "B", "waypoints": [{"t": 0, "x": 0.6, "y": 0, "facing": "A"}, {"t": 1, "x": 0.6, "y": 0, "facing": "A"}, "#
            + #"{"t": 2, "x": 0.305, "y": 0, "facing": "A"}]}]}"#
        let file = try ScenarioFile.parse(Data(text.utf8), file: "s.json")
        let world = try World(scenario: .scripted(file), peers: 2, seed: 1)
        let clocks = [DeviceClock(uptimeAtStart: 10, rate: 0), DeviceClock(uptimeAtStart: 20, rate: 0)]
        try world.startSensing(clocks: clocks, seed: 5, motion: Self.quiet)
        _ = world.advance(to: 3)
        // They close at 0.59 m/s; their backs meet when their centres are 10.8 mm apart, at 1.9986 s.
        let met = 1 + (0.6 - world.phone.size.z) / 0.59
        #expect(abs(met - 1.9986) < 1e-4)
        // The truth times the contact where the bodies met, not at the world's 50-ms step that found it.
        #expect(world.tracker.contacts.count == 1 && abs((world.tracker.contacts.first?.start ?? 0) - met) < 1e-5,
                "\(world.tracker.contacts)")
        for d in 0..<2 {
            var extractor = ImpactExtractor()
            let strong = world.samples[d].compactMap { extractor.take($0) }.filter { $0.peak >= 6 }
            #expect(strong.count == 1)
            let jolt = try #require(strong.first)
            #expect(abs(clocks[d].time(atReading: jolt.time) - met) < 0.02, "\(jolt.time)")
            #expect(jolt.direction.z > 0.9)
        }
    }

    /// A hard stop brakes each hand at the minimum-jerk move's peak: 10/√3 times half the distance over the
    /// duration squared.
    @Test func aHardStopBrakesAtTheMovesPeak() throws {
        let stop = try sensed(.hardStop, speed: 1.8, distance: 0.14)
        let duration = MinimumJerkMove.peakSpeedFactor * 0.46 / 1.8
        let expected = MinimumJerkMove.peakAccelerationFactor * 0.23 / (duration * duration)
        let felt = peak(motion(stop.samples[0], stop.clocks[0])).value
        #expect(abs(felt - expected) < 0.1 * expected, "\(felt) against \(expected)")
        // A soft stop brakes at a twentieth of that (the hands then part in 0.8 s, at 2 m/s²).
        let soft = try sensed(.softStop, speed: 0.3, distance: 0.14, until: 6)
        let held = soft.world.scriptedEncounters[0].gesture.holdUntil
        #expect(peak(motion(soft.samples[0], soft.clocks[0]).filter { $0.time < held }).value < 0.3)
    }

    /// A knock on the table lifts both phones lying on it at the same instant, by the same push.
    @Test func aKnockReachesBothPhonesOnTheTable() throws {
        let knock = try sensed(.tableKnock, speed: 1.0, distance: 0.25)
        let pa = peak(motion(knock.samples[0], knock.clocks[0])), pb = peak(motion(knock.samples[1], knock.clocks[1]))
        #expect(pa.value > 2 && pb.value > 2, "\(pa) \(pb)")
        #expect(abs(pa.time - 1) < 0.015 && abs(pb.time - 1) < 0.015)
        #expect(abs(pa.value - pb.value) < 0.5 * max(pa.value, pb.value))
    }

    /// A phone set down on a table is pushed up by it as it lands (its speed of 20 cm/s taken out and half given
    /// back in a few milliseconds), the phone lying beside it barely (the table, 100 times heavier, moves by 3 mm/s);
    /// it lies where the script put it, its bottom on the table; it trembles in the hand and not while it lies there;
    /// and the two phones, their centres 20 cm apart (end to end: 5 cm between them), never touch.
    @Test func aSetDownIsFeltByTheTableNotThePhoneBesideIt() throws {
        // Sensed until 2.2 s: the phone met the table at 1.66 s and lies there until 2.66 s.
        let down = try sensed(.setDown, speed: 0.2, distance: 0.2, until: 2.2)
        let gesture = down.world.scriptedEncounters[0].gesture
        let pa = peak(motion(down.samples[0], down.clocks[0])), pb = peak(motion(down.samples[1], down.clocks[1]))
        #expect(pa.value > 5, "\(pa)")
        #expect(abs(pa.time - gesture.stopAt) < 0.015, "\(pa.time) against \(gesture.stopAt)")
        #expect(pb.value < pa.value / 5 && pb.value < 1, "\(pb) against \(pa)")
        // ... but over its chip's noise, when the other landed.
        #expect(pb.value > 0.15 && abs(pb.time - gesture.stopAt) < 0.015, "\(pb)")
        #expect(gesture.stopAt < 2.1 && gesture.holdUntil > 2.2)
        let lying = down.world.bodies[0].position
        #expect(abs(lying.x + 0.2) < 1e-9 && abs(lying.y) < 1e-9 && abs(lying.z - 0.75) < 1e-9, "\(lying)")
        #expect(down.world.tracker.contacts.isEmpty)
        // With the holders' own motion: A's phone trembles in her hand before, not on the table.
        let own = try sensed(.setDown, speed: 0.2, distance: 0.2, motion: MotionSettings())
        let m = motion(own.samples[0], own.clocks[0])
        func spread(_ from: Double, _ to: Double) -> Double {
            let v = m.filter { $0.time > from && $0.time < to }.map(\.value)
            let mean = v.reduce(0, +) / Double(v.count)
            return (v.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(v.count)).squareRoot()
        }
        let stop = own.world.scriptedEncounters[0].gesture.stopAt
        let onTable = spread(stop + 0.1, stop + 0.9), held = spread(0.1, 0.9)
        #expect(onTable < held / 2, "\(onTable) \(held)")
    }

    /// Two phones tapped back to back with one held 3 cm higher meet 1.5 cm off each centre: the push turns each
    /// in its holder's hand, about its own x axis (the push 0.09 N s, 1.5 cm off, over the slab's 3.6e-4 kg m²: a
    /// spin of 3.7 rad/s, which the grip takes back within about 50 ms). The gyroscope reads it at 100 Hz; phones
    /// at one height meet at their centres and do not turn.
    @Test(arguments: [0.0, 0.03]) func aTapOffTheCentreTurnsThePhones(rise: Double) throws {
        // Both held upright, backs toward each other (facing each other's centre would pitch them at contact range).
        let text = #"{"version": 1, "peers": [{"name": "A", "waypoints": [{"t": 0, "x": 0, "y": 0, "z": 1.2, "heading": 0}]}, "#
            + #"{"name": "B", "waypoints": [{"t": 0, "x": 0.6, "y": 0, "z": \#(1.2 + rise), "heading": 180}]}], "#
            + #""encounters": [{"class": "hardTap", "peers": ["A", "B"], "t": 1, "closingSpeed": 0.6, "minimumDistance": 0}]}"#
        let file = try ScenarioFile.parse(Data(text.utf8), file: "s.json")
        let world = try World(scenario: .scripted(file), peers: 2, seed: 1)
        let clocks = (0..<2).map { DeviceClock(uptimeAtStart: 1000 * Double($0 + 1), rate: 0) }
        var imu = IMUSettings()
        imu.gyroscope = true
        try world.startSensing(clocks: clocks, seed: 5, imu: imu, motion: Self.quiet)
        var gyro: [[GyroSample]] = [[], []]
        for k in 1...60 {
            _ = world.advance(to: Double(k) * 0.05)
            world.drainSamples { d, _, turns in gyro[d] += turns }
        }
        for d in 0..<2 {
            let top = gyro[d].max { abs($0.x) < abs($1.x) }!
            let across = gyro[d].map { max(abs($0.y), abs($0.z)) }.max()!
            if rise == 0 {
                #expect(abs(top.x) < 0.05 && across < 0.05, "\(top) \(across)")
            } else {
                // The grip turns it back at once: sampled every 10 ms, the rate is read somewhere between all of the
                // spin, right after the push, and (1 - u)e^(-u) = 0.3 of it, 10 ms (half the grip's time) after.
                #expect(abs(top.x) > 1.0 && abs(top.x) < 3.8, "\(top)")
                #expect(across < abs(top.x) / 5, "\(across) against \(top)")
                let contact = world.scriptedEncounters[0].gesture.stopAt
                #expect(abs(clocks[d].time(atReading: top.timestamp) - contact) < 0.03)
            }
        }
    }

    /// A walker's phone rises and falls with each step: about 3.2 m/s² at 1.8 steps a second.
    @Test func aWalkersPhoneFeelsTheSteps() throws {
        let walk = try sensed(.walkPast, speed: 1.5, distance: 0.5, until: 5)
        let during = motion(walk.samples[0], walk.clocks[0]).filter { $0.time > 1.5 && $0.time < 4.5 }
        let top = during.map(\.value).max() ?? 0
        #expect(abs(top - 3.2) < 0.4, "\(top)")
        // The one it passes stands still.
        #expect(peak(motion(walk.samples[1], walk.clocks[1])).value < 0.1)
    }

    /// In the mingle a walk's steps start and stop over the pace change, as the pace does: sampled every 10 ms, a
    /// phone's vertical acceleration never moves by more than a step's own sway (3.2 m/s² at 11.3 rad/s: 0.36 a
    /// sample), where switching the steps on in one sample would jump by up to 3.2 m/s², a jolt no walker makes.
    @Test func aWalksStepsStartAndStopSmoothly() {
        var motion = PoseMotion(positions: [.zero], settings: MotionSettings(), sampleInterval: 0.01)
        var position = Vector3.zero
        var largest = 0.0, strongest = 0.0
        var last: Double?
        // Standing 1 s, walking at 1.2 m/s for 2 s, standing again 2 s, in the world's 50-ms steps.
        for k in 1...100 {
            let time = Double(k) * 0.05
            let before = position
            if time > 1, time <= 3 { position.x += 1.2 * 0.05 }
            motion.step(from: [before], to: [position], at: time, dt: 0.05)
            var now = motion.motion(of: 0)
            for j in 1...5 {
                let z = now.acceleration(at: time - 0.05 + Double(j) * 0.01).z
                if let last { largest = max(largest, abs(z - last)) }
                strongest = max(strongest, abs(z))
                last = z
            }
        }
        #expect(strongest > 2.5, "the steps were felt: \(strongest)")
        #expect(largest < 0.45, "\(largest)")
    }

    /// The chip's samples turn each phase by one interval's rotation instead of computing its sine and cosine
    /// again: over a walk with changes of pace, every sample agrees with the exact phase (a fresh motion, which
    /// computes it) to 1e-9 m/s², while the steps and the raised cosines are felt at metres per second squared.
    @Test func rotatedPhasesAgreeWithTheExactOnes() {
        let interval = 1.0 / 100
        var motion = PoseMotion(positions: [.zero], settings: MotionSettings(), sampleInterval: interval)
        var position = Vector3.zero
        var worst = 0.0, strongest = 0.0
        var next = 0.0037
        for k in 1...120 {
            let time = Double(k) * 0.05
            let before = position
            // Walking on and off, with a change of pace every half second.
            if time > 0.5, time <= 5 { position.x += (k % 20 < 10 ? 1.2 : 0.6) * 0.05 }
            motion.step(from: [before], to: [position], at: time, dt: 0.05)
            var rotating = motion.motion(of: 0)
            while next <= time {
                // A motion taken out afresh has no last sample to turn from: it computes every phase.
                var fresh = motion.motion(of: 0)
                let exact = fresh.acceleration(at: next)
                let turned = rotating.acceleration(at: next)
                worst = max(worst, (turned - exact).length)
                strongest = max(strongest, exact.length)
                next += interval
            }
        }
        #expect(strongest > 2.5, "the motion was felt: \(strongest)")
        #expect(worst < 1e-9, "\(worst)")
    }
}

