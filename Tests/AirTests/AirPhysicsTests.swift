import Air
import DeviceInterface
import Foundation
import Geometry
import Planning
import Ranging
import Testing
import TestSupport

/// `uncoordinated` on a static crowd all in hearing, one channel, no capture: each of m sessions starts once a round
/// of T at a uniform instant. An exchange is lost to one that shares a device and began within τ before it
/// (probability τ/T), and to one that does not when any of their frames overlap: 2F − 1 offsets a slot apart where
/// frames of length d meet, (2F − 1)·2d/T. So it survives with (1 − τ/T)^s (1 − (2F − 1)·2d/T)^(m − 1 − s), s the
/// sessions that share one of its devices.
@Suite struct UncoordinatedTests {
    static func noCapture() -> Medium {
        var medium = Medium()
        medium.captureThreshold = nil
        return medium
    }

    /// The closed form above for n devices all in session, each pair once a round.
    static func survival(devices n: Int, _ medium: Medium) -> Double {
        let m = n * (n - 1) / 2, shared = 2 * (n - 2)
        let tau = medium.exchangeDuration(.doubleSided), frames = Double(medium.doubleSidedSlots)
        let frameLoss = (2 * frames - 1) * 2 * medium.frameDuration / 0.1
        return pow(1 - tau / 0.1, Double(shared)) * pow(1 - frameLoss, Double(m - 1 - shared))
    }

    @Test func collisionShareMatchesRandomAccess() throws {
        // 8 devices within 2 m: 28 sessions; each shares a device with 12 others: 0.9^12 × 0.9712^15 = 0.182.
        let medium = Self.noCapture()
        var crowd = try Crowd.grid(8, spacing: 0.6, medium: medium)
        var planner = try Uncoordinated(medium: medium, scheme: .doubleSided, peers: 8, seed: 5)
        var plan = RangingPlan()
        var attempts = 0
        var collided = 0
        for k in 1...400 {
            crowd.round(k, &planner, &plan)
            attempts += plan.exchanges.count + plan.collided.reduce(0, +)
            collided += plan.collided.reduce(0, +)
            #expect(plan.exchanges.count + plan.collided[0] == 28)
        }
        let expected = 1 - Self.survival(devices: 8, medium)
        #expect(abs(expected - 0.818) < 0.001)
        let measured = Double(collided) / Double(attempts)
        // 11,200 attempts: the share's standard error is about 0.004.
        #expect(attempts == 11_200)
        #expect(abs(measured - expected) < 0.02, "measured \(measured), expected \(expected)")
    }

    /// Two groups farther apart than the interference range do not disturb each other; within a group they do.
    @Test func distanceSeparatesCollisions() throws {
        let near = (0..<4).map { Vector3(Double($0) * 0.5, 0, 1.2) }
        let far = (0..<4).map { Vector3(100 + Double($0) * 0.5, 0, 1.2) }
        let medium = Self.noCapture()
        var crowd = try Crowd(positions: near + far, medium: medium)
        // Sessions only within each group: 6 + 6.
        for a in 0..<8 { for b in 0..<8 where a != b && (a < 4) != (b < 4) { crowd.running.set(a, b, running: false) } }
        var planner = try Uncoordinated(medium: medium, scheme: .doubleSided, peers: 8, seed: 9)
        var plan = RangingPlan()
        var collided = 0
        for k in 1...400 {
            crowd.round(k, &planner, &plan)
            collided += plan.collided[0]
            #expect(plan.exchanges.count + plan.collided[0] == 12)
        }
        // Each group alone: 1 − 0.9^4 × 0.9712 = 36.3% of 4,800 attempts (all twelve together would lose 71%).
        let measured = Double(collided) / 4_800
        #expect(abs(measured - (1 - Self.survival(devices: 4, medium))) < 0.025, "measured \(measured)")
    }
}

/// A device's limit of active sessions: first come, first kept; the app told once of each suspension and each end.
/// A coordinated planner shares a slot between two exchanges only when it believes them out of each other's hearing;
/// the world's medium loses both when they are not.
@Suite struct CoordinatedBeliefTests {
    @Test(arguments: [true, false])
    func aWrongBeliefCostsExchanges(_ hearsBluetooth: Bool) throws {
        // 16 devices within 3 m, one channel: everyone hears everyone.
        var crowd = try Crowd.grid(16, spacing: 1, medium: Medium())
        crowd.hearsBluetooth = hearsBluetooth
        var planner = RoundRobin(medium: Medium(), scheme: .doubleSided, peers: 16, hearingMargin: Fixtures.hearingMargin)
        var plan = RangingPlan()
        var received = 0
        var collided = 0
        for k in 1...5 {
            crowd.round(k, &planner, &plan)
            received += plan.exchanges.count
            collided += plan.collided.reduce(0, +)
        }
        if hearsBluetooth {
            // Believed right: one exchange a position, 10 a round, none lost.
            #expect(received == 50 && collided == 0)
        } else {
            // Never heard and never ranged, every other pair seems far: the planner fills each position with as many
            // exchanges as have free devices (8 pairs of 16 devices), and all but those alone collide.
            #expect(collided > 100 && received < 50, "received \(received), collided \(collided)")
        }
    }
}
