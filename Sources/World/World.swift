import DeviceInterface
import Foundation
import GSL
import Geometry
import Radio

/// The truth: where every peer's phone is and how it is turned, over time, and which pairs touch.
///
/// Advanced in steps of at most 50 ms. Mingling peers choose partners among the peers they have discovered
/// (``knows``) by the interests those published; nothing else flows back from the simulation into the world.
package final class World {
    /// One encounter of two peers in the mingle scenario.
    package struct Encounter: Sendable, Equatable {
        package enum Kind: String, Sendable { case touch, nearMiss }
        /// Closing, the hands bring the phones' centres to `centres` metres apart: where the bodies meet, plus the
        /// gap.
        package enum Phase: Sendable, Equatable {
            case approaching, closing(centres: Double), holding(until: Double), opening
        }
        package let a: Int
        package let b: Int
        package let kind: Kind
        /// The gap the phones' bodies close to, metres: 0 for a touch (the hands stop where the bodies meet).
        package let gap: Double
        package let hold: Double
        package internal(set) var phase: Phase
    }

    private struct Motion {
        var position: Vector3
        var waypoint: Vector3
        var speed: Double
        var pauseUntil: Double = 0
        var readyAt: Double
        /// The way the peer walks, radians.
        var heading: Double
        /// The way the holder's body and the phone held up in front of it face, radians: it turns toward the way
        /// the peer walks, or toward its partner, at a body's rate (``MingleSettings/turnRate``), never in one step.
        var facing: Double
        var encounter: Int?
        var met = Set<Int>()
    }

    package let scenario: Scenario
    package let peerCount: Int
    /// Side of the square hall, metres (mingle and random waypoint).
    package let hallSide: Double
    /// Floor area per person of a built-in hall, m²; `nil` for a scenario file.
    package var floorAreaPerPeer: Double? { hallSide > 0 ? hallSide * hallSide / Double(peerCount) : nil }
    /// The interests each peer publishes in its discovery info.
    package let interests: [[String]]
    @exclusivity(unchecked) package private(set) var time: Double = 0
    /// Where every phone's UWB antenna is and how the phone is turned: what the radio ranges between.
    @exclusivity(unchecked) package private(set) var poses: [Pose] = []
    /// Where every phone's body is (its centre) and how it is turned: what touches.
    @exclusivity(unchecked) package private(set) var bodies: [Pose]
    /// Every phone's body and antenna (one model for all, for now).
    package let phone: PhoneBody
    /// The contacts and near misses, for the scorer: no device reads them.
    @exclusivity(unchecked) package private(set) var tracker = ContactTracker()
    /// With ``TruthScramble``, the label each device carries in what only the scorer reads (contacts, near misses,
    /// partners): a permutation of the devices. `nil`: the true labels.
    private let scorerLabels: [Int]?
    /// What every phone's accelerometer felt in the last seconds.
    @exclusivity(unchecked) package private(set) var accelerometers: Accelerometers
    /// Encounters under way, by index; `nil` where one ended.
    @exclusivity(unchecked) package private(set) var encounters: [Encounter?] = []
    /// Encounters that ended, in the order they ended.
    @exclusivity(unchecked) package private(set) var finishedEncounters: [Encounter] = []
    /// Whether peer `i` has discovered peer `j`; mingling peers only choose among those.
    package var knows: (Int, Int) -> Bool = { _, _ in true }
    package let mingle: MingleSettings
    /// The scenario's walls (scripted scenarios only).
    package var walls: [Wall] {
        if case .scripted(let file) = scenario { return file.walls }
        return []
    }
    @exclusivity(unchecked) private var motion: [Motion] = []
    /// The step's pairs of peers that may be near (``crowdPairs(_:)``): built-in halls only.
    @exclusivity(unchecked) private var crowd: [(Int, Int)]?
    /// A scripted scenario's encounters, each with the gesture its two hands make and the gap they started from.
    @exclusivity(unchecked) package private(set) var scriptedEncounters: [(script: EncounterScript, gesture: EncounterScript.Gesture, startGap: Double)] = []
    /// For each peer, the indices of its scripted encounters.
    @exclusivity(unchecked) private var encountersOf: [[Int]] = []
    /// With ``startSensing(clocks:seed:imu:motion:)``, what moves the phones the chips sample: a scripted
    /// scenario's motion, or the world's steps (one of the two).
    /// Two stored optionals rather than one enum, so that a step mutates the motion in place: taken out of an
    /// enum's payload and put back, its arrays were copied whole at every world step.
    @exclusivity(unchecked) private var scriptedMotion: ScriptedMotion?
    @exclusivity(unchecked) private var poseMotion: PoseMotion?
    private var isSensing: Bool { scriptedMotion != nil || poseMotion != nil }

    @exclusivity(unchecked) private var chips: [Accelerometer] = []
    /// Each holder's own motion (tremor, heel strikes, screen taps), while the chips sample.
    @exclusivity(unchecked) private var own: OwnMotions?
    /// When each mingling pair's hands last stopped closing, and how fast they closed until then.
    @exclusivity(unchecked) private var closedAt: [Int64: (time: Double, speed: Double)] = [:]
    /// The close pairs' separating figures at the step before, to find where phones meet.
    @exclusivity(unchecked) private var lastClose: [Int64: Double] = [:]
    /// The same for phones and forearms (``Forearm``), pair by pair: phone `i` and `j`'s forearm, `i`'s forearm and
    /// phone `j`, the two forearms.
    @exclusivity(unchecked) private var lastLimbs: [Int64: SIMD3<Double>] = [:]
    /// Meetings of a phone and a forearm, or of two forearms, so far.
    @exclusivity(unchecked) package private(set) var limbMeetings = 0
    @exclusivity(unchecked) package private(set) var samples: [[AccelerometerSample]] = []
    @exclusivity(unchecked) package private(set) var gyroSamples: [[GyroSample]] = []
    /// The phones' orientations at the start of the world's step, for the rate each turns at over it.
    @exclusivity(unchecked) private var stepStartOrientations: [Orientation] = []
    /// Whether the phones' gyroscopes run: the rate each turns at is worked out only then.
    private var gyroscope: Bool { chips.first?.settings.gyroscope ?? false }
    private let random: RandomSource
    @exclusivity(unchecked) private var nextPairingAt: Double = 0

    /// A world of `peers` peers (taken from the file for a scripted scenario), drawing from the run seed.
    ///
    /// - Parameter scramble: relabels what only the scorer reads (``TruthScramble``); the motion and every
    ///   device's observations stay the same.
    package init(
        scenario: Scenario, peers: Int, seed: UInt64, mingle: MingleSettings = MingleSettings(),
        sensors: AccelerometerSettings = AccelerometerSettings(), scramble: TruthScramble? = nil,
        phone: PhoneBody = .iPhone15
    ) throws {
        self.scenario = scenario
        self.phone = phone
        self.mingle = mingle
        random = try RandomSource(runSeed: seed, stream: StreamIdentity(kind: .scenario, first: 1, second: 0))
        accelerometers = try Accelerometers(seed: seed, settings: sensors)
        let count: Int
        if case .scripted(let file) = scenario { count = file.peers.count } else { count = peers }
        scorerLabels = try scramble.map { try $0.labels(count) }
        if scramble != nil { tracker = TruthScramble.tracker }
        if case .scripted(let file) = scenario {
            peerCount = file.peers.count
            interests = file.peers.map(\.interests)
            hallSide = 0
            bodies = []
            planEncounters(file)
            // The labels made the scripts; from here on only the scorer reads them, and a scramble tells it others.
            if let classes = try scramble?.classes() {
                scriptedEncounters = scriptedEncounters.map { encounter in
                    (encounter.script.relabelled(as: classes[encounter.script.kind] ?? encounter.script.kind),
                     encounter.gesture, encounter.startGap)
                }
            }
            bodies = (0..<peerCount).map { scriptedPose($0, at: 0, file: file) }
            try Self.refuseOverlaps(bodies, file: file, phone: phone)
            poses = antennas()
            accelerometers.place(bodies.map(\.position))
            return
        }
        peerCount = peers
        hallSide = max(6, (Double(peers) * mingle.areaPerPeer).squareRoot())
        let pool = mingle.interestPool
        var drawn: [[String]] = []
        for _ in 0..<peers {
            var chosen: [String] = []
            while chosen.count < min(mingle.interestsPerPeer, pool.count) {
                let pick = pool[Int(random.uniform() * Double(pool.count))]
                if !chosen.contains(pick) { chosen.append(pick) }
            }
            drawn.append(chosen.sorted())
        }
        interests = drawn
        bodies = []
        for _ in 0..<peers {
            let start = randomPoint(height: 1.1 + 0.2 * random.uniform())
            let waypoint = randomPoint(height: start.z), speed = randomSpeed()
            let readyAt = random.uniform(in: mingle.wanderTime.lowerBound..<mingle.wanderTime.upperBound)
            let heading = random.uniform() * 2 * .pi
            motion.append(Motion(position: start, waypoint: waypoint, speed: speed, readyAt: readyAt,
                                 heading: heading, facing: heading))
        }
        bodies = motion.map { Pose(position: $0.position, orientation: Orientation(heading: $0.facing)) }
        poses = antennas()
        accelerometers.place(bodies.map(\.position))
    }

    /// Two phones' bodies inside each other at the start can only be a mistake of the file (a table's phones
    /// placed closer than a phone's length, say): the truth would score them as one contact the whole run.
    /// More than a tenth of a millimetre deep is refused, naming the first such pair.
    static func refuseOverlaps(_ bodies: [Pose], file: ScenarioFile, phone: PhoneBody) throws(ScenarioError) {
        let boxes = bodies.map { phone.box(centre: $0.position, orientation: $0.orientation) }
        for (i, j, _) in ContactTracker.closePairs(bodies.map(\.position), within: phone.size.length) {
            let depth = -PhoneBody.contact(boxes[i], boxes[j]).separation
            guard depth > 1e-4 else { continue }
            let (a, b) = (file.peers[i].name, file.peers[j].name)
            throw ScenarioError(
                file: file.name, field: "peers",
                problem: "puts the phones of \"\(a)\" and \"\(b)\" inside each other at the start, "
                    + String(format: "%.1f mm deep (their centres %.2f cm apart; a phone in its case is %.2f cm long)",
                             depth * 1000, (bodies[i].position - bodies[j].position).length * 100, phone.size.y * 100))
        }
    }

    /// Each phone's antenna where its body is now.
    private func antennas() -> [Pose] {
        bodies.map { Pose(position: phone.antennaPosition(centre: $0.position, orientation: $0.orientation),
                          orientation: $0.orientation) }
    }

    /// Every phone's accelerometer peaks of the last seconds, oldest first (``Accelerometers``).
    package var impacts: [[Impact]] { accelerometers.peaks }

    private func randomPoint(height: Double) -> Vector3 {
        Vector3(random.uniform() * hallSide, random.uniform() * hallSide, height)
    }

    private func randomSpeed() -> Double {
        random.uniform(in: mingle.walkingSpeed.lowerBound..<mingle.walkingSpeed.upperBound)
    }

    /// The peer that `i` is walking to or touching, if any: the truth of the mingle, for the scorer and the
    /// `oracle` policy (relabelled under a ``TruthScramble``).
    package func partner(of i: Int) -> Int? {
        guard let labels = scorerLabels else { return engaged(i) }
        guard let inverse = labels.firstIndex(of: i), let other = engaged(inverse) else { return nil }
        return labels[other]
    }

    /// The peer `i` is engaged with: what moves the two people.
    private func engaged(_ i: Int) -> Int? {
        guard i < motion.count, let e = motion[i].encounter, let encounter = encounters[e] else { return nil }
        return encounter.a == i ? encounter.b : encounter.a
    }

    /// Which people stand making a gesture with their hands (a mingling pair's closing, hold and parting): their
    /// phones move, they do not walk.
    private func gesturing() -> [Bool] {
        guard case .mingle = scenario else { return [] }
        return motion.map { m in
            guard let e = m.encounter, let encounter = encounters[e] else { return false }
            if case .approaching = encounter.phase { return false }
            return true
        }
    }

    /// Advances the world to `target` seconds and returns what the truth saw happen on the way.
    package func advance(to target: Double) -> [ContactChange] {
        advance(to: target, beforePairing: false)
    }

    /// Advances the world toward `target` as ``advance(to:)`` does, step for step, but stops before the first step
    /// that pairs people up, the only one that asks ``knows``: what may run ahead of a round, before the sessions
    /// of that round's start are known. ``advance(to:)`` then takes the steps left, and the two together see what
    /// one would.
    package func advanceBeforePairing(to target: Double) -> [ContactChange] {
        advance(to: target, beforePairing: true)
    }

    private func advance(to target: Double, beforePairing: Bool) -> [ContactChange] {
        var changes: [ContactChange] = []
        while time < target - 1e-12 {
            let dt = min(0.05, target - time)
            // The step's time as `time += dt` will make it, and `step` pairs when it has reached `nextPairingAt`.
            if beforePairing, case .mingle = scenario, time + dt >= nextPairingAt { break }
            let stepStart = isSensing ? bodies.map(\.position) : []
            if poseMotion != nil && gyroscope { stepStartOrientations = bodies.map(\.orientation) }
            time += dt
            step(dt)
            poses = antennas()
            let positions = bodies.map(\.position)
            // One search for the close pairs serves the phones' own sensing, their forearms' and the scorer's truth.
            let approach = tracker.approachDistance
            let reach = isSensing ? max(approach, Self.limbReach) : approach
            let near = crowd.map { pairs in
                pairs.compactMap { i, j -> (Int, Int, Double)? in
                    let d = (positions[i] - positions[j]).length
                    return d < reach ? (i, j, d) : nil
                }
            } ?? ContactTracker.closePairs(positions, within: reach)
            let close = near.filter { $0.2 < approach }.map { i, j, d in
                CloseBodies(a: i, b: j, first: i, second: j, centreDistance: d,
                            separation: PhoneBody.contact(box(i), box(j)).separation)
            }
            let scored = scorerLabels.map { labels in
                close.map { c in
                    CloseBodies(a: min(labels[c.a], labels[c.b]), b: max(labels[c.a], labels[c.b]), first: c.first,
                                second: c.second, centreDistance: c.centreDistance, separation: c.separation)
                }.sorted { ($0.a, $0.b) < ($1.a, $1.b) }
            } ?? close
            let seen = tracker.observe(
                close: scored, at: time,
                gap: { max(BoxContact.rounded(self.box($0), self.box($1), radius: PhoneBody.edgeRadius,
                                              exactWithin: .infinity).separation, 0) },
                closing: { pair in
                    self.lastClose[Int64(pair.first) << 32 | Int64(pair.second)].map { before in
                        self.meeting(pair.first, pair.second, from: max(before, pair.separation),
                                     to: pair.separation, dt: dt)
                    }
                },
                parting: { self.parting($0, $1, dt: dt) })
            changes += seen
            // Sampled chips replace the labelled peaks: those are made only when nothing samples, and from the
            // scorer's own contacts (the truth, to compare with), each at the instant its bodies met.
            if !isSensing {
                var met: [Int64: Double] = [:]
                for case .contactStarted(let c) in seen { met[Int64(c.a) << 32 | Int64(c.b)] = c.start }
                accelerometers.sense(positions, close: scored, at: time, dt: dt, met: met)
            }
            if poseMotion != nil {
                poseMotion!.step(from: stepStart, to: positions, at: time, dt: dt, standing: gesturing())
            }
            feelMeetings(close, dt: dt)
            feelLimbs(near, dt: dt)
            lastClose.removeAll(keepingCapacity: true)
            for pair in close { lastClose[Int64(pair.first) << 32 | Int64(pair.second)] = pair.separation }
            feelGestures(dt: dt)
            feelOwnMotions(dt: dt)
            sampleChips(dt: dt)
        }
        return changes
    }

    /// Phone `i`'s body where it is now.
    private func box(_ i: Int) -> OrientedBox {
        phone.box(centre: bodies[i].position, orientation: bodies[i].orientation)
    }

    private func step(_ dt: Double) {
        switch scenario {
        case .scripted(let file):
            bodies = (0..<peerCount).map { scriptedPose($0, at: time, file: file) }
        case .randomWaypoint:
            let pairs = crowdPairs(dt)
            crowd = pairs
            let ahead = clearanceAhead(pairs)
            for i in 0..<peerCount { wander(i, dt, pause: 0...2, clearance: ahead[i]) }
            keepApart(dt, pairs)
            turnBodies(dt)
            bodies = motion.map { Pose(position: $0.position, orientation: Orientation(heading: $0.facing)) }
        case .mingle:
            for e in encounters.indices { advanceEncounter(e, dt) }
            let pairs = crowdPairs(dt)
            crowd = pairs
            let ahead = clearanceAhead(pairs)
            for i in 0..<peerCount where motion[i].encounter == nil { wander(i, dt, pause: 0...1, clearance: ahead[i]) }
            keepApart(dt, pairs)
            if time >= nextPairingAt {
                pairUp()
                nextPairingAt = time + 0.25
            }
            turnBodies(dt)
            // Upright: a partner's phone is met at one height (``advanceEncounter(_:_:)``).
            bodies = motion.map { Pose(position: $0.position, orientation: Orientation(heading: $0.facing)) }
        }
    }

    /// The way peer `i` wants to face: its partner's phone once it has one, else the way it walks.
    private func wantedFacing(_ i: Int) -> Double {
        guard let other = engaged(i) else { return motion[i].heading }
        let d = motion[other].position - motion[i].position
        return d.x == 0 && d.y == 0 ? motion[i].facing : atan2(d.y, d.x)
    }

    /// Every holder's body turned toward the way it wants to face, by at most ``MingleSettings/turnRate`` times `dt`.
    /// A phone held up turns with its holder, and so does the forearm behind it: swung round in one step, a forearm
    /// swept 27 cm in an instant through whoever stood near.
    private func turnBodies(_ dt: Double) {
        let most = mingle.turnRate * dt
        for i in motion.indices {
            let wanted = wantedFacing(i)
            let left = remainder(wanted - motion[i].facing, 2 * .pi)
            motion[i].facing = abs(left) <= most ? wanted : motion[i].facing + (left > 0 ? most : -most)
        }
    }

    /// Whether peer `i` faces the way it wants to (its partner, once it has one).
    private func isFacing(_ i: Int) -> Bool {
        abs(remainder(wantedFacing(i) - motion[i].facing, 2 * .pi)) < 1e-9
    }

    /// People do not walk through each other: two peers that are not each other's partner are pushed apart, in
    /// the horizontal plane, until their phones are at least `personalSpace` apart and their reaches (each one's
    /// phone held up and the forearm behind it, back to the elbow: ``Forearm/reach``) at least `reachSpace`. Without
    /// this, phones would pass within centimetres of strangers and the truth would count chance contacts no one
    /// made; with phones alone kept apart, two people back to back stood inside each other, and their forearms met
    /// 52 times a minute at 100 peers.
    ///
    /// The pushes of all pairs are summed and applied together, a few rounds a step, and no peer is nudged more than
    /// `nudge` a round (a step aside at 1 m/s): pushed one pair after another, a peer caught in a crowd of gesturing
    /// pairs was shoved a metre in one step, onto a stranger's phone; by a fixed length a step, one a microsecond
    /// long moved a forearm at ten thousand kilometres a second.
    private func keepApart(_ dt: Double, _ pairs: [(Int, Int)]) {
        let space = mingle.personalSpace
        let nudge = Self.stepAside * dt
        let rounds = Self.pushRounds
        var offsets = [Vector3](repeating: .zero, count: motion.count)
        let far = pushFar
        // Phones farther apart than `far` cannot be pushed, and no peer moves more than `rounds * nudge` in the
        // step, so the pairs that may be are found once.
        let within = pushWithin(dt)
        var positions = motion.map(\.position)
        let partners = motion.indices.map { engaged($0) }
        let near = pairs.filter { i, j in
            let d = positions[j] - positions[i]
            return d.x * d.x + d.y * d.y < within * within && partners[i] != j
        }
        // Nobody turns while stepping aside: where each one's elbow lies from its phone is worked out once.
        let elbows = motion.map { Vector3(-cos($0.facing), -sin($0.facing), 0) * Forearm.adult.reach }
        let free = motion.map { $0.encounter == nil }
        // A free peer steps aside for an engaged one; an engaged peer that must move takes its partner along, so
        // that the pair's planned gap is kept.
        func separate(_ i: Int, _ j: Int, _ d: Vector3, _ needed: Double) -> Bool {
            let flat = Vector3(d.x, d.y, 0)
            let distance = flat.length
            guard distance < needed - 1e-3 else { return false }
            let away = distance > 1e-9 ? flat / distance : Vector3(1, 0, 0)
            let push = (needed - distance) / 2
            offsets[i] -= away * (free[i] == free[j] ? push : (free[i] ? 2 * push : 0))
            offsets[j] += away * (free[i] == free[j] ? push : (free[j] ? 2 * push : 0))
            return true
        }
        for _ in 0..<rounds {
            var crowded = false
            for (i, j) in near {
                let (pi, pj) = (positions[i], positions[j])
                let apart = pj - pi
                guard apart.x * apart.x + apart.y * apart.y < far * far else { continue }
                let (p, q) = Self.closest((pi, pi + elbows[i]), (pj, pj + elbows[j]))
                let phones = separate(i, j, apart, space)
                let reaches = separate(i, j, q - p, mingle.reachSpace)
                crowded = crowded || phones || reaches
            }
            guard crowded else { break }
            for i in positions.indices {
                var offset = offsets[i]
                if let other = partners[i] { offset += offsets[other] }
                let length = offset.length
                positions[i] += length > nudge ? offset * (nudge / length) : offset
            }
            for i in offsets.indices { offsets[i] = .zero }
        }
        for i in motion.indices where motion[i].position != positions[i] { motion[i].position = positions[i] }
    }

    /// The nearest points of two segments in the horizontal plane (heights ignored).
    static func closest(_ a: (Vector3, Vector3), _ b: (Vector3, Vector3)) -> (Vector3, Vector3) {
        func flat(_ v: Vector3) -> Vector3 { Vector3(v.x, v.y, 0) }
        let (p1, q1, p2, q2) = (flat(a.0), flat(a.1), flat(b.0), flat(b.1))
        let d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2
        let aa = d1.dot(d1), ee = d2.dot(d2), f = d2.dot(r)
        func clamp(_ x: Double) -> Double { min(max(x, 0), 1) }
        var s = 0.0, t = 0.0
        if aa <= 1e-12 && ee <= 1e-12 { return (p1, p2) }
        if aa <= 1e-12 {
            t = clamp(f / ee)
        } else {
            let c = d1.dot(r)
            if ee <= 1e-12 {
                s = clamp(-c / aa)
            } else {
                let bb = d1.dot(d2), denominator = aa * ee - bb * bb
                s = denominator > 1e-12 ? clamp((bb * f - c * ee) / denominator) : 0
                t = (bb * s + f) / ee
                if t < 0 {
                    t = 0
                    s = clamp(-c / aa)
                } else if t > 1 {
                    t = 1
                    s = clamp((bb - c) / aa)
                }
            }
        }
        return (p1 + d1 * s, p2 + d2 * t)
    }

    /// How many times a step ``keepApart(_:_:)`` pushes, and how fast a peer may step aside each time, m/s.
    private static let pushRounds = 4
    private static let stepAside = 1.0

    /// How far apart two peers' phones may be for ``keepApart(_:_:)`` to push them: their phones or their reaches
    /// too close.
    private var pushFar: Double { max(mingle.personalSpace, mingle.reachSpace + 2 * Forearm.adult.reach) }

    /// How far apart two peers' phones may be at the start of a step of `dt` for ``keepApart(_:_:)`` to push them in
    /// it: each may be pushed `pushRounds` times.
    private func pushWithin(_ dt: Double) -> Double {
        pushFar + 2 * Double(Self.pushRounds) * Self.stepAside * dt
    }

    /// The pairs of peers near enough for a step's walkers to slow down for (``clearanceAhead(_:)``), its crowd to
    /// push apart (``keepApart(_:_:)``), or its bodies and forearms to meet once all have moved (``crowd``), in one
    /// search: with the way each may walk and be pushed in the step after it.
    private func crowdPairs(_ dt: Double) -> [(Int, Int)] {
        let walked = 2 * mingle.walkingSpeed.upperBound * dt
        let pushed = pushWithin(dt) - pushFar
        let met = max(tracker.approachDistance, Self.limbReach)
        let cell = max(Self.lookAhead, pushWithin(dt) + walked, met + pushed + walked)
        return NeighbourGrid(motion.map(\.position), cell: cell).candidatePairs()
    }

    /// How far ahead a walker looks for people in its way, metres.
    private static let lookAhead = 1.5

    /// For each peer, the distance to the nearest other peer ahead of it (within 45 degrees of its way), up to
    /// ``lookAhead``; walkers slow down as it shrinks, as people do, rather than stopping dead at arm's length.
    private func clearanceAhead(_ pairs: [(Int, Int)]) -> [Double] {
        let positions = motion.map(\.position)
        let ways = motion.map { Vector3(cos($0.heading), sin($0.heading), 0) }
        var clearance = [Double](repeating: Self.lookAhead, count: motion.count)
        func look(from i: Int, at j: Int) {
            var d = positions[j] - positions[i]
            d.z = 0
            // Behind or beside (a dot product not above 0 can never exceed 0.707 of a distance): no root taken.
            let along = d.dot(ways[i])
            guard along > 0 else { return }
            let distance = d.length
            if distance < clearance[i], along > 0.707 * distance { clearance[i] = distance }
        }
        for (i, j) in pairs {
            look(from: i, at: j)
            look(from: j, at: i)
        }
        return clearance
    }

    private func wander(_ i: Int, _ dt: Double, pause: ClosedRange<Double>, clearance: Double) {
        guard time >= motion[i].pauseUntil else { return }
        let m = motion[i]
        let toGo = m.waypoint - m.position
        let distance = toGo.length
        // Full speed with 1.5 m clear ahead, down to a fifth at arm's length.
        let room = (clearance - mingle.personalSpace) / (Self.lookAhead - mingle.personalSpace)
        let speed = m.speed * min(max(room, 0.2), 1)
        if distance <= speed * dt {
            motion[i].position = m.waypoint
            motion[i].waypoint = randomPoint(height: m.position.z)
            motion[i].speed = randomSpeed()
            motion[i].pauseUntil = time + random.uniform(in: pause.lowerBound..<pause.upperBound)
        } else {
            motion[i].position += toGo / distance * speed * dt
            motion[i].heading = atan2(toGo.y, toGo.x)
        }
    }

    /// Each free peer that is ready picks the free, ready peer it has discovered and not met yet that shares the
    /// most interests with it (the nearest among equals, then the lowest index).
    private func pairUp() {
        for i in 0..<peerCount where motion[i].encounter == nil && time >= motion[i].readyAt {
            var best: (score: Int, distance: Double, j: Int)?
            for j in 0..<peerCount where j != i && motion[j].encounter == nil && time >= motion[j].readyAt
                && !motion[i].met.contains(j) && knows(i, j) && knows(j, i) {
                let score = Set(interests[i]).intersection(interests[j]).count
                let distance = (motion[i].position - motion[j].position).length
                if let b = best, (b.score, -b.distance) >= (score, -distance) { continue }
                best = (score, distance, j)
            }
            guard let j = best?.j else { continue }
            let nearMiss = random.bernoulli(mingle.nearMissShare)
            let range = mingle.nearMissGap
            let encounter = Encounter(
                a: i, b: j, kind: nearMiss ? .nearMiss : .touch,
                gap: nearMiss ? random.uniform(in: range.lowerBound..<range.upperBound) : 0,
                hold: random.uniform(in: mingle.hold.lowerBound..<mingle.hold.upperBound), phase: .approaching)
            encounters.append(encounter)
            motion[i].encounter = encounters.count - 1
            motion[j].encounter = encounters.count - 1
        }
    }

    private func advanceEncounter(_ e: Int, _ dt: Double) {
        guard var encounter = encounters[e] else { return }
        let a = encounter.a
        let b = encounter.b
        let between = motion[b].position - motion[a].position
        let gap = between.length
        let toward = gap > 0 ? between / gap : Vector3(1, 0, 0)
        func move(_ each: Double) {
            motion[a].position += toward * each
            motion[b].position -= toward * each
        }
        switch encounter.phase {
        case .approaching:
            if gap <= mingle.gestureStartGap + 1e-6 {
                // The gesture starts once both face each other: the hands close along the line between them.
                guard isFacing(a) && isFacing(b) else { break }
                // Hands meet at one height for the gesture.
                let height = (motion[a].position.z + motion[b].position.z) / 2
                motion[a].position.z = height
                motion[b].position.z = height
                // Held upright, backs toward each other (the poses of an engaged pair), as they will meet.
                let pa = motion[a].position, pb = motion[b].position
                let meet = phone.touchingDistance(.facing(pb, from: pa), .facing(pa, from: pb),
                                                  along: (pb - pa).normalized)
                encounter.phase = .closing(centres: meet + encounter.gap)
            } else {
                // Slow down over the last metre.
                let speed = min(motion[a].speed, max(0.3, gap - mingle.gestureStartGap))
                move(min(speed * dt, (gap - mingle.gestureStartGap) / 2))
            }
        case .closing(let centres):
            let each = min(mingle.gestureSpeed * dt, max(gap - centres, 0) / 2)
            move(each)
            if gap - 2 * each <= centres + 1e-9 {
                encounter.phase = .holding(until: time + encounter.hold)
                // The hands moved at their speed until they stopped, part of the way into the step.
                let key = Int64(min(a, b)) << 32 | Int64(max(a, b))
                closedAt[key] = (time - dt + each / mingle.gestureSpeed, 2 * mingle.gestureSpeed)
            }
        case .holding(let until):
            if time >= until { encounter.phase = .opening }
        case .opening:
            move(-mingle.gestureSpeed * 2 * dt)
            if gap >= 0.6 {
                for (me, other) in [(a, b), (b, a)] {
                    motion[me].encounter = nil
                    motion[me].met.insert(other)
                    motion[me].readyAt = time + random.uniform(in: mingle.wanderTime.lowerBound..<mingle.wanderTime.upperBound)
                    motion[me].waypoint = randomPoint(height: motion[me].position.z)
                }
                finishedEncounters.append(encounter)
                encounters[e] = nil
                return
            }
        }
        encounters[e] = encounter
    }

    /// Starts every phone's accelerometer chip: from now on each samples its phone's motion (``samples``), stamped
    /// on its own clock.
    ///
    /// - Throws: when a setting is out of range.
    package func startSensing(clocks: [DeviceClock], seed: UInt64, imu: IMUSettings = IMUSettings(),
                             motion: MotionSettings = MotionSettings()) throws {
        if let problem = imu.problem() ?? motion.cases.problem() ?? motion.hands.problem() ?? motion.own.problem() {
            throw ScenarioError(file: scenario.name, field: nil, problem: "cannot be sensed: \(problem)")
        }
        precondition(clocks.count == peerCount, "one clock a phone")
        if case .scripted(let file) = scenario {
            scriptedMotion = ScriptedMotion(file: file, encounters: scriptedEncounters, encountersOf: encountersOf,
                                            settings: motion)
        } else {
            poseMotion = PoseMotion(positions: bodies.map(\.position), settings: motion, sampleInterval: 1 / imu.rate)
        }
        chips = try (0..<peerCount).map { try Accelerometer(device: $0, runSeed: seed, clock: clocks[$0], settings: imu) }
        let carry: [Carry] = if case .scripted(let file) = scenario { file.peers.map(\.carry) }
            else { Array(repeating: .hand, count: peerCount) }
        own = try OwnMotions(carry: carry, settings: motion.own, phoneMass: motion.cases.phoneMass, runSeed: seed)
        samples = Array(repeating: [], count: peerCount)
        gyroSamples = Array(repeating: [], count: peerCount)
        stepStartOrientations = bodies.map(\.orientation)
        sampleChips(dt: 0)
    }

    /// Phones whose bodies met in the step of `dt` just made: each feels the other's push where their surfaces
    /// met, along the contact's normal, at the speed their surfaces closed. Whatever brought them together (a touch,
    /// a stop that went too far, a stranger's phone), the push comes from the meeting alone.
    private func feelMeetings(_ close: [CloseBodies], dt: Double) {
        guard isSensing else { return }
        for pair in close {
            let (i, j) = (pair.first, pair.second)
            let key = Int64(i) << 32 | Int64(j)
            guard pair.separation <= PhoneBody.touching, let before = lastClose[key], before > PhoneBody.touching
            else { continue }
            let (at, speed) = meeting(i, j, from: before, to: pair.separation, dt: dt)
            let normal = PhoneBody.contact(box(i), box(j)).normal
            // Where the two cases meet: off their centres, the push turns them in their holders' hands. Two backs a
            // few degrees off parallel meet at an edge first and conform within the contact (the cases and the grip
            // give): the push is at the middle of where they overlap, within `conforming` of each other.
            let bodies = (box(i), box(j))
            let point = BoxContact.middle(bodies.0, bodies.1, margin: Self.conforming)
            scriptedMotion?.meet(i, j, at: at, closingSpeed: speed, normal: normal, point: point, bodies: bodies)
            poseMotion?.meet(i, j, at: at, closingSpeed: speed, normal: normal, point: point, bodies: bodies)
        }
    }

    /// How far apart two phones' centres may be for a forearm to meet the other phone or its forearm, metres: each
    /// forearm reaches 0.38 m from its phone's centre, and its box 0.15 m around its own centre.
    static let limbReach = 0.9

    /// Phone `i`'s forearm at `pose` (time `t`): only while its holder holds it up in a hand.
    private func forearm(_ i: Int, at pose: Pose, t: Double) -> OrientedBox? {
        if case .scripted(let file) = scenario, file.peers[i].carry != .hand || isSetDown(i, at: t) { return nil }
        return Forearm.adult.box(behind: phone, at: pose)
    }

    /// The three separating figures of two phones and their forearms: phone `i` and `j`'s forearm, `i`'s forearm
    /// and phone `j`, the two forearms; infinite where a forearm is missing or the two are out of each other's
    /// reach.
    private static func limbSeparations(_ pi: OrientedBox, _ ai: OrientedBox?, _ pj: OrientedBox,
                                        _ aj: OrientedBox?) -> SIMD3<Double> {
        func separation(_ a: OrientedBox?, _ b: OrientedBox?) -> Double {
            guard let a, let b else { return .infinity }
            // Bounding spheres first: most pairs within reach are nowhere near each other's forearms.
            let reach = a.halfExtents.length + b.halfExtents.length
            guard (a.centre - b.centre).lengthSquared <= reach * reach else { return .infinity }
            return BoxContact(a, b).separation
        }
        return SIMD3(separation(pi, aj), separation(ai, pj), separation(ai, aj))
    }

    /// Phones and forearms that met in the step of `dt` just made: a phone against another holder's forearm, two
    /// forearms. Each side's push (a phone alone, or a forearm with its hand and phone) reaches its phone through
    /// soft tissue. The truth is not moved: a touch is two phones' bodies meeting.
    private func feelLimbs(_ near: [(Int, Int, Double)], dt: Double) {
        guard isSensing else { return }
        let reached = near.filter { $0.2 < Self.limbReach }
        // Only the forearms of phones with a neighbour in reach are placed: most have none.
        var arms = [OrientedBox?](repeating: nil, count: bodies.count)
        var placed = [Bool](repeating: false, count: bodies.count)
        // Each placed phone's and forearm's centre and bounding radius: the bounding spheres of
        // ``limbSeparations(_:_:_:_:)`` tested without copying a box, nearly every pair in reach failing all three.
        var phoneRadius = [Double](repeating: 0, count: bodies.count)
        var hasArm = [Bool](repeating: false, count: bodies.count)
        var armCentre = [Vector3](repeating: .zero, count: bodies.count)
        var armRadius = [Double](repeating: 0, count: bodies.count)
        func place(_ k: Int) {
            guard !placed[k] else { return }
            arms[k] = forearm(k, at: bodies[k], t: time)
            placed[k] = true
            phoneRadius[k] = box(k).halfExtents.length
            if let arm = arms[k] {
                hasArm[k] = true
                armCentre[k] = arm.centre
                armRadius[k] = arm.halfExtents.length
            }
        }
        for (i, j, _) in reached {
            place(i)
            place(j)
        }
        func within(_ a: Vector3, _ ra: Double, _ b: Vector3, _ rb: Double) -> Bool {
            let reach = ra + rb
            return (a - b).lengthSquared <= reach * reach
        }
        var seen: [Int64: SIMD3<Double>] = [:]
        for (i, j, _) in reached where hasArm[i] || hasArm[j] {
            let (ci, cj) = (bodies[i].position, bodies[j].position)
            guard hasArm[j] && within(ci, phoneRadius[i], armCentre[j], armRadius[j])
                    || hasArm[i] && within(armCentre[i], armRadius[i], cj, phoneRadius[j])
                    || hasArm[i] && hasArm[j] && within(armCentre[i], armRadius[i], armCentre[j], armRadius[j])
            else { continue }
            let now = Self.limbSeparations(box(i), arms[i], box(j), arms[j])
            let key = Int64(i) << 32 | Int64(j)
            if now.min() < .infinity { seen[key] = now }
            guard let before = lastLimbs[key] else { continue }
            for k in 0..<3 where before[k] > PhoneBody.touching && now[k] <= PhoneBody.touching {
                let (at, speed): (Double, Double)
                if case .scripted(let file) = scenario {
                    (at, speed) = Self.meeting(within: time - dt, time) { t in
                        let (p, q) = (self.scriptedPose(i, at: t, file: file), self.scriptedPose(j, at: t, file: file))
                        return Self.limbSeparations(
                            self.phone.box(centre: p.position, orientation: p.orientation),
                            self.forearm(i, at: p, t: t),
                            self.phone.box(centre: q.position, orientation: q.orientation), self.forearm(j, at: q, t: t)
                        )[k]
                    }
                } else {
                    let closed = before[k].isFinite ? before[k] - now[k] : 0
                    (at, speed) = closed > 0 ? (time - dt + dt * before[k] / closed, closed / dt) : (time, 0)
                }
                let sides = [(box(i), arms[j]), (arms[i], box(j)), (arms[i], arms[j])][k]
                guard let a = sides.0, let b = sides.1, speed > 0 else { continue }
                guard let settings = scriptedMotion?.settings ?? poseMotion?.settings else { return }
                let phoneSide = settings.cases.phoneMass
                let armSide = settings.forearmMass + settings.hands.phoneMass
                let masses = [(phoneSide, armSide), (armSide, phoneSide), (armSide, armSide)][k]
                let normal = BoxContact(a, b).normal
                scriptedMotion?.meetLimbs(i, j, at: at, closingSpeed: speed, normal: normal, masses: masses)
                poseMotion?.meetLimbs(i, j, at: at, closingSpeed: speed, normal: normal, masses: masses)
                limbMeetings += 1
            }
        }
        lastLimbs = seen
    }

    /// When in the step just made two phones' bodies met, and how fast their surfaces closed then. A scripted
    /// scenario's poses are known at any instant: the meeting is found within a tenth of a microsecond and its
    /// speed over the tenth of a millisecond before it. Mingling hands close at their speed and stop where the
    /// bodies meet, part of the way into a step: the meeting is where they stopped. Other phones the world moves
    /// move at one speed a step: their crossing and mean speed are exact.
    private func meeting(_ i: Int, _ j: Int, from before: Double, to after: Double, dt: Double) -> (Double, Double) {
        guard case .scripted(let file) = scenario else {
            if let closed = closedAt[Int64(i) << 32 | Int64(j)], closed.time > time - dt - 1e-9 {
                return closed
            }
            return (time - dt + dt * before / max(before - after, 1e-12), (before - after) / dt)
        }
        return Self.meeting(within: time - dt, time) { t in
            let pi = scriptedPose(i, at: t, file: file), pj = scriptedPose(j, at: t, file: file)
            return PhoneBody.contact(phone.box(centre: pi.position, orientation: pi.orientation),
                                     phone.box(centre: pj.position, orientation: pj.orientation)).separation
        }
    }

    /// When in the step just made two phones' bodies that touched at its start came apart: within a tenth of a
    /// microsecond for a script's poses, known at any instant; between the two figures for phones the world moves
    /// at one speed a step; `nil` where neither is known (the step's end stands).
    private func parting(_ i: Int, _ j: Int, dt: Double) -> Double? {
        guard case .scripted(let file) = scenario else {
            guard let before = lastClose[Int64(i) << 32 | Int64(j)], before <= PhoneBody.touching else { return nil }
            let after = PhoneBody.contact(box(i), box(j)).separation
            guard after > before else { return nil }
            return time - dt + dt * (PhoneBody.touching - before) / (after - before)
        }
        var (low, high) = (time - dt, time)
        while high - low > 1e-7 {
            let middle = (low + high) / 2
            let pi = scriptedPose(i, at: middle, file: file), pj = scriptedPose(j, at: middle, file: file)
            let apart = PhoneBody.contact(phone.box(centre: pi.position, orientation: pi.orientation),
                                          phone.box(centre: pj.position, orientation: pj.orientation)).separation
            if apart > PhoneBody.touching { high = middle } else { low = middle }
        }
        return high
    }

    /// When between `start` and `end` two bodies whose separating figure is `separation` met, to a tenth of a
    /// microsecond, and how fast they closed over the tenth of a millisecond before.
    private static func meeting(within start: Double, _ end: Double,
                                separation: (Double) -> Double) -> (Double, Double) {
        var (low, high) = (start, end)
        while high - low > 1e-7 {
            let middle = (low + high) / 2
            if separation(middle) > PhoneBody.touching { low = middle } else { high = middle }
        }
        let h = 1e-4
        return (high, max(separation(high - h) - separation(high), 0) / h)
    }

    /// What a script's gestures carry besides the phones, meeting in the step of `dt` just made: two hands (a fist
    /// bump, a handshake's clasp), each phone pushed through its hand; a knuckle on the table two phones lie on,
    /// every phone resting on the table pushed through it. Each is found where its bodies meet, as the phones'
    /// are; the encounter's class only chose the scene (the grip, the table and the knuckle's path).
    private func feelGestures(dt: Double) {
        guard scriptedMotion != nil, case .scripted(let file) = scenario else { return }
        for (script, gesture, _) in scriptedEncounters where time > script.t - 1 && time - dt < gesture.end {
            if let grip = gesture.grip {
                func hands(at t: Double) -> BoxContact {
                    let pa = scriptedPose(script.a, at: t, file: file), pb = scriptedPose(script.b, at: t, file: file)
                    return BoxContact(grip.box(around: phone, centre: pa.position, orientation: pa.orientation),
                                      grip.box(around: phone, centre: pb.position, orientation: pb.orientation))
                }
                guard hands(at: time - dt).separation > PhoneBody.touching,
                      hands(at: time).separation <= PhoneBody.touching else { continue }
                let (at, speed) = Self.meeting(within: time - dt, time) { hands(at: $0).separation }
                scriptedMotion?.meet(script.a, script.b, at: at, closingSpeed: speed, normal: hands(at: time).normal,
                                     hands: true)
            } else if gesture.knock, let table = KnockScene(script, bodies: bodies, phone: phone, tables: file.tables) {
                guard table.knuckleGap(at: time - dt) > PhoneBody.touching,
                      table.knuckleGap(at: time) <= PhoneBody.touching else { continue }
                let (at, speed) = Self.meeting(within: time - dt, time) { table.knuckleGap(at: $0) }
                let resting = bodies.indices.filter { table.rests(box($0)) }
                scriptedMotion?.knock(resting, at: at, knuckleSpeed: speed, tableMass: table.mass)
            } else if gesture.setDown, time > gesture.stopAt - 1, time - dt <= gesture.stopAt + 1 {
                // The file's table the other's phone lies on, or one made under it, reaching under where the
                // setter's comes to lie.
                let landed = scriptedPose(script.a, at: gesture.stopAt, file: file)
                let table = KnockScene.table(under: [box(script.b)], among: file.tables)
                let top = table?.top
                    ?? KnockScene.top(under: [phone.box(centre: landed.position, orientation: landed.orientation),
                                              box(script.b)])
                func gap(at t: Double) -> Double {
                    let p = scriptedPose(script.a, at: t, file: file)
                    return BoxContact(phone.box(centre: p.position, orientation: p.orientation), top).separation
                }
                guard gap(at: time - dt) > PhoneBody.touching, gap(at: time) <= PhoneBody.touching else { continue }
                let (at, speed) = Self.meeting(within: time - dt, time, separation: gap)
                let resting = bodies.indices.filter {
                    $0 != script.a && KnockScene.rests(box($0), on: table, top: top)
                }
                scriptedMotion?.setDown(script.a, on: resting, at: at, closingSpeed: speed, tableMass: table?.mass)
            }
        }
    }

    /// How far apart two cases' surfaces may be and still share a push where they meet, metres: a case and a
    /// holder's grip give this much as two backs a few degrees off parallel conform (an assumption: a soft case's
    /// millimetre and the fingers' give).
    static let conforming = 0.005

    /// Whether phone `i` lies on a table at `t` where a set-down left it, out of its holder's hand.
    private func isSetDown(_ i: Int, at t: Double) -> Bool {
        i < encountersOf.count && encountersOf[i].contains { k in
            let (script, gesture, _) = scriptedEncounters[k]
            return gesture.setDown && script.a == i && t >= gesture.stopAt && t <= gesture.holdUntil
        }
    }

    /// What each holder's own body gives its phone in the step of `dt` just made: the heel strikes of a walk, a
    /// finger's tap on the screen.
    private func feelOwnMotions(dt: Double) {
        guard let own, dt > 0 else { return }
        let start = time - dt
        for i in 0..<peerCount {
            let walking = scriptedMotion?.walking(i, at: time) ?? poseMotion?.walking(i) ?? .standing
            for pulse in own.heelStrikes(i, from: start, to: time, walking: walking) {
                scriptedMotion?.add(i, pulse)
                poseMotion?.add(i, pulse)
            }
            let turn = bodies[i].orientation
            if let swipe = own.screenSwipe(i, endingAt: time, dt: dt, screen: turn.screen, across: turn.right),
               !isSetDown(i, at: time) {
                scriptedMotion?.add(i, swipe)
                poseMotion?.add(i, swipe)
            }
            if let tap = own.screenTap(i, endingAt: time, dt: dt, screen: turn.screen), !isSetDown(i, at: time) {
                scriptedMotion?.add(i, tap)
                poseMotion?.add(i, tap)
            }
        }
        scriptedMotion?.forget(before: time)
    }

    /// Hands `body` the samples each phone's accelerometer and gyroscope took since the last call, device by
    /// device (the world keeps none).
    package func drainSamples(_ body: (Int, [AccelerometerSample], [GyroSample]) -> Void) {
        for d in samples.indices {
            body(d, samples[d], gyroSamples[d])
            samples[d].removeAll(keepingCapacity: true)
            gyroSamples[d].removeAll(keepingCapacity: true)
        }
    }

    private func sampleChips(dt: Double) {
        guard let own else { return }
        if let model = scriptedMotion, case .scripted(let file) = scenario {
            // A script's turns are known at any instant: the rate over the millisecond around each sample.
            let h = 5e-4
            let turns = gyroscope
            for i in chips.indices {
                var tremor = own.tremorSampler(i, interval: 1 / chips[i].settings.rate)
                let lying = encountersOf[i].contains { scriptedEncounters[$0].gesture.setDown }
                let pushed = model.turns[i]
                chips[i].sample(until: time, motion: { t in
                    var now = self.scriptedPose(i, at: t, file: file).orientation
                    var rate = Vector3.zero
                    if turns {
                        let before = self.scriptedPose(i, at: t - h, file: file).orientation
                        let after = self.scriptedPose(i, at: t + h, file: file).orientation
                        rate = after.rotationRate(since: before, over: 2 * h)
                    }
                    if !pushed.isEmpty { Self.turn(&now, &rate, by: pushed, at: t) }
                    // A phone set down on a table is out of its holder's hand: no tremor while it lies there.
                    let shaking = tremor.at(t)
                    return SensedMotion(acceleration: model.acceleration(i, at: t)
                                            + (lying && self.isSetDown(i, at: t) ? .zero : shaking),
                                        orientation: now, rotationRate: rate)
                }, pulses: model.pulses[i], into: &samples[i], turns: &gyroSamples[i])
            }
        } else if let model = poseMotion {
            for i in chips.indices {
                let orientation = bodies[i].orientation
                // The world turns its phones a step at a time: evenly over the step.
                let turning = gyroscope ? orientation.rotationRate(since: stepStartOrientations[i], over: dt) : .zero
                var motion = model.motion(of: i)
                var tremor = own.tremorSampler(i, interval: 1 / chips[i].settings.rate)
                let pushed = model.turns[i]
                chips[i].sample(until: time, motion: { t in
                    var now = orientation, rate = turning
                    if !pushed.isEmpty { Self.turn(&now, &rate, by: pushed, at: t) }
                    return SensedMotion(acceleration: motion.acceleration(at: t) + tremor.at(t),
                                        orientation: now, rotationRate: rate)
                }, pulses: model.pulses[i], into: &samples[i], turns: &gyroSamples[i])
            }
        }
    }

    /// A phone turned in its holder's hand by the pushes `turns` at `t`: its orientation turned by their angles, and
    /// their rates added to its own (the device's axes, as a gyroscope reads them). The radio keeps the hand's pose:
    /// the turn lasts tens of milliseconds and is a few degrees.
    private static func turn(_ orientation: inout Orientation, _ rate: inout Vector3, by turns: [TurnPulse],
                             at t: Double) {
        var angle = Vector3.zero, spin = Vector3.zero
        for turn in turns where t > turn.start && t < turn.end {
            angle += turn.angle(at: t)
            spin += turn.rate(at: t)
        }
        guard angle.lengthSquared > 0 || spin.lengthSquared > 0 else { return }
        rate += orientation.toDevice(spin)
        orientation = orientation.turned(by: angle)
    }

    /// Plans each scripted encounter's gesture from where its two holders stand when it starts (the file's checks
    /// made sure that a peer's encounters do not overlap and that each fits between its two holders).
    private func planEncounters(_ file: ScenarioFile) {
        encountersOf = Array(repeating: [], count: file.peers.count)
        for (k, script) in file.encounters.enumerated() {
            let (gesture, startGap) = Self.plan(script, file.peers, phone: phone)
            encountersOf[script.a].append(k)
            encountersOf[script.b].append(k)
            scriptedEncounters.append((script, gesture, startGap))
        }
    }

    /// An encounter's gesture and the horizontal gap its two holders stand apart when it starts. The hands close
    /// the gap toward the script's closest approach, or to where the two phones' bodies meet when that comes first
    /// (the phones stop there, whatever the script's label).
    static func plan(_ script: EncounterScript, _ peers: [ScenarioFile.Peer],
                     phone: PhoneBody) -> (EncounterScript.Gesture, Double) {
        let (pa, turnA) = interpolate(peers[script.a].waypoints, at: script.t)
        let (pb, turnB) = interpolate(peers[script.b].waypoints, at: script.t)
        func orientation(_ turn: ScenarioFile.Turn, at p: Vector3, other: Int, otherAt q: Vector3) -> Orientation {
            switch turn {
            case .facing(let target):
                .facing(target == other ? q : interpolate(peers[target].waypoints, at: script.t).position, from: p)
            case .angles(let h, let pitch, let roll): Orientation(heading: h, pitch: pitch, roll: roll)
            }
        }
        var between = pb - pa
        between.z = 0
        let toward = between.length > 1e-9 ? between / between.length : Vector3(1, 0, 0)
        let oa = orientation(turnA, at: pa, other: script.b, otherAt: pb)
        let ob = orientation(turnB, at: pb, other: script.a, otherAt: pa)
        if script.kind == .setDown {
            // The setter's phone alone moves, the whole way from the hand down to its place on the table, its
            // bottom level with the other's.
            let up = Vector3(0, 0, 1)
            let rise = phone.box(centre: pa, orientation: oa).radius(along: up)
                - phone.box(centre: pb, orientation: ob).radius(along: up)
            return (script.gesture(from: pa, to: pb, rise: rise),
                    (script.setDownLanding(from: pa, to: pb, rise: rise) - pa).length)
        }
        let offset = Vector3(0, 0, pb.z - pa.z)
        // A gesture of the hands stops where the hands meet, or where the phones do if that comes first.
        var touching = phone.touchingDistance(oa, ob, along: toward, offset: offset)
        if let grip = script.kind.grip {
            touching = max(touching, PhoneBody.touchingDistance(
                { grip.box(around: phone, centre: $0, orientation: oa) },
                { grip.box(around: phone, centre: $0, orientation: ob) }, along: toward, offset: offset))
        }
        return (script.gesture(from: pa, to: pb, touching: touching), between.length)
    }

    /// Where peer `i`'s hands have moved its phone from where its waypoints put it, at `t`.
    private func gestureOffset(_ i: Int, at t: Double) -> Vector3 {
        var offset = Vector3.zero
        for k in encountersOf[i] {
            let (script, gesture, startGap) = scriptedEncounters[k]
            guard t > script.t, t < gesture.end else { continue }
            offset += gesture.toward * (gesture.closed(at: t, startGap: startGap) * gesture.share(of: i, a: script.a))
            offset.z += gesture.lift(at: t)
        }
        return offset
    }

    private func scriptedPose(_ i: Int, at t: Double, file: ScenarioFile) -> Pose {
        func position(_ i: Int) -> Vector3 {
            Self.interpolate(file.peers[i].waypoints, at: t).position + gestureOffset(i, at: t)
        }
        let (waypoint, turn) = Self.interpolate(file.peers[i].waypoints, at: t)
        let p = waypoint + gestureOffset(i, at: t)
        switch turn {
        case .facing(let other):
            return Pose(position: p, orientation: .facing(position(other), from: p))
        case .angles(let h, let pitch, let roll):
            return Pose(position: p, orientation: Orientation(heading: h, pitch: pitch, roll: roll))
        }
    }

    /// Position interpolated linearly between the waypoints around `t` (held before the first and after the last);
    /// the turn of the waypoint at or before `t`, or angles interpolated when both waypoints give angles.
    static func interpolate(_ w: [ScenarioFile.Waypoint], at t: Double) -> (position: Vector3, turn: ScenarioFile.Turn) {
        guard let last = w.last, let first = w.first else { return (.zero, .angles(heading: 0, pitch: 0, roll: 0)) }
        if t <= first.t { return (first.position, first.turn) }
        if t >= last.t { return (last.position, last.turn) }
        let k = w.firstIndex { $0.t > t }!
        let (p, q) = (w[k - 1], w[k])
        let f = (t - p.t) / (q.t - p.t)
        let position = p.position + (q.position - p.position) * f
        if case .angles(let h0, let p0, let r0) = p.turn, case .angles(let h1, let p1, let r1) = q.turn {
            return (position, .angles(heading: h0 + (h1 - h0) * f, pitch: p0 + (p1 - p0) * f, roll: r0 + (r1 - r0) * f))
        }
        return (position, p.turn)
    }
}

