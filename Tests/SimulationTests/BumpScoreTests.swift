import Foundation
import Geometry
import Planning
import Ranging
@testable import Simulation
import Testing
import World

/// The bump scoring rules of docs/simulation.md on a truth written by hand: devices 0 and 1 touch from 10 s to
/// 11 s, devices 2 and 3 brush for 0.1 s at 20 s, devices 4 and 5 touch from 59.5 s (in the run's last second), and
/// devices 6 and 7 come within 20 cm at 30 s. The run ends at 60 s.
@Suite struct BumpScoreTests {
    private static func tracker() -> ContactTracker {
        var tracker = ContactTracker()
        // The gaps between two phones' backs, upright and facing each other.
        func gaps(at t: Double) -> [Double] {
            [
                t >= 10 && t < 11 ? 0 : 1,
                t >= 20 && t < 20.1 ? 0 : 1,
                t >= 59.5 ? 0 : 1,
                t >= 29.9 && t < 30.1 ? (t < 30 ? 0.3 : 0.2) : 1,
            ]
        }
        let phone = PhoneBody.iPhone15
        for k in 0...600 {
            let t = Double(k) / 10
            let bodies = gaps(at: t).enumerated().flatMap { pair, gap in
                let a = Vector3(Double(pair) * 5, 0, 1.2), b = Vector3(Double(pair) * 5 + phone.size.z + gap, 0, 1.2)
                return [phone.box(centre: a, orientation: .facing(b, from: a)),
                        phone.box(centre: b, orientation: .facing(a, from: b))]
            }
            _ = tracker.observe(bodies, at: t)
        }
        return tracker
    }

    private static func bump(_ a: Int, _ b: Int, at time: Double, trueDistance: Double = 0.05) -> RangingBump {
        RangingBump(initiator: a, responder: b, time: time, estimate: 0.07, trueDistance: trueDistance)
    }

    @Test func theTruthIsWhatTheScoreIsReadAgainst() {
        let tracker = Self.tracker()
        #expect(tracker.contacts.count == 3)
        #expect(tracker.nearMisses.count == 1)
    }

    /// A bump matches its pair's contact from 0.5 s before it starts to 1 s after it ends, whichever side fired.
    @Test(arguments: [
        (9.4, false), (9.6, true), (10.3, true), (11.9, true), (12.1, false),
    ])
    func theMatchingWindow(_ time: Double, _ matches: Bool) {
        let score = BumpScore(bumps: [Self.bump(1, 0, at: time)], tracker: Self.tracker(), end: 60)
        // The brush and the contact of the last second are not counted: one contact to detect.
        #expect(score.contacts == 1)
        #expect(score.brushes == 1)
        #expect(score.detected == (matches ? 1 : 0))
        #expect(score.matchedBumps == (matches ? 1 : 0))
        if matches {
            // Signed: a bump before the touch began is early, not zero.
            #expect(abs(score.latency(0.5)! - (time - 10)) < 1e-9)
            #expect(score.early == (time < 10 ? 1 : 0))
        }
    }

    /// One contact takes one bump, the first; a second is false. False bumps are told by the true distance at which
    /// they fired. A bump at a brush's pair is right (the phones did touch), though the brush is not a contact to
    /// detect. The near miss is counted in its band of closest approach.
    @Test func falseBumpsAndNearMisses() {
        let bumps = [
            Self.bump(0, 1, at: 10.2), Self.bump(0, 1, at: 10.5),
            Self.bump(6, 7, at: 30, trueDistance: 0.2), Self.bump(2, 3, at: 20.05),
            Self.bump(4, 5, at: 59.8), Self.bump(0, 2, at: 40, trueDistance: 4),
        ]
        let score = BumpScore(bumps: bumps, tracker: Self.tracker(), end: 60)
        #expect(score.contacts == 1 && score.detected == 1 && score.matchedBumps == 2 && score.brushesBumped == 1)
        // Unmatched: the second bump of 0-1 (at 5 cm), 6-7 (20 cm), 0-2 (4 m): one up to 8 cm, none at 8-12, one at
        // 12-20, one beyond. The bump on the touch of the last second is neither.
        #expect(score.unscored == 1)
        #expect(bumps.count - score.matchedBumps - score.unscored == 3)
        #expect(score.falseByTrueDistance == [1, 0, 1, 1])
        // The near miss's bodies came within 20 cm: the 12-25 cm band.
        #expect(score.nearMissesByDistance == [0, 0, 0, 1])
    }

    /// A run cut short is scored to where it stopped: a contact that began in its last second is not counted (no
    /// detector could have confirmed it in time).
    @Test func anInterruptedRunIsScoredToWhereItStopped() {
        let score = BumpScore(bumps: [Self.bump(0, 1, at: 10.2)], tracker: Self.tracker(), end: 10.5)
        #expect(score.contacts == 0)
        let later = BumpScore(bumps: [Self.bump(0, 1, at: 10.2)], tracker: Self.tracker(), end: 15)
        #expect(later.contacts == 1 && later.detected == 1)
    }
}
