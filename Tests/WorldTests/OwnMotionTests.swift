import Bump
import DeviceInterface
import Foundation
import Geometry
import Radio
import Testing
@testable import World

/// What a phone feels of its holder alone (``OwnMotions``): a held phone's tremor, a walker's heel strikes, the
/// finger's screen taps; a phone in a pocket feels its holder's steps harder and no tremor and no taps.
@Suite struct OwnMotionTests {
    /// One peer standing still for `still` seconds, then walking 6 m in 4 s, carrying its phone as `carry` says.
    private func sensed(carry: Carry, still: Double, seed: UInt64 = 3, hand: HandSettings = HandSettings())
        throws -> (samples: [AccelerometerSample], clock: DeviceClock)
    {
        let waypoints = #"[{"t": 0, "x": 0, "y": 0}, {"t": \#(still), "x": 0, "y": 0}, {"t": \#(still + 4), "x": 6, "y": 0}]"#
        let text = #"{"version": 1, "peers": [{"name": "A", "carry": "\#(carry.rawValue)", "waypoints": \#(waypoints)}, "#
            + #"{"name": "B", "waypoints": [{"t": 0, "x": 9, "y": 9}]}]}"#
        let file = try ScenarioFile.parse(Data(text.utf8), file: "s.json")
        let world = try World(scenario: .scripted(file), peers: 2, seed: seed)
        let clocks = [DeviceClock(uptimeAtStart: 100, rate: 0), DeviceClock(uptimeAtStart: 200, rate: 0)]
        var motion = MotionSettings()
        motion.own = hand
        var imu = IMUSettings()
        imu.biasSigma = 0
        try world.startSensing(clocks: clocks, seed: seed, imu: imu, motion: motion)
        _ = world.advance(to: still + 4)
        return (world.samples[0], clocks[0])
    }

    /// The jolts the phone finds in its own samples between two of the world's times.
    private func jolts(_ s: (samples: [AccelerometerSample], clock: DeviceClock), from: Double, to: Double)
        -> [SampledImpact] {
        var finder = ImpactExtractor()
        return s.samples.compactMap { finder.take($0) }.filter {
            let t = s.clock.time(atReading: $0.time)
            return t >= from && t < to
        }
    }

    /// A phone held still shakes with its hand's tremor, well over the chip's noise and under a tenth of a g; the
    /// same phone in a pocket reads the chip's noise alone.
    @Test func aHeldPhoneTremblesAPocketedOneDoesNot() throws {
        func spread(_ carry: Carry) throws -> Double {
            var hand = HandSettings()
            hand.screenTapRate = 0
            hand.screenSwipeRate = 0
            let s = try sensed(carry: carry, still: 20, hand: hand)
            let rest = s.samples.filter { s.clock.time(atReading: $0.timestamp) < 19 }.map {
                Vector3(Double($0.x), Double($0.y), Double($0.z))
            }
            let mean = rest.reduce(Vector3.zero, +) / Double(rest.count)
            return (rest.map { ($0 - mean).lengthSquared }.reduce(0, +) / Double(rest.count)).squareRoot()
        }
        let noise = IMUSettings().sampleNoise * 3.0.squareRoot()
        let held = try spread(.hand), pocket = try spread(.pocket)
        #expect(abs(pocket / noise - 1) < 0.15, "\(pocket) against \(noise)")
        #expect(held > 2 * noise && held < 0.1 * IMUSettings.gravity, "\(held)")
        // Each hand draws its own: across seeds the tremor spans the normative study's range.
        let own = try OwnMotions(carry: Array(repeating: .hand, count: 200), settings: HandSettings(), phoneMass: 0.2,
                                 runSeed: 1)
        let peaks = (0..<200).map { i in stride(from: 0.0, to: 2, by: 0.001).map { own.tremor(i, at: $0).length }.max()! }
        let sorted = peaks.sorted()
        let g = IMUSettings.gravity
        #expect(sorted[100] > 0.007 * g && sorted[100] < 0.016 * g, "\(sorted[100] / g) g median")
        #expect(sorted[5] > 0.001 * g && sorted[194] < 0.06 * g)
    }

    /// A walker's phone feels a heel strike at each step (1.8 a second), on top of the body's rise and fall: the
    /// phone finds one upward jolt a step (the rise and fall's troughs make wide downward ones between), and a
    /// pocket's are far harder than a hand's.
    @Test func aWalkersPhoneFeelsItsHeelStrikes() throws {
        var hand = HandSettings()
        hand.screenTapRate = 0
        hand.screenSwipeRate = 0
        // The phone stands upright: up is its top edge, y.
        func upward(_ carry: Carry, _ hand: HandSettings) throws -> [SampledImpact] {
            jolts(try sensed(carry: carry, still: 1, hand: hand), from: 1.5, to: 4.5).filter { $0.direction.y > 0.9 }
        }
        let median = { (j: [SampledImpact]) in j.map(\.peak).sorted()[j.count / 2] }
        // 3 s of walking: 5.4 steps.
        let inHand = try upward(.hand, hand), inPocket = try upward(.pocket, hand)
        #expect(inHand.count >= 5 && inHand.count <= 7 && inPocket.count >= 5 && inPocket.count <= 7)
        #expect(median(inPocket) > 2 * median(inHand), "\(median(inPocket)) \(median(inHand))")
        // Without heel strikes the rise and fall alone departs by its 3.2 m/s² and the lag of the resting reading the
        // finder follows (about 4 here), under a hand's strikes on it.
        let smooth = try upward(.hand, HandSettings.still)
        #expect(smooth.dropFirst().allSatisfy { $0.peak < 4.5 } && median(inHand) > median(smooth) + 1,
                "\(smooth.map(\.peak)) \(median(inHand))")
        // Standing, no steps.
        #expect(jolts(try sensed(carry: .hand, still: 1, hand: hand), from: 0.2, to: 0.9).isEmpty)
    }

    /// The holder's finger taps the screen of a phone in the hand: narrow jolts pushing into the screen, at about
    /// the set rate; never in a pocket.
    @Test func aFingerTapsTheScreen() throws {
        var hand = HandSettings()
        hand.screenSwipeRate = 0
        let held = try sensed(carry: .hand, still: 100, hand: hand)
        let taps = jolts(held, from: 0.5, to: 100)
        // Poisson at 0.2 a second over 99.5 s: 19.9 expected, within 3.5 standard deviations.
        #expect(taps.count >= 5 && taps.count <= 36, "\(taps.count)")
        // The phone stands upright facing east: its screen faces west, and a tap pushes it east, out of its back.
        #expect(taps.allSatisfy { $0.direction.z < -0.9 && $0.width < 0.04 }, "\(taps.map(\.direction))")
        #expect(taps.allSatisfy { $0.peak > 0.5 && $0.peak < 8 }, "\(taps.map(\.peak))")
        let pocket = try sensed(carry: .pocket, still: 100)
        #expect(jolts(pocket, from: 0.5, to: 100).isEmpty)
    }

    /// The holder's finger swipes across the screen of a phone in the hand: slow pushes, into the screen and along
    /// it (1 N over 0.42 s on the hand and the phone, 0.65 kg: about 1.5 m/s²), at about the set rate; each a
    /// departure far wider than any knock, which no detector takes for one side of a bump; never in a pocket.
    @Test func aFingerSwipesTheScreen() throws {
        var hand = HandSettings()
        hand.screenTapRate = 0
        hand.tremorMedian = 0
        let held = try sensed(carry: .hand, still: 100, hand: hand)
        let swipes = jolts(held, from: 0.5, to: 100)
        // Poisson at 0.1 a second over 99.5 s: 9.95 expected; the gentlest (a log spread of 0.35 on the force)
        // stay under the finder's 1 m/s².
        #expect(swipes.count >= 2 && swipes.count <= 21, "\(swipes.count)")
        #expect(swipes.allSatisfy { $0.width > 0.05 && $0.peak < 6 }, "\(swipes.map { ($0.width, $0.peak) })")
        #expect(!swipes.contains {
            BumpConfiguration().isKnock(Impact(time: $0.time, magnitude: $0.peak, width: $0.width, interval: 0.01))
        })
        // Into the screen (the phone faces west: into it is east, its -z) as much as along it.
        #expect(swipes.allSatisfy { $0.direction.z < -0.3 }, "\(swipes.map(\.direction))")
        let pocket = try sensed(carry: .pocket, still: 100, hand: hand)
        #expect(jolts(pocket, from: 0.5, to: 100).isEmpty)
    }

    /// Sampled at a chip's even intervals, the tremor turns its phases instead of computing sines: the same values
    /// within 1e-9 m/s², also across a jump in time.
    @Test func theTremorsSamplerMatchesItsSines() throws {
        let own = try OwnMotions(carry: [.hand, .hand], settings: HandSettings(), phoneMass: 0.2, runSeed: 4)
        var sampler = own.tremorSampler(1, interval: 0.01)
        var worst = 0.0
        for k in 0..<3000 {
            let t = 0.003 + Double(k) * 0.01 + (k >= 1500 ? 7.5 : 0)
            worst = max(worst, (sampler.at(t) - own.tremor(1, at: t)).length)
        }
        #expect(worst < 1e-9, "\(worst)")
        #expect(own.tremor(1, at: 0.3).length > 0)
    }

    @Test func settingsOutOfRangeAreNamed() {
        var s = HandSettings()
        #expect(s.problem() == nil && HandSettings.still.problem() == nil)
        s.screenTapRate = 20
        #expect(s.problem() == "screenTapRate must be between 0.0 and 10.0, got 20.0")
    }
}
