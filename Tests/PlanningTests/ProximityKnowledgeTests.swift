import DeviceInterface
import Foundation
import Geometry
import Planning
import Testing
import TestSupport

/// What `proximity` does with what the devices know: a joint knock, exchanges that keep failing, the Bluetooth
/// readings' floor.
@Suite struct ProximityKnowledgeTests {
    /// Six couples 2 m apart, on one channel cut to one exchange a round: five stand 0.3 m apart (each wants an
    /// update every 0.4 s: more than the air gives), devices 10 and 11 0.6 m apart (every 1.6 s).
    private static func crowd() throws -> Crowd {
        let positions = (0..<12).map { (d: Int) -> Vector3 in
            let couple = Double(d / 2) * 2
            let gap: Double = d % 2 == 0 ? 0 : (d / 2 == 5 ? 0.6 : 0.3)
            return Vector3(couple + gap, 0, 1.2)
        }
        return try Crowd(positions: positions)
    }

    /// One exchange a round: 5-slot exchanges in 20-ms slots, two a 0.2-s block.
    private static func medium() -> Medium {
        var medium = Medium()
        medium.slotDuration = 0.02
        return medium
    }

    /// Rounds 0 to 39 (4 s), no one walking, with the given taps (each device's own, and what it heard of its
    /// peers'); of rounds 20 to 29, those in which pair (10, 11) ranged.
    private static func roundsRanged(taps: (Int) -> ([Float], [[PeerTap]])) throws -> Int {
        var crowd = try crowd()
        var planner = Proximity(medium: medium(), scheme: .doubleSided, peers: 12, hearingMargin: Fixtures.hearingMargin)
        var plan = RangingPlan()
        let pair = Int32(try #require(crowd.engine.pairIndex(10, 11)))
        var ranged = 0
        for k in 0..<40 {
            let (own, heard) = taps(k)
            crowd.round(k, &planner, &plan, speeds: [Float](repeating: 0, count: 12), taps: own, peerTaps: heard)
            #expect(plan.exchanges.count <= 1)
            if (20..<30).contains(k), plan.exchanges.contains(where: { $0.pair == pair }) { ranged += 1 }
        }
        return ranged
    }

    /// Both phones knocked at 2.0 s (within 30 ms), and each heard of the other's knock from round `heardAt` on:
    /// from then the pair ranges every round of the second after the knock. One phone alone knocked, both at
    /// instants 50 ms apart, or the messages lost, and the pair waits behind the closer couples: a device knows of
    /// its peer's knock only when a message brought it.
    @Test func aJointKnockRangesThePairEveryRoundOnceHeard() throws {
        func taps(_ a: Float?, _ b: Float?, heardAt: Int? = 20) -> (Int) -> ([Float], [[PeerTap]]) {
            { k in
                var t = [Float](repeating: -.infinity, count: 12)
                var heard = [[PeerTap]](repeating: [], count: 12)
                if k >= 20 {
                    if let a { t[10] = a }
                    if let b { t[11] = b }
                }
                if let heardAt, k >= heardAt {
                    if let b { heard[10] = [PeerTap(peer: 11, time: b)] }
                    if let a { heard[11] = [PeerTap(peer: 10, time: a)] }
                }
                return (t, heard)
            }
        }
        #expect(try Self.roundsRanged(taps: taps(2.0, 2.01)) == 10)
        // The messages took two rounds: the pair ranges from the round they arrived.
        #expect(try Self.roundsRanged(taps: taps(2.0, 2.01, heardAt: 22)) == 8)
        #expect(try Self.roundsRanged(taps: taps(2.0, 2.01, heardAt: nil)) <= 2)
        #expect(try Self.roundsRanged(taps: taps(2.0, nil)) <= 2)
        #expect(try Self.roundsRanged(taps: taps(2.0, 2.05)) <= 2)
    }

    /// Two pairs sharing device 0 and one exchange a round, both estimated at 0.3 m: pair (0, 1)'s exchanges arrive,
    /// pair (0, 2)'s never do. Each failure doubles (0, 2)'s interval, so it is tried less and less often and (0, 1)
    /// gets the air.
    @Test func failuresBackOff() throws {
        let running = RunningSessions(peers: 3)
        for (a, b) in [(0, 1), (1, 0), (0, 2), (2, 0)] { running.began(a, b) }
        let pairs = PairTable.everyPair(of: 3)
        var estimates = [PairEstimate](repeating: PairEstimate(), count: 3)
        for p in 0..<2 {
            estimates[p].distance = 0.3
            estimates[p].time = 0
        }
        var planner = Proximity(medium: Self.medium(), scheme: .doubleSided, peers: 3, hearingMargin: Fixtures.hearingMargin)
        var plan = RangingPlan()
        var failing: [Double] = []
        var working = 0
        for k in 1...200 {
            let time = Double(k) * 0.1
            planner.plan(PlanningContext(time: time, interval: 0.1, sessions: running.snapshot(), pairs: pairs,
                                         estimates: estimates, speeds: [0, 0, 0]), into: &plan)
            #expect(plan.exchanges.count <= 1)
            for x in plan.exchanges {
                if x.pair == 0 {
                    working += 1
                    estimates[0].time = Float(time + Double(x.offset))
                } else {
                    failing.append(time)
                }
            }
        }
        let gaps = zip(failing.dropFirst(), failing).map { $0 - $1 }
        #expect(failing.count >= 4 && failing.count <= 12, "\(failing)")
        #expect(working >= 185, "\(working)")
        // The failing pair's gaps grow.
        #expect(gaps.count >= 3 && gaps.last! >= 4 * gaps.first!, "\(gaps)")
    }

    /// An average of readings weighted 0.3 keeps 0.3 / 1.7 of one reading's variance: 2.52 dB of 6, so a pair is
    /// taken to be no nearer than 10^(−5.04 / 20) = 0.56 of its distance; a steady reading gives its distance back;
    /// a reading not heard forgets the average.
    @Test func bluetoothDistancesAndTheirFloor() {
        var heard = BluetoothDistances(pairs: 2)
        #expect(abs(Double(heard.floor) - pow(10, -2 * 6 * (0.3 / 1.7).squareRoot() / 20)) < 1e-6)
        #expect(abs(heard.floor - 0.5600) < 0.001)
        // −59 dBm at 1 m, exponent 2: −71 dBm is 10^(12/20) = 3.98 m.
        for _ in 0..<3 { heard.take([-71, -59]) }
        #expect(abs(heard.distances[0] - 3.981) < 0.005 && abs(heard.distances[1] - 1) < 0.001)
        // One reading 10 dB stronger moves the average 3 dB: 3.98 m × 10^(−3/20) = 2.82 m.
        heard.take([-61, .nan])
        #expect(abs(heard.distances[0] - 2.818) < 0.005)
        #expect(heard.distances[1].isNaN)
    }
}
