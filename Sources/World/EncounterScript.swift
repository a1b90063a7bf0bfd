import Foundation
import Geometry

/// The kinds of meeting a bump detector must tell apart: two that are touches and seven that are not, each a hand
/// gesture with published kinematics (docs/sensors.md).
package enum EncounterClass: String, Sendable, CaseIterable, Codable, Comparable {
    /// Phones brought together slowly until their cases touch.
    case gentleTouch
    /// Phones tapped together.
    case hardTap
    /// Hands slow to a stop just short of touching.
    case softStop
    /// Hands brake hard just short of touching.
    case hardStop
    /// The two hands holding the phones bump fists: the hands meet, the phones a fist's width apart.
    case fistBump
    /// The two hands holding the phones shake: they meet and move up and down together.
    case handshake
    /// Both phones lie still on one table while someone knocks on it.
    case tableKnock
    /// One holder walks past the other.
    case walkPast
    /// One holder sets a phone down on the table the other's phone lies on, beside it, and picks it up again.
    case setDown

    /// Whether the script aims the phones' cases at each other: what a bump is meant to be. What happens is the
    /// bodies' business (the truth scores the contact, not the label).
    package var isTouch: Bool { self == .gentleTouch || self == .hardTap }

    /// How the hands hold the phones for the gesture, where it is the hands that meet.
    package var grip: Grip? {
        switch self {
        case .fistBump: .fist
        case .handshake: .openHand
        default: nil
        }
    }

    package static func < (a: Self, b: Self) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// One scripted encounter of a scenario file: two peers, from time `t`, meet as `kind` says, their phones' centres
/// coming to `minimumDistance` metres, closing at `closingSpeed` m/s (at contact for a touch, a fist bump and a
/// handshake's clasp, where something meets; at the approach's peak for a stop; the walker's speed for a walk past;
/// the knuckle's for a table knock), held `hold` seconds.
package struct EncounterScript: Sendable, Equatable {
    package let kind: EncounterClass
    package let a: Int
    package let b: Int
    package let t: Double
    package let closingSpeed: Double
    package let minimumDistance: Double
    package let hold: Double
    /// The name of how the two phones are turned to each other for it (`sideOn`, `topsTogether`, ...), as the file
    /// gives it: a label the scorer reports figures by, as it does the class. The phones' turns come from their
    /// waypoints alone.
    package let pose: String?

    /// An approach that meets something (the phones, the fists, the hands' clasp) peaks at this closing speed,
    /// m/s, or at the contact's own speed over `contactShareOfPeak` when faster: a hand does not plan to stop at
    /// the surface it taps, so the meeting comes still closing, late in the move for a gentle touch, near its peak
    /// for a hard tap.
    static let approachPeakSpeed = 0.5
    static let contactShareOfPeak = 0.9
    /// How long the hands take to part again, seconds.
    static let withdrawal = 0.8
    /// A handshake's shaking: frequency (Hz), amplitude (m) and length (s).
    static let shake = (frequency: 2.5, amplitude: 0.03, length: 1.2)
    /// A phone set down is lifted from no lower than this above the one lying on the table, metres: the setter's
    /// phone comes down onto the table, not along it.
    package static let setDownLeastHeight = 0.02

    /// The same encounter under another label: what a ``TruthScramble`` hands the scorer once the gesture is
    /// planned.
    func relabelled(as other: EncounterClass) -> EncounterScript {
        EncounterScript(kind: other, a: a, b: b, t: t, closingSpeed: closingSpeed, minimumDistance: minimumDistance,
                        hold: hold, pose: pose)
    }

    package init(kind: EncounterClass, a: Int, b: Int, t: Double, closingSpeed: Double, minimumDistance: Double,
                hold: Double = 0.5, pose: String? = nil) {
        self.pose = pose
        self.kind = kind
        self.a = a
        self.b = b
        self.t = t
        self.closingSpeed = closingSpeed
        self.minimumDistance = minimumDistance
        self.hold = hold
    }

    /// The moves of the two phones, relative to where their holders' waypoints put them, given where those stand
    /// at the encounter's start: each phone's offset and its duration. Shared by both hands, half the way each.
    /// The hands close the gap to `minimumDistance`, or to `touching` (where the phones' bodies meet, or the hands'
    /// for a gesture with a ``EncounterClass/grip``; 0 if they never would) when that is farther: nothing passes
    /// through a phone or a hand.
    ///
    /// A set-down's phone lies `rise` higher than the other's centre (``setDownLanding(from:to:rise:)``).
    package func gesture(from pa: Vector3, to pb: Vector3, touching: Double = 0, rise: Double = 0) -> Gesture {
        let stopGap = max(minimumDistance, touching)
        var between = pb - pa
        between.z = 0
        let gap = max(between.length, 1e-6)
        let toward = between.length > 1e-9 ? between / gap : Vector3(1, 0, 0)
        /// A move that aims past where it meets something, which it reaches on its braking half at `speed`: where
        /// 16u²(1 − u)², its speed over its peak, falls to that share. Its length and duration, and when it meets.
        func aimedPast(_ length: Double, meetingAt speed: Double) -> (distance: Double, duration: Double, at: Double) {
            let peak = max(Self.approachPeakSpeed, speed / Self.contactShareOfPeak)
            let share = speed / peak
            let u = (1 + (1 - share.squareRoot()).squareRoot()) / 2
            let covered = u * u * u * (10 - 15 * u + 6 * u * u)
            let distance = length / covered
            let duration = max(MinimumJerkMove.peakSpeedFactor * distance / peak, 0.05)
            return (distance, duration, t + u * duration)
        }
        /// Aimed short of where anything meets (or at bodies that pass): the hands brake to a stop there, at the
        /// speed they would have peaked at on the way to a meeting, instead of stopping dead.
        func brakedShort() -> Gesture {
            let peak = max(Self.approachPeakSpeed, closingSpeed / Self.contactShareOfPeak)
            let distance = max(gap - stopGap, 0)
            let duration = max(MinimumJerkMove.peakSpeedFactor * distance / peak, 0.05)
            let end = t + duration
            return Gesture(toward: toward, closing: MinimumJerkMove(from: .zero, to: toward * distance, start: t,
                                                                     duration: duration),
                           stopGap: stopGap, stopAt: end,
                           holdUntil: end + hold + (kind == .handshake ? Self.shake.length : 0),
                           shake: kind == .handshake ? (start: end, length: Self.shake.length) : nil,
                           grip: kind.grip, knock: false)
        }
        switch kind {
        case .gentleTouch, .hardTap, .fistBump, .handshake:
            guard touching > 0, minimumDistance <= touching else { return brakedShort() }
            let move = aimedPast(gap - stopGap, meetingAt: closingSpeed)
            return Gesture(toward: toward, closing: MinimumJerkMove(from: .zero, to: toward * move.distance, start: t,
                                                                     duration: move.duration),
                           stopGap: stopGap, stopAt: move.at,
                           holdUntil: move.at + hold + (kind == .handshake ? Self.shake.length : 0),
                           shake: kind == .handshake ? (start: move.at, length: Self.shake.length) : nil,
                           grip: kind.grip, knock: false)
        case .setDown:
            // The setter's phone goes straight from the hand to its place on the table, `minimumDistance` from the
            // other's on the side of the setter, and meets the table top there at the script's speed (closing
            // along the top's normal: the move's own speed over its downward share). The table stops it; it lies
            // there for `hold`, and is picked up the way it came.
            let path = setDownLanding(from: pa, to: pb, rise: rise) - pa
            let length = max(path.length, 1e-6)
            let down = max(-path.z / length, 1e-3)
            let move = aimedPast(length, meetingAt: closingSpeed / down)
            let direction = path / length
            return Gesture(toward: direction, closing: MinimumJerkMove(from: .zero, to: direction * move.distance,
                                                                        start: t, duration: move.duration),
                           stopGap: 0, stopAt: move.at, holdUntil: move.at + hold, shake: nil, grip: nil,
                           knock: false, setDown: true)
        case .softStop, .hardStop:
            let distance = max(gap - stopGap, 0)
            let duration = max(MinimumJerkMove.peakSpeedFactor * distance / closingSpeed, 0.05)
            let end = t + duration
            return Gesture(toward: toward, closing: MinimumJerkMove(from: .zero, to: toward * distance, start: t,
                                                                     duration: duration),
                           stopGap: stopGap, stopAt: end, holdUntil: end + hold, shake: nil, grip: nil,
                           knock: false)
        case .tableKnock, .walkPast:
            return Gesture(toward: toward, closing: nil, stopGap: gap, stopAt: t, holdUntil: t + hold, shake: nil,
                           grip: nil, knock: kind == .tableKnock)
        }
    }

    /// Where a set-down's phone comes to lie, its setter's phone at `pa` and the other's, on the table, at `pb`:
    /// `minimumDistance` from the other's centre toward the setter, `rise` higher (its half height over the
    /// other's: both bottoms on the table).
    package func setDownLanding(from pa: Vector3, to pb: Vector3, rise: Double = 0) -> Vector3 {
        var between = pb - pa
        between.z = 0
        let toward = between.length > 1e-9 ? between / between.length : Vector3(1, 0, 0)
        return pb - toward * minimumDistance + Vector3(0, 0, rise)
    }

    /// How the two hands move in one encounter: together along `toward` by the closing move (the pair's gap closes
    /// by its offset; each hand covers half), held at `stopGap` from `stopAt` to `holdUntil` (shaking, for a
    /// handshake), then parted by a minimum-jerk withdrawal.
    package struct Gesture: Sendable, Equatable {
        package let toward: Vector3
        package let closing: MinimumJerkMove?
        package let stopGap: Double
        package let stopAt: Double
        package let holdUntil: Double
        package let shake: (start: Double, length: Double)?
        /// The hands around the phones from the start of the gesture to its end, where they are what meets.
        package let grip: Grip?
        /// Whether the scene is a table under the two phones and a knuckle coming down on it (``KnockScene``).
        package let knock: Bool
        /// Whether the first holder's phone alone moves, down onto the table the second's lies on (``TableScene``):
        /// it covers the whole of the closing, along `toward`, which points down to its place there.
        package let setDown: Bool

        init(toward: Vector3, closing: MinimumJerkMove?, stopGap: Double, stopAt: Double, holdUntil: Double,
             shake: (start: Double, length: Double)?, grip: Grip?, knock: Bool, setDown: Bool = false) {
            self.toward = toward
            self.closing = closing
            self.stopGap = stopGap
            self.stopAt = stopAt
            self.holdUntil = holdUntil
            self.shake = shake
            self.grip = grip
            self.knock = knock
            self.setDown = setDown
        }

        package static func == (a: Gesture, b: Gesture) -> Bool {
            a.toward == b.toward && a.closing == b.closing && a.stopGap == b.stopGap && a.stopAt == b.stopAt
                && a.holdUntil == b.holdUntil && a.shake?.start == b.shake?.start && a.shake?.length == b.shake?.length
                && a.grip == b.grip && a.knock == b.knock && a.setDown == b.setDown
        }

        /// When the hands are back where their holders' waypoints put them.
        package var end: Double { holdUntil + (closing == nil ? 0 : EncounterScript.withdrawal) }

        /// How far phone `i` of the encounter's pair `a`, `b` has moved along `toward` at `time`: half the closing
        /// each, the first toward the second, or all of it for the setter of a set-down.
        package func share(of i: Int, a: Int) -> Double {
            setDown ? (i == a ? 1 : 0) : (i == a ? 0.5 : -0.5)
        }

        /// How far the pair's gap has closed at `time`, metres, given the gap `start` when it began.
        package func closed(at time: Double, startGap: Double) -> Double {
            guard let closing else { return 0 }
            let atStop = startGap - stopGap
            if time <= stopAt { return min(closing.position(at: time).length, atStop) }
            if time <= holdUntil { return atStop }
            let back = MinimumJerkMove(from: Vector3(atStop, 0, 0), to: .zero, start: holdUntil,
                                       duration: EncounterScript.withdrawal)
            return back.position(at: time).x
        }

        /// The second derivative of ``closed(at:startGap:)``: the gap's closing acceleration, m/s². A meeting's
        /// last speed is not in it: the meeting's push takes it out (``ContactMechanics``).
        package func closingAcceleration(at time: Double, startGap: Double) -> Double {
            guard let closing else { return 0 }
            if time < stopAt { return closing.acceleration(at: time).dot(toward) }
            if time <= holdUntil { return 0 }
            let back = MinimumJerkMove(from: Vector3(startGap - stopGap, 0, 0), to: .zero, start: holdUntil,
                                       duration: EncounterScript.withdrawal)
            return back.acceleration(at: time).x
        }

        /// The second derivative of ``lift(at:)``, m/s².
        package func liftAcceleration(at time: Double) -> Double {
            let omega = 2 * Double.pi * EncounterScript.shake.frequency
            return -omega * omega * lift(at: time)
        }

        /// The hands' shared height offset at `time`: a handshake's shaking, nothing otherwise.
        package func lift(at time: Double) -> Double {
            guard let shake, time > shake.start, time < shake.start + shake.length else { return 0 }
            return EncounterScript.shake.amplitude * sin(2 * .pi * EncounterScript.shake.frequency * (time - shake.start))
        }
    }
}
