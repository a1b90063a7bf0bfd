import Foundation
import Geometry

/// What the world knows of how two phones meet: their masses, their cases' stiffness and how much of the closing
/// speed they give back. Sources and the reasoning behind each default: docs/sensors.md.
package struct ContactSettings: Sendable, Equatable {
    /// A phone with its case, kg: 171 to 221 g bare (iPhone 15 to 15 Pro Max, Apple's specifications) and some 30 g
    /// of case. The hand holding it does not join in: its soft grip takes tens of milliseconds to pass a force on,
    /// against the few milliseconds the phones touch.
    package var phoneMass = 0.2
    /// The cases' Young's modulus, Pa: thermoplastic polyurethane spans 10 to 1,000 MPa; phone cases are its soft
    /// grades.
    package var caseModulus = 30e6
    /// The cases' Poisson ratio (an elastomer's: near 0.5).
    package var casePoisson = 0.45
    /// The radius of curvature where two phones meet (a case's rounded edge), m.
    package var contactRadius = 0.01
    /// The share of the closing speed the pair gives back (0: they stay together; 1: perfectly elastic).
    package var restitution = 0.5

    package init() {}

    /// The first setting out of range, named, or `nil`.
    package func problem() -> String? {
        if !(phoneMass > 0 && phoneMass <= 10) { return "phoneMass must be above 0 and at most 10 kg, got \(phoneMass)" }
        if !(caseModulus >= 1e4 && caseModulus <= 1e12) { return "caseModulus must be between 1e4 and 1e12 Pa, got \(caseModulus)" }
        if !(casePoisson >= 0 && casePoisson < 0.5) { return "casePoisson must be at least 0 and under 0.5, got \(casePoisson)" }
        if !(contactRadius > 0 && contactRadius <= 1) { return "contactRadius must be above 0 and at most 1 m, got \(contactRadius)" }
        if !(restitution >= 0 && restitution <= 1) { return "restitution must be between 0 and 1, got \(restitution)" }
        return nil
    }
}

/// The push one phone feels while it touches something: a half-sine of acceleration, `peak` m/s² at its middle,
/// along `direction` (world frame, unit), from `start` for `duration` seconds. Its area, 2·peak·duration/π, is the
/// phone's change of velocity.
package struct ContactPulse: Sendable, Equatable {
    package let start: Double
    package let duration: Double
    package let peak: Double
    package let direction: Vector3

    package init(start: Double, duration: Double, peak: Double, direction: Vector3) {
        self.start = start
        self.duration = duration
        self.peak = peak
        self.direction = direction
    }

    /// The phone's change of speed over the pulse, m/s.
    package var velocityChange: Double { 2 * peak * duration / .pi }

    /// The pulse's acceleration at world time `t`, m/s² (world frame).
    package func acceleration(at t: Double) -> Vector3 {
        let u = (t - start) / duration
        guard u > 0, u < 1 else { return .zero }
        return direction * (peak * sin(.pi * u))
    }
}

/// How a push off a held phone's centre turns it: the push's angular impulse about the centre spins the phone
/// (`spin`, world frame, rad/s) over the few milliseconds its hand's soft grip lets it turn freely, and the grip then
/// brings it back, critically damped over `settle` seconds: turning at `spin` (1 − u) e^(−u), turned by
/// `spin` · (t − start) e^(−u), u = (t − start) / settle, at most `spin` · settle / e.
package struct TurnPulse: Sendable, Equatable {
    package let start: Double
    package let spin: Vector3
    package let settle: Double

    package init(start: Double, spin: Vector3, settle: Double) {
        self.start = start
        self.spin = spin
        self.settle = settle
    }

    /// When the turn has died away (under a millionth of its spin).
    package var end: Double { start + 16 * settle }

    /// The phone's rate of turning at `t`, rad/s, world frame.
    package func rate(at t: Double) -> Vector3 {
        let u = (t - start) / settle
        guard u > 0, u < 16 else { return .zero }
        return spin * ((1 - u) * exp(-u))
    }

    /// How far the phone is turned at `t`: about the direction, by the length, radians, world frame.
    package func angle(at t: Double) -> Vector3 {
        let u = (t - start) / settle
        guard u > 0, u < 16 else { return .zero }
        return spin * ((t - start) * exp(-u))
    }
}

/// Two phones meeting, as Hertz's elastic contact between their cases' rounded edges (Johnson, Contact Mechanics,
/// 1985, §11.4): the contact lasts 2.87 (m² / (R E*² v))^(1/5) for the pair's reduced mass m, the reduced radius R
/// and modulus E*, and the closing speed v, so a gentle touch lasts longer and pushes far less than a hard tap; the
/// speed given back follows the restitution; momentum is shared by the masses.
package enum ContactMechanics {
    /// The turn `pulse` gives a phone of `mass` whose body is `body`, pushed at `point` (where the bodies meet):
    /// its angular impulse about the centre over the box's moments of inertia (a uniform slab); `nil` when the push
    /// goes through the centre.
    package static func turn(_ pulse: ContactPulse, mass: Double, body: OrientedBox, at point: Vector3,
                             settle: Double) -> TurnPulse? {
        let impulse = pulse.direction * (mass * pulse.velocityChange)
        let local = body.orientation.toDevice((point - body.centre).cross(impulse))
        let e = body.halfExtents * 2
        let inertia = Vector3(e.y * e.y + e.z * e.z, e.x * e.x + e.z * e.z, e.x * e.x + e.y * e.y) * (mass / 12)
        let spin = body.orientation.toWorld(Vector3(local.x / inertia.x, local.y / inertia.y, local.z / inertia.z))
        guard spin.lengthSquared > 1e-12 else { return nil }
        return TurnPulse(start: pulse.start + pulse.duration / 2, spin: spin, settle: settle)
    }

    /// The turns two phones' cases meeting at `point` give them, by their pushes and bodies.
    static func turns(_ pushes: (ContactPulse, ContactPulse), bodies: (OrientedBox, OrientedBox), at point: Vector3,
                      settings: MotionSettings) -> (TurnPulse?, TurnPulse?) {
        let mass = settings.cases.phoneMass, settle = settings.gripSettle
        return (turn(pushes.0, mass: mass, body: bodies.0, at: point, settle: settle),
                turn(pushes.1, mass: mass, body: bodies.1, at: point, settle: settle))
    }

    /// The pulses phones `a` and `b` feel when they meet at `time` closing at `closingSpeed` m/s, `normal` the
    /// world direction from `a` toward `b`; `nil` when they are not closing (no contact, no impulse).
    package static func meet(
        at time: Double, closingSpeed: Double, normal: Vector3, settings s: ContactSettings,
        massA: Double? = nil, massB: Double? = nil
    ) -> (a: ContactPulse, b: ContactPulse)? {
        guard closingSpeed > 0, closingSpeed.isFinite, normal.lengthSquared > 0 else { return nil }
        let ma = massA ?? s.phoneMass, mb = massB ?? s.phoneMass
        let duration = duration(closingSpeed: closingSpeed, reducedMass: ma * mb / (ma + mb), settings: s)
        let exchanged = (1 + s.restitution) * closingSpeed
        let n = normal.normalized
        // Each phone's change of speed: its share of the exchanged speed, the lighter taking more.
        let dvA = exchanged * mb / (ma + mb), dvB = exchanged * ma / (ma + mb)
        let peakA = .pi * dvA / (2 * duration), peakB = .pi * dvB / (2 * duration)
        return (ContactPulse(start: time, duration: duration, peak: peakA, direction: -n),
                ContactPulse(start: time, duration: duration, peak: peakB, direction: n))
    }

    /// Hertz's contact time, seconds.
    package static func duration(closingSpeed v: Double, reducedMass m: Double, settings s: ContactSettings) -> Double {
        // Two equal cases: each edge of radius r meets the other (R = r / 2), each of modulus E (E* = E / 2(1 - ν²)).
        let radius = s.contactRadius / 2
        let modulus = s.caseModulus / (2 * (1 - s.casePoisson * s.casePoisson))
        return 2.868 * pow(m * m / (radius * modulus * modulus * v), 0.2)
    }
}
