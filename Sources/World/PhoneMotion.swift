import Foundation
import Geometry

/// What moves a held phone besides the scripted path itself, and how two things that meet push each other: the
/// world's side of the accelerometers. Sources in docs/sensors.md.
package struct MotionSettings: Sendable, Equatable {
    /// A change of velocity at a waypoint is spread over this long, seconds (a raised cosine): people change pace
    /// over about a step. An assumption.
    package var paceChange = 0.4
    /// While its holder walks, a phone rides the body's rise and fall: the centre of mass moves about 5 cm up and
    /// down each step (Inman, Ralston and Todd, Human Walking, 1981), at the cadence, a sinusoid of
    /// (excursion / 2)(2π cadence)² m/s², 3.2 at 1.8 steps a second.
    package var stepExcursion = 0.05
    package var cadence = 1.8
    /// Faster than this over the ground, m/s, the holder is walking.
    package var walking = 0.3
    /// Two phones' cases meeting.
    package var cases = ContactSettings()
    /// Two fists meeting, or two palms clasping, each holding its phone: a hand of 0.45 kg (0.6% of a 75-kg body,
    /// Winter's anthropometric tables) and its phone, meeting through soft tissue.
    package var hands: ContactSettings = {
        var h = ContactSettings()
        h.phoneMass = 0.65
        h.caseModulus = 0.5e6
        h.contactRadius = 0.04
        h.restitution = 0.3
        return h
    }()
    /// A forearm, 1.2 kg (1.6% of a 75-kg body, Winter's anthropometric tables), meeting a phone or another
    /// forearm through soft tissue, as a fist does; the side that meets with it is its hand, its phone and itself.
    package var forearmMass = 1.2
    /// A knuckle knocking on the table the phones lie on: the hand's mass, the table's, and how long the knock
    /// lasts, seconds. The table moves as one body: its push is the hand's momentum shared with it.
    package var knuckleMass = 0.45
    package var tableMass = 20.0
    package var knockDuration = 0.003
    /// The holder's own motion: tremor, heel strikes, screen taps.
    package var own = HandSettings()
    /// How long a hand's grip takes to bring back a phone a push turned, seconds: the time constant of a critically
    /// damped return (``TurnPulse``). An assumption (a grip settling like a system of about 8 Hz), with rows in the
    /// sensitivity table.
    package var gripSettle = 0.02

    package init() {}
}

/// Each phone's motion in a scripted scenario as its accelerometer feels it: the path's own changes of pace, the
/// encounters' hand moves, a handshake's shaking, the steps of a walk, and the pushes of what meets.
struct ScriptedMotion: PushedPhones {
    let file: ScenarioFile
    let settings: MotionSettings
    /// Each phone's pushes: contacts, fists, clasps, knocks.
    private(set) var pulses: [[ContactPulse]]
    /// Each phone's turns by pushes off its centre.
    private(set) var turns: [[TurnPulse]]
    private let encounters: [(script: EncounterScript, gesture: EncounterScript.Gesture, startGap: Double)]
    private let encountersOf: [[Int]]

    init(file: ScenarioFile, encounters: [(script: EncounterScript, gesture: EncounterScript.Gesture, startGap: Double)],
         encountersOf: [[Int]], settings: MotionSettings) {
        self.file = file
        self.settings = settings
        self.encounters = encounters
        self.encountersOf = encountersOf
        // Every push is found by the world where bodies meet (``meet(_:_:at:closingSpeed:normal:hands:)``,
        // ``knock(_:at:knuckleSpeed:)``), whatever the encounter's class.
        pulses = Array(repeating: [], count: file.peers.count)
        turns = pulses.map { _ in [] }
    }

    /// Two phones' bodies met (their cases' push), or the two hands holding them (`hands`: a fist bump, a clasp;
    /// each hand and its phone pushed together, through soft tissue). Two cases meeting at `point`, off their
    /// centres (their `bodies`), turn them too.
    mutating func meet(_ i: Int, _ j: Int, at time: Double, closingSpeed: Double, normal: Vector3,
                       hands: Bool = false, point: Vector3? = nil, bodies: (OrientedBox, OrientedBox)? = nil) {
        guard let (a, b) = ContactMechanics.meet(at: time, closingSpeed: closingSpeed, normal: normal,
                                                 settings: hands ? settings.hands : settings.cases) else { return }
        pulses[i].append(a)
        pulses[j].append(b)
        guard let point, let bodies else { return }
        let (ta, tb) = ContactMechanics.turns((a, b), bodies: bodies, at: point, settings: settings)
        if let ta { turns[i].append(ta) }
        if let tb { turns[j].append(tb) }
    }

    /// Phone `i` felt `pulse` (its holder's own: a heel strike, a screen tap).
    mutating func add(_ i: Int, _ pulse: ContactPulse) {
        pulses[i].append(pulse)
    }

    /// Forgets the pushes that ended over a second before `time`: the chips have sampled them out.
    mutating func forget(before time: Double) {
        for i in pulses.indices where pulses[i].first.map({ $0.start + $0.duration < time - 1 }) == true {
            pulses[i].removeAll { $0.start + $0.duration < time - 1 }
        }
        for i in turns.indices where turns[i].first.map({ $0.end < time - 1 }) == true {
            turns[i].removeAll { $0.end < time - 1 }
        }
    }

    /// Whether phone `i`'s holder walks at `t` (by the script's leg then), and the phase of its steps.
    func walking(_ i: Int, at t: Double) -> Walking {
        let w = file.peers[i].waypoints
        guard let k = w.firstIndex(where: { $0.t > t }), k > 0 else { return .standing }
        var leg = w[k].position - w[k - 1].position
        leg.z = 0
        let omega = 2 * Double.pi * settings.cadence
        return Walking(level: leg.length / (w[k].t - w[k - 1].t) > settings.walking ? 1 : 0, omega: omega,
                       shift: w[k - 1].t, offset: 0)
    }

    /// A knuckle met the table the phones `resting` lie on at `knuckleSpeed`: its momentum, given back by half,
    /// shared with the table (of `tableMass`, or the settings' when `nil`), whose top rings back up under the phones.
    mutating func knock(_ resting: [Int], at time: Double, knuckleSpeed: Double, tableMass: Double? = nil) {
        let table = tableMass ?? settings.tableMass
        ringUp(resting, at: time, by: 1.5 * settings.knuckleMass * knuckleSpeed / (settings.knuckleMass + table))
    }

    /// A table top struck at `time` rings back up under the phones `resting` on it, by the table's change of speed
    /// `dv`, over a knock's duration.
    private mutating func ringUp(_ resting: [Int], at time: Double, by dv: Double) {
        let up = ContactPulse(start: time, duration: settings.knockDuration,
                              peak: .pi * dv / (2 * settings.knockDuration), direction: Vector3(0, 0, 1))
        for i in resting { pulses[i].append(up) }
    }

    /// Phone `i` was set down on a table at `closingSpeed`, meeting it at `time`: its case's push from the table
    /// (the table's mass against the phone's), and the table's top ringing back up under the phones `resting` on
    /// it, as under a knuckle (``knock(_:at:knuckleSpeed:tableMass:)``), with the phone's momentum shared with the
    /// table (of `tableMass`, or the settings' when `nil`).
    mutating func setDown(_ i: Int, on resting: [Int], at time: Double, closingSpeed: Double,
                          tableMass: Double? = nil) {
        guard let (phone, table) = ContactMechanics.meet(
            at: time, closingSpeed: closingSpeed, normal: Vector3(0, 0, -1), settings: settings.cases,
            massA: settings.cases.phoneMass, massB: tableMass ?? settings.tableMass) else { return }
        pulses[i].append(phone)
        ringUp(resting, at: time, by: table.velocityChange)
    }

    /// Phone `i`'s acceleration at `t`, world frame, gravity left out, m/s².
    func acceleration(_ i: Int, at t: Double) -> Vector3 {
        pathAcceleration(i, at: t) + gestureAcceleration(i, at: t) + stepAcceleration(i, at: t)
    }

    /// The waypoints' changes of velocity, each spread over `paceChange` around its waypoint.
    private func pathAcceleration(_ i: Int, at t: Double) -> Vector3 {
        let w = file.peers[i].waypoints
        let half = settings.paceChange / 2
        var total = Vector3.zero
        for k in w.indices where abs(t - w[k].t) < half {
            let before = k > 0 ? (w[k].position - w[k - 1].position) / (w[k].t - w[k - 1].t) : .zero
            let after = k + 1 < w.count ? (w[k + 1].position - w[k].position) / (w[k + 1].t - w[k].t) : .zero
            let u = (t - w[k].t + half) / settings.paceChange
            total += (after - before) / settings.paceChange * (1 - cos(2 * .pi * u))
        }
        return total
    }

    /// The hands' moves: half the gap's closing each, toward the other; a handshake's shaking.
    private func gestureAcceleration(_ i: Int, at t: Double) -> Vector3 {
        var total = Vector3.zero
        for k in encountersOf[i] {
            let (script, gesture, startGap) = encounters[k]
            guard t > script.t, t < gesture.end else { continue }
            total += gesture.toward * (gesture.closingAcceleration(at: t, startGap: startGap)
                * gesture.share(of: i, a: script.a))
            total.z += gesture.liftAcceleration(at: t)
        }
        return total
    }

    /// The body's rise and fall while its holder walks the scripted path.
    private func stepAcceleration(_ i: Int, at t: Double) -> Vector3 {
        let w = file.peers[i].waypoints
        guard let k = w.firstIndex(where: { $0.t > t }), k > 0 else { return .zero }
        var leg = w[k].position - w[k - 1].position
        leg.z = 0
        guard leg.length / (w[k].t - w[k - 1].t) > settings.walking else { return .zero }
        let omega = 2 * Double.pi * settings.cadence
        return Vector3(0, 0, settings.stepExcursion / 2 * omega * omega * sin(omega * (t - w[k - 1].t)))
    }
}

/// Each phone's motion as its accelerometer feels it when the world moves people step by step (the mingle, the
/// random walk): each step's change of velocity spread over `paceChange` from when it happened (the steps are the
/// world's 50-ms moves, not a hand's), the steps of a walk while its holder moves faster than `walking`, and the
/// pushes of phones meeting.
struct PoseMotion: PushedPhones {
    let settings: MotionSettings
    private(set) var pulses: [[ContactPulse]]
    /// Each phone's turns by pushes off its centre.
    private(set) var turns: [[TurnPulse]]
    private var velocity: [Vector3]
    /// Each phone's recent changes of velocity: when, by how much, and the phase of the raised cosine's period
    /// at that instant (its cosine and sine), so that a sample needs one cosine and one sine whatever the changes.
    private var changes: [[(time: Double, dv: Vector3, cos: Double, sin: Double)]]
    /// How far each holder's steps are under way (0 standing, 1 walking), at the last step and the one before: a
    /// walk's steps start and stop over `paceChange`, as the pace does.
    private var stepping: [Double]
    private var steppingBefore: [Double]
    /// The time of each phone's oldest change of velocity, and the end of its earliest pulse (infinite when none).
    private var oldestChange: [Double]
    private var firstPulseEnd: [Double]
    private var steppedAt = 0.0
    private var stepLength = 0.05
    /// The chips' sample interval, and how far the raised cosines' phase and the steps' turn over it.
    private let interval: Double
    private let paceTurn: (cos: Double, sin: Double)
    private let stepTurn: (cos: Double, sin: Double)

    init(positions: [Vector3], settings: MotionSettings, sampleInterval: Double) {
        self.settings = settings
        interval = sampleInterval
        let pace = 2 * Double.pi * sampleInterval / settings.paceChange
        let step = 2 * Double.pi * settings.cadence * sampleInterval
        paceTurn = (cos(pace), sin(pace))
        stepTurn = (cos(step), sin(step))
        pulses = Array(repeating: [], count: positions.count)
        turns = pulses.map { _ in [] }
        velocity = Array(repeating: .zero, count: positions.count)
        changes = Array(repeating: [], count: positions.count)
        stepping = Array(repeating: 0, count: positions.count)
        steppingBefore = stepping
        oldestChange = Array(repeating: .infinity, count: positions.count)
        firstPulseEnd = oldestChange
    }

    /// The world moved every phone from `before` to `positions` in the step of `dt` ending at `time`; those
    /// `standing` (where given) moved in their holder's hand, who did not walk.
    mutating func step(from before: [Vector3], to positions: [Vector3], at time: Double, dt: Double,
                       standing: [Bool] = []) {
        guard dt > 0 else { return }
        steppedAt = time - dt
        stepLength = dt
        for i in positions.indices {
            let v = (positions[i] - before[i]) / dt
            let dv = v - velocity[i]
            velocity[i] = v
            // Each phone's own lists are reached only when something in them is due to go or something comes:
            // reaching them all every step cost a cache miss a phone.
            if oldestChange[i] < time - settings.paceChange {
                changes[i].removeAll { $0.time < time - settings.paceChange }
                oldestChange[i] = changes[i].first?.time ?? .infinity
            }
            if dv.lengthSquared > 1e-12 {
                let phase = 2 * Double.pi * time / settings.paceChange
                changes[i].append((time, dv, cos(phase), sin(phase)))
                oldestChange[i] = min(oldestChange[i], time)
            }
            let stands = standing.indices.contains(i) && standing[i]
            let walks = !stands && (v.x * v.x + v.y * v.y).squareRoot() > settings.walking
            steppingBefore[i] = stepping[i]
            let change = dt / max(settings.paceChange, dt)
            stepping[i] = walks ? min(stepping[i] + change, 1) : max(stepping[i] - change, 0)
            if firstPulseEnd[i] < time - 1 {
                pulses[i].removeAll { $0.start + $0.duration < time - 1 }
                firstPulseEnd[i] = pulses[i].map { $0.start + $0.duration }.min() ?? .infinity
            }
            if let first = turns[i].first, first.end < time - 1 { turns[i].removeAll { $0.end < time - 1 } }
        }
    }

    mutating func meet(_ i: Int, _ j: Int, at time: Double, closingSpeed: Double, normal: Vector3,
                       point: Vector3? = nil, bodies: (OrientedBox, OrientedBox)? = nil) {
        guard let (a, b) = ContactMechanics.meet(at: time, closingSpeed: closingSpeed, normal: normal,
                                                 settings: settings.cases) else { return }
        pulses[i].append(a)
        pulses[j].append(b)
        firstPulseEnd[i] = min(firstPulseEnd[i], a.start + a.duration)
        firstPulseEnd[j] = min(firstPulseEnd[j], b.start + b.duration)
        guard let point, let bodies else { return }
        let (ta, tb) = ContactMechanics.turns((a, b), bodies: bodies, at: point, settings: settings)
        if let ta { turns[i].append(ta) }
        if let tb { turns[j].append(tb) }
    }

    /// Phone `i` felt `pulse` (its holder's own: a heel strike, a screen tap).
    mutating func add(_ i: Int, _ pulse: ContactPulse) {
        pulses[i].append(pulse)
        firstPulseEnd[i] = min(firstPulseEnd[i], pulse.start + pulse.duration)
    }

    /// How far phone `i`'s holder's steps are under way after the last step, and their phase.
    func walking(_ i: Int) -> Walking {
        Walking(level: stepping[i], omega: 2 * Double.pi * settings.cadence, shift: 0, offset: 2.4 * Double(i))
    }

    /// Phone `i`'s motion until the next step, taken out once for the chip's samples in between.
    func motion(of i: Int) -> StepMotion {
        StepMotion(changes: changes[i], paceChange: settings.paceChange,
                   stepping: (from: steppingBefore[i], to: stepping[i], start: steppedAt, length: stepLength),
                   stepAmplitude: settings.stepExcursion / 2, omega: 2 * Double.pi * settings.cadence,
                   stepPhase: 2.4 * Double(i), interval: interval, paceTurn: paceTurn, stepTurn: stepTurn)
    }
}

/// One phone's smooth acceleration between two of the world's steps: the raised cosines of its recent changes of
/// velocity and, while it walks, its steps.
///
/// The chip samples at even intervals, so each phase turns by the same angle from one sample to the next: a
/// sample one interval after the last rotates the last one's cosine and sine instead of computing them again
/// (three of every four sines and cosines of a world step's samples at 100 Hz). The rotation differs from the
/// exact phase by under 1e-12 rad over a world step, far under anything the chip's steps can show.
struct StepMotion {
    let changes: [(time: Double, dv: Vector3, cos: Double, sin: Double)]
    let paceChange: Double
    /// How far the steps are under way at the start of the world's step and at its end (`length` later; held
    /// after).
    let stepping: (from: Double, to: Double, start: Double, length: Double)
    let stepAmplitude: Double
    let omega: Double
    /// Each holder's steps at a phase of their own.
    let stepPhase: Double
    /// The chip's sample interval, and the turn of each phase over it.
    let interval: Double
    let paceTurn: (cos: Double, sin: Double)
    let stepTurn: (cos: Double, sin: Double)
    /// A phase at a sample: its time, cosine and sine.
    private typealias Phase = (t: Double, cos: Double, sin: Double)
    /// The last sample's phases: the raised cosines' and the steps'.
    private var pace: Phase?
    private var step: Phase?

    init(changes: [(time: Double, dv: Vector3, cos: Double, sin: Double)], paceChange: Double,
         stepping: (from: Double, to: Double, start: Double, length: Double), stepAmplitude: Double, omega: Double,
         stepPhase: Double, interval: Double, paceTurn: (cos: Double, sin: Double),
         stepTurn: (cos: Double, sin: Double)) {
        self.changes = changes
        self.paceChange = paceChange
        self.stepping = stepping
        self.stepAmplitude = stepAmplitude
        self.omega = omega
        self.stepPhase = stepPhase
        self.interval = interval
        self.paceTurn = paceTurn
        self.stepTurn = stepTurn
    }

    /// The phase at `t`: the last one turned by `turn` when `t` is the sample right after it, else computed.
    private func phase(at t: Double, after last: Phase?, turn: (cos: Double, sin: Double),
                       angle: () -> Double) -> Phase {
        if let p = last, abs(t - p.t - interval) < 1e-9 {
            return (t, p.cos * turn.cos - p.sin * turn.sin, p.sin * turn.cos + p.cos * turn.sin)
        }
        let a = angle()
        return (t, cos(a), sin(a))
    }

    mutating func acceleration(at t: Double) -> Vector3 {
        // Each change's 1 - cos(2π(t - tₖ)/P), with cos(a - b) = cos a cos b + sin a sin b.
        var total = Vector3.zero
        var active = false
        var (c, s) = (0.0, 0.0)
        for change in changes where t > change.time && t < change.time + paceChange {
            if !active {
                let p = phase(at: t, after: pace, turn: paceTurn) { 2 * Double.pi * t / paceChange }
                (c, s) = (p.cos, p.sin)
                pace = p
                active = true
            }
            total += change.dv / paceChange * (1 - (c * change.cos + s * change.sin))
        }
        let share = min(max((t - stepping.start) / stepping.length, 0), 1)
        let level = stepping.from + (stepping.to - stepping.from) * share
        if level > 0 {
            let p = phase(at: t, after: step, turn: stepTurn) { omega * t + stepPhase }
            step = p
            total.z += level * stepAmplitude * omega * omega * p.sin
        }
        return total
    }
}

/// The phones' pushes of a world's motion, scripted or stepped.
protocol PushedPhones {
    var settings: MotionSettings { get }
    /// Phone `i` felt `pulse`.
    mutating func add(_ i: Int, _ pulse: ContactPulse)
}

extension PushedPhones {
    /// Phone `i`'s side and phone `j`'s met where a forearm is (``Forearm``): each side's push, shared by `masses`,
    /// reaches its phone, through soft tissue.
    mutating func meetLimbs(_ i: Int, _ j: Int, at time: Double, closingSpeed: Double, normal: Vector3,
                            masses: (Double, Double)) {
        guard let (a, b) = ContactMechanics.meet(at: time, closingSpeed: closingSpeed, normal: normal,
                                                 settings: settings.hands, massA: masses.0, massB: masses.1)
        else { return }
        add(i, a)
        add(j, b)
    }
}
