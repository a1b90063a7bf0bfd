import Foundation
import GSL
import Geometry

/// Where a peer carries its phone.
package enum Carry: String, Sendable, CaseIterable {
    /// Held out in the hand, as someone using it does.
    case hand
    /// In a trouser pocket, against the thigh.
    case pocket
    /// In a bag carried on the shoulder.
    case bag
    /// Lying on a table, out of anyone's hand: no tremor, no step, no finger on its screen.
    case table
}

/// What a phone feels of its holder besides the holder's deliberate moves and the contacts of an encounter: the
/// hand's physiological tremor, the transients of heel strikes while walking, the finger tapping the screen. Sources
/// in docs/sensors.md ("The hand's own world"); each figure is cited or named an assumption with a row in the
/// sensitivity table.
package struct HandSettings: Sendable, Equatable {
    /// Physiological tremor of a hand holding a phone out: its peak at the dominant frequency, log-normal with this
    /// median, m/s² (0.01 g), and spread of its logarithm, which puts the 0.0015-g and 0.035-g ends two spreads out
    /// (Wade, Gresty and Findley 1982, 97 subjects: 0.0015 to 0.035 g, modal 0.01 g) ...
    package var tremorMedian = 0.01 * IMUSettings.gravity
    package var tremorSpread = 0.75
    /// ... at a dominant frequency drawn for each hand within this many hertz of `tremorFrequency` (their modal 7 Hz
    /// and mean range of variability, 2.5 Hz).
    package var tremorFrequency = 7.0
    package var tremorFrequencySpread = 1.25
    /// A heel strike's transient, as it reaches the phone: a half-sine of `heelStrikeDuration`, upward, its peak
    /// log-normal with the median of where the phone is carried, m/s², and `heelStrikeSpread`. Light, McLellan and
    /// Klenerman (1980) measured 5 g at the tibia and 0.5 g at the skull with hard heels, half with soft ones: a hand
    /// is taken to get the skull's share between the two (0.35 g), a pocket on the thigh 2 g, a bag on the shoulder
    /// 0.2 g; assumptions, with the duration, in the sensitivity table.
    package var heelStrikeInHand = 0.35 * IMUSettings.gravity
    package var heelStrikeInPocket = 2 * IMUSettings.gravity
    package var heelStrikeInBag = 0.2 * IMUSettings.gravity
    package var heelStrikeSpread = 0.35
    package var heelStrikeDuration = 0.03
    /// The holder's finger tapping the screen of a phone in the hand, this many times a second (an assumption: one
    /// tap every five seconds of use) ...
    package var screenTapRate = 0.2
    /// ... a fingertip of this effective mass, kg, arriving at a speed log-normal with this median, m/s, and spread
    /// (typing: fingertips reach keys at 0.2 to 0.6 m/s, Jindrich, Balakrishnan and Dennerlein 2004), the pulp's
    /// contact lasting this long, seconds, and giving back this share: assumptions in the sensitivity table.
    package var fingertipMass = 0.01
    package var fingertipSpeed = 0.35
    package var fingertipSpeedSpread = 0.35
    package var screenTapDuration = 0.015
    package var screenTapRestitution = 0.2
    /// The holder's finger sliding across the screen (a swipe, a scroll), this many times a second (an assumption:
    /// one every ten seconds of use) ...
    package var screenSwipeRate = 0.1
    /// ... pressing and dragging with a resultant force log-normal with this median, N, and spread, tilted this far
    /// from the screen's normal toward the slide, radians, over this long, seconds: 13 subjects' sliding gestures
    /// averaged 0.79 to 1.18 N and took 0.42 s (slide right; Asakawa et al. 2017, "Fingertip forces and completion
    /// time for index finger and thumb touchscreen gestures"); the tilt is an assumption. The hand and the phone
    /// move together under a push this slow: `swipeMass`, kg (the hand's 0.45 kg and the phone's 0.2, as for
    /// fists and clasps).
    package var swipeForce = 1.0
    package var swipeForceSpread = 0.35
    package var swipeTilt = Double.pi / 4
    package var swipeDuration = 0.42
    package var swipeMass = 0.65

    package init() {}

    /// A hand that adds nothing of its own to what the script and the contacts make: to look at one of them alone.
    package static let still: HandSettings = {
        var s = HandSettings()
        s.tremorMedian = 0
        s.heelStrikeInHand = 0
        s.heelStrikeInPocket = 0
        s.heelStrikeInBag = 0
        s.screenTapRate = 0
        s.screenSwipeRate = 0
        return s
    }()

    /// A heel strike's median peak with the phone carried as `carry` says.
    package func heelStrike(_ carry: Carry) -> Double {
        switch carry {
        case .hand: heelStrikeInHand
        case .pocket: heelStrikeInPocket
        case .bag: heelStrikeInBag
        case .table: 0
        }
    }

    /// The first setting out of range, named, or `nil`.
    package func problem() -> String? {
        let checks: [(String, Double, ClosedRange<Double>)] = [
            ("tremorMedian", tremorMedian, 0...5), ("tremorSpread", tremorSpread, 0...3),
            ("tremorFrequency", tremorFrequency, 1...30), ("tremorFrequencySpread", tremorFrequencySpread, 0...10),
            ("heelStrikeInHand", heelStrikeInHand, 0...100), ("heelStrikeInPocket", heelStrikeInPocket, 0...200),
            ("heelStrikeInBag", heelStrikeInBag, 0...100), ("heelStrikeSpread", heelStrikeSpread, 0...3),
            ("heelStrikeDuration", heelStrikeDuration, 0.001...0.5), ("screenTapRate", screenTapRate, 0...10),
            ("fingertipMass", fingertipMass, 0.001...0.2), ("fingertipSpeed", fingertipSpeed, 0...5),
            ("fingertipSpeedSpread", fingertipSpeedSpread, 0...3),
            ("screenTapDuration", screenTapDuration, 0.001...0.2),
            ("screenTapRestitution", screenTapRestitution, 0...1),
            ("screenSwipeRate", screenSwipeRate, 0...10), ("swipeForce", swipeForce, 0...20),
            ("swipeForceSpread", swipeForceSpread, 0...3), ("swipeTilt", swipeTilt, 0...(Double.pi / 2)),
            ("swipeDuration", swipeDuration, 0.01...5), ("swipeMass", swipeMass, 0.05...5),
        ]
        for (name, value, range) in checks where !(value.isFinite && range.contains(value)) {
            return "\(name) must be between \(range.lowerBound) and \(range.upperBound), got \(value)"
        }
        return nil
    }
}

/// Every phone's share of its holder's own motion: each hand's tremor, drawn once, and the pushes of heel strikes
/// and screen taps, drawn as the world moves, from each phone's own stream of the run. The world knows when its
/// people walk and how each holds its phone; nothing here reads an encounter or the truth.
struct OwnMotions {
    let settings: HandSettings
    let phoneMass: Double
    private let carry: [Carry]
    /// Each hand's tremor: two components at right angles, each a sinusoid (angular frequency, peak, phase).
    private let tremor: [(first: Vector3, second: Vector3, omega: (Double, Double), phase: (Double, Double))]
    private let random: [RandomSource]

    init(carry: [Carry], settings: HandSettings, phoneMass: Double, runSeed: UInt64) throws(GSLError) {
        self.settings = settings
        self.carry = carry
        self.phoneMass = phoneMass
        var random: [RandomSource] = []
        var tremor: [(first: Vector3, second: Vector3, omega: (Double, Double), phase: (Double, Double))] = []
        for d in carry.indices {
            let r = try RandomSource(runSeed: runSeed,
                                     stream: StreamIdentity(kind: .sensors, first: UInt64(d), second: 3))
            let axis = r.gaussians(sigma: 1).normalized
            var across = axis.cross(Vector3(0, 0, 1))
            if across.length < 1e-6 { across = Vector3(1, 0, 0) }
            across = across.normalized
            let peak = carry[d] == .hand ? settings.tremorMedian * exp(settings.tremorSpread * r.gaussian(sigma: 1)) : 0
            let f = settings.tremorFrequency + settings.tremorFrequencySpread * (2 * r.uniform() - 1)
            // The second component a little off the first: the tremor's peak is a band, not a line.
            tremor.append((axis * peak, across * peak / 2, (2 * .pi * f, 2 * .pi * f * 1.08),
                           (2 * .pi * r.uniform(), 2 * .pi * r.uniform())))
            random.append(r)
        }
        self.tremor = tremor
        self.random = random
    }

    /// Phone `i`'s tremor at `t`, world frame, m/s².
    @inline(__always)
    func tremor(_ i: Int, at t: Double) -> Vector3 {
        let h = tremor[i]
        guard h.first.x != 0 || h.first.y != 0 || h.first.z != 0 else { return .zero }
        return h.first * sin(h.omega.0 * t + h.phase.0) + h.second * sin(h.omega.1 * t + h.phase.1)
    }

    /// Phone `i`'s tremor for samples `interval` apart: each sample right after the one before turns the two
    /// sinusoids' phases by a fixed angle instead of computing two sines (within 1e-12 of them over a world step).
    func tremorSampler(_ i: Int, interval: Double) -> TremorSampler {
        let h = tremor[i]
        return TremorSampler(first: h.first, second: h.second, omega: h.omega, phase: h.phase, interval: interval)
    }

    /// The heel strikes of phone `i`'s holder in the world's step from `start` to `end`, while walking at
    /// `walking.level` (0 standing to 1 walking), its steps at `walking.phase(at: t)` (a heel strikes where the
    /// body's rise and fall peaks upward: the phase crossing π/2).
    func heelStrikes(_ i: Int, from start: Double, to end: Double, walking: Walking) -> [ContactPulse] {
        let omega = walking.omega
        guard walking.level > 0.5, omega > 0, settings.heelStrike(carry[i]) > 0 else { return [] }
        var pulses: [ContactPulse] = []
        let p0 = walking.phase(at: start)
        // The first crossing of π/2 (mod 2π) after the start.
        var k = ((p0 - .pi / 2) / (2 * .pi)).rounded(.down) + 1
        while true {
            let t = start + (Double.pi / 2 + 2 * .pi * k - p0) / omega
            guard t <= end else { break }
            if t > start {
                let peak = settings.heelStrike(carry[i]) * exp(settings.heelStrikeSpread * random[i].gaussian(sigma: 1))
                pulses.append(ContactPulse(start: t, duration: settings.heelStrikeDuration, peak: peak,
                                           direction: Vector3(0, 0, 1)))
            }
            k += 1
        }
        return pulses
    }

    /// A tap of the holder's finger on phone `i`'s screen in the world's step of `dt` ending at `end`, if one
    /// came: pushed into the screen (`screen`, the screen's outward normal, world frame).
    func screenTap(_ i: Int, endingAt end: Double, dt: Double, screen: Vector3) -> ContactPulse? {
        guard carry[i] == .hand, settings.screenTapRate > 0, random[i].bernoulli(settings.screenTapRate * dt) else {
            return nil
        }
        let s = settings
        let speed = s.fingertipSpeed * exp(s.fingertipSpeedSpread * random[i].gaussian(sigma: 1))
        let dv = (1 + s.screenTapRestitution) * s.fingertipMass * speed / (s.fingertipMass + phoneMass)
        return ContactPulse(start: end - random[i].uniform() * dt, duration: s.screenTapDuration,
                            peak: .pi * dv / (2 * s.screenTapDuration), direction: -screen)
    }

    /// A swipe of the holder's finger across phone `i`'s screen begun in the world's step of `dt` ending at `end`,
    /// if one came: a slow push into the screen and along it, in a direction of the screen's plane drawn at random
    /// (`screen`, `across`: the screen's outward normal and one of its in-plane axes, world frame).
    func screenSwipe(_ i: Int, endingAt end: Double, dt: Double, screen: Vector3, across: Vector3) -> ContactPulse? {
        let s = settings
        guard carry[i] == .hand, s.screenSwipeRate > 0, random[i].bernoulli(s.screenSwipeRate * dt) else {
            return nil
        }
        let force = s.swipeForce * exp(s.swipeForceSpread * random[i].gaussian(sigma: 1))
        let angle = 2 * Double.pi * random[i].uniform()
        let along = across * cos(angle) + screen.cross(across) * sin(angle)
        let direction = -screen * cos(s.swipeTilt) + along * sin(s.swipeTilt)
        return ContactPulse(start: end - random[i].uniform() * dt, duration: s.swipeDuration,
                            peak: force / s.swipeMass, direction: direction)
    }
}

/// One hand's tremor sampled at a chip's even intervals (``OwnMotions/tremorSampler(_:interval:)``).
struct TremorSampler {
    let first: Vector3
    let second: Vector3
    let omega: (Double, Double)
    let phase: (Double, Double)
    let interval: Double
    private let turn: (first: (cos: Double, sin: Double), second: (cos: Double, sin: Double))
    private var last: (t: Double, first: (cos: Double, sin: Double), second: (cos: Double, sin: Double))?

    init(first: Vector3, second: Vector3, omega: (Double, Double), phase: (Double, Double), interval: Double) {
        self.first = first
        self.second = second
        self.omega = omega
        self.phase = phase
        self.interval = interval
        turn = ((cos(omega.0 * interval), sin(omega.0 * interval)), (cos(omega.1 * interval), sin(omega.1 * interval)))
    }

    mutating func at(_ t: Double) -> Vector3 {
        guard first.x != 0 || first.y != 0 || first.z != 0 else { return .zero }
        func rotate(_ p: (cos: Double, sin: Double), _ r: (cos: Double, sin: Double)) -> (cos: Double, sin: Double) {
            (p.cos * r.cos - p.sin * r.sin, p.sin * r.cos + p.cos * r.sin)
        }
        let now: (t: Double, first: (cos: Double, sin: Double), second: (cos: Double, sin: Double))
        if let l = last, abs(t - l.t - interval) < 1e-9 {
            now = (t, rotate(l.first, turn.first), rotate(l.second, turn.second))
        } else {
            let a = omega.0 * t + phase.0, b = omega.1 * t + phase.1
            now = (t, (cos(a), sin(a)), (cos(b), sin(b)))
        }
        last = now
        return first * now.first.sin + second * now.second.sin
    }
}

/// How far a holder's steps are under way (0 standing to 1 walking), and their phase: `omega (t - shift) + offset`.
/// Plain numbers, not a closure: every phone asks at every world step.
struct Walking {
    var level: Double
    var omega: Double
    var shift: Double
    var offset: Double

    static let standing = Walking(level: 0, omega: 0, shift: 0, offset: 0)

    func phase(at t: Double) -> Double { omega * (t - shift) + offset }
}
