import Foundation
import Geometry
import Testing
import World

@Suite struct ContactMechanicsTests {
    private let normal = Vector3(1, 0, 0)

    /// Momentum is shared by the masses, the speed given back follows the restitution, and each phone is pushed
    /// away from the other.
    @Test func aMeetingConservesMomentum() throws {
        var s = ContactSettings()
        s.restitution = 0.4
        let (a, b) = try #require(ContactMechanics.meet(at: 3, closingSpeed: 0.3, normal: normal * 2, settings: s,
                                                          massA: 0.15, massB: 0.25))
        #expect(abs(0.15 * a.velocityChange - 0.25 * b.velocityChange) < 1e-12)
        #expect(abs(a.velocityChange + b.velocityChange - 1.4 * 0.3) < 1e-12)
        #expect(a.direction == -normal && b.direction == normal)
        #expect(a.start == 3 && a.duration == b.duration)
        #expect(a.peak > b.peak)
        // The half-sine's area is its change of speed.
        var area = 0.0
        let n = 100_000
        for k in 0..<n { area += a.acceleration(at: 3 + a.duration * (Double(k) + 0.5) / Double(n)).x }
        #expect(abs(-area * a.duration / Double(n) - a.velocityChange) < 1e-9)
    }

    /// Hertz: the contact lasts as v^(-1/5), so the push grows as v^(6/5): a tap ten times faster pushes 15.8
    /// times harder, over a contact 1.58 times shorter.
    @Test func aHardTapPushesHarderAndShorter() throws {
        let s = ContactSettings()
        let gentle = try #require(ContactMechanics.meet(at: 0, closingSpeed: 0.05, normal: normal, settings: s)).a
        let hard = try #require(ContactMechanics.meet(at: 0, closingSpeed: 0.5, normal: normal, settings: s)).a
        #expect(abs(gentle.duration / hard.duration - pow(10, 0.2)) < 1e-9)
        #expect(abs(hard.peak / gentle.peak - pow(10, 1.2)) < 1e-9)
        // The defaults' figures docs/sensors.md quotes: a 0.3 m/s tap lasts about 5 ms and pushes each phone by
        // about 7 g; a 5 cm/s touch, about 7 ms and 1 g.
        let tap = try #require(ContactMechanics.meet(at: 0, closingSpeed: 0.3, normal: normal, settings: s)).a
        #expect(tap.duration > 0.0045 && tap.duration < 0.0055, "\(tap.duration)")
        #expect(tap.peak > 60 && tap.peak < 75, "\(tap.peak)")
        #expect(gentle.duration > 0.0065 && gentle.duration < 0.008, "\(gentle.duration)")
        #expect(gentle.peak > 7 && gentle.peak < 10, "\(gentle.peak)")
    }

    /// A push off the centre turns the phone: its angular impulse over the slab's moment of inertia (a tap's
    /// 0.09 N s, 3 cm up a 0.2-kg phone 7.8 by 14.7 by 0.8 cm, spins it at 7.4 rad/s about its x axis); through the
    /// centre it does not. The grip brings it back, critically damped: turned at most spin · settle / e, at
    /// `settle` after the push, and the rate is the angle's derivative.
    @Test func aPushOffTheCentreTurnsThePhone() throws {
        let body = OrientedBox(centre: .zero, orientation: Orientation(heading: 0),
                               halfExtents: Vector3(0.039, 0.0735, 0.004))
        let push = ContactPulse(start: 1, duration: 0.005, peak: .pi * 0.45 / 0.01, direction: body.orientation.screen)
        #expect(abs(0.2 * push.velocityChange - 0.09) < 1e-12)
        let point = body.centre + body.orientation.top * 0.03
        let turn = try #require(ContactMechanics.turn(push, mass: 0.2, body: body, at: point, settle: 0.02))
        let inertia = 0.2 * (0.147 * 0.147 + 0.008 * 0.008) / 12
        let expected = body.orientation.right * (0.03 * 0.09 / inertia)
        #expect((turn.spin - expected).length < 1e-9 * expected.length, "\(turn.spin) against \(expected)")
        #expect(abs(turn.spin.length - 7.48) < 0.01)
        #expect(ContactMechanics.turn(push, mass: 0.2, body: body, at: body.centre + body.orientation.screen * 0.004,
                                      settle: 0.02) == nil)
        let peak = turn.angle(at: turn.start + 0.02)
        #expect(abs(peak.length - 7.48 * 0.02 / M_E) < 0.01 * peak.length)
        #expect(turn.angle(at: turn.start + 0.01).length < peak.length)
        #expect(turn.angle(at: turn.start + 0.03).length < peak.length)
        let h = 1e-6, t = turn.start + 0.013
        #expect(((turn.angle(at: t + h) - turn.angle(at: t - h)) / (2 * h) - turn.rate(at: t)).length < 1e-5)
        #expect(turn.rate(at: turn.end + 0.001) == .zero && turn.angle(at: turn.start - 0.001) == .zero)
    }

    @Test func noClosingNoImpulse() {
        let s = ContactSettings()
        #expect(ContactMechanics.meet(at: 0, closingSpeed: 0, normal: normal, settings: s) == nil)
        #expect(ContactMechanics.meet(at: 0, closingSpeed: -0.2, normal: normal, settings: s) == nil)
        #expect(ContactMechanics.meet(at: 0, closingSpeed: 0.2, normal: .zero, settings: s) == nil)
        #expect(ContactMechanics.meet(at: 0, closingSpeed: .nan, normal: normal, settings: s) == nil)
    }

    @Test func settingsOutOfRangeAreNamed() {
        var s = ContactSettings()
        #expect(s.problem() == nil)
        s.restitution = 1.5
        #expect(s.problem() == "restitution must be between 0 and 1, got 1.5")
        s = ContactSettings()
        s.casePoisson = 0.5
        #expect(s.problem() == "casePoisson must be at least 0 and under 0.5, got 0.5")
    }
}
