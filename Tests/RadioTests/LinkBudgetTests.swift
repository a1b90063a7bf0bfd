import DeviceInterface
import Foundation
import GSL
import Geometry
import Radio
import Testing
import TestSupport

/// The link budget: noise and losses that grow with distance and with the phones turned away, and a fade toward
/// the maximum range instead of a cliff.
@Suite struct LinkBudgetTests {
    /// A clear line of sight, no antenna bias: the model's own noise only.
    static var clear: RadioConfiguration {
        var c = RadioConfiguration()
        c.linkModel = .lineOfSight
        c.antennaDelaySigma = 0
        // The Gaussian core: the tail has its own tests (TailTests).
        c.outlierShare = 0
        return c
    }

    static func received(_ c: RadioConfiguration, _ geometry: PairGeometry, count: Int, seed: UInt64) throws -> [RangingMeasurement] {
        var radio = try Fixtures.link(c, seed: seed)
        return Fixtures.sample(&radio, geometry: geometry, count: count)
    }

    /// The distance error's spread is the floor and the receiver's noise added: sqrt(8.5² + (1.5 d)²) cm at d metres
    /// facing each other, 8.6 cm at 1 m, 10.3 cm at 4 m, 14.7 cm at 8 m; measured within 3% over 20,000 exchanges.
    /// Its mean is the received level's bias: nothing at the 1-m calibration, +9.8 cm at 4 m, +14.2 cm at 8 m.
    @Test func distanceErrorGrowsWithDistance() throws {
        var sigmas: [Double] = []
        for (d, bias) in [(1.0, 0.0), (4, 0.0984), (8, 0.1420)] {
            let errors = try Self.received(Self.clear, Fixtures.pair(distance: d), count: 20_000, seed: 7)
                .compactMap(\.distance).map { $0 - d }
            let s = try #require(Statistics(errors))
            let expected = (0.085 * 0.085 + 0.015 * 0.015 * d * d).squareRoot()
            #expect(abs(s.standardDeviation - expected) < 0.03 * expected, "at \(d) m: \(s.standardDeviation) vs \(expected)")
            #expect(abs(s.mean - bias) < 0.004, "at \(d) m: \(s.mean)")
            sigmas.append(s.standardDeviation)
        }
        #expect(sigmas[2] > 1.6 * sigmas[0])
    }

    /// The share received follows (1 - 2%) x (1 - the fade), the fade logistic in the SNR (30 dB at 1 m, 20 dB a
    /// decade, half lost at 11 dB): 97.9% at 3 m, 80% at 7 m, 47% at 9 m, 15% at 12 m; no step of a metre loses more
    /// than a quarter of the link, and past the maximum range (15 m) no distance is measured.
    @Test func theLinkFadesTowardTheMaximumRange() throws {
        let c = Self.clear
        var shares: [Double] = []
        for d in stride(from: 3.0, through: 15, by: 1) {
            let n = 4000
            let got = try Self.received(c, Fixtures.pair(distance: d), count: n, seed: 11)
            let share = Double(got.count) / Double(n)
            let snr = c.signalToNoise(distance: d, gainA: 0, gainB: 0, extraLoss: 0)
            let expected = 0.98 * (1 - c.fadeLoss(snr: snr))
            #expect(abs(share - expected) < 0.03, "at \(d) m: \(share) vs \(expected)")
            #expect(got.allSatisfy { $0.distance != nil })
            shares.append(share)
        }
        #expect(shares[0] > 0.95)
        #expect(shares[6] > 0.35 && shares[6] < 0.6)
        #expect(zip(shares, shares.dropFirst()).allSatisfy { $0 >= $1 - 0.03 && $0 - $1 < 0.25 })
        let beyond = try Self.received(c, Fixtures.pair(distance: 15.5), count: 4000, seed: 12)
        #expect(beyond.allSatisfy { $0.distance == nil && $0.angleAtInitiator == nil })
    }

    /// The angle of arrival's noise grows too: 6.0 degrees at boresight at 1 m (5.5 and 2.4 added), 15 degrees at
    /// 6 m.
    @Test func angleNoiseGrowsWithDistance() throws {
        func sigma(_ d: Double) throws -> Double {
            let truth = Fixtures.pair(distance: d)
            let errors = try Self.received(Self.clear, truth, count: 20_000, seed: 5).compactMap(\.angleAtInitiator)
                .map { Angle.degrees(fromRadians: $0.horizontalAngle - asin(truth.bearingFromA.direction.x)) }
            return Fixtures.robustSigma(errors)
        }
        let near = try sigma(1)
        let far = try sigma(6)
        #expect(abs(near - 6.0) < 0.4, "\(near)")
        #expect(far > 2.2 * near, "\(far) vs \(near)")
    }

    /// At 5 m a phone turned away from the other (its back to it, 10 dB down) loses almost every exchange; facing
    /// it, almost none: orientation matters as much as distance.
    @Test func aPhoneTurnedAwayLosesTheLink() throws {
        let a = Fixtures.origin
        let facing = Pose(position: Vector3(5, 0, 0), orientation: .facing(.zero, from: Vector3(5, 0, 0)))
        let away = Pose(position: Vector3(5, 0, 0), orientation: Orientation(heading: 0))
        let n = 4000
        let toward = try Self.received(Self.clear, PairGeometry(a, facing), count: n, seed: 3).count
        let turned = try Self.received(Self.clear, PairGeometry(a, away), count: n, seed: 3).count
        #expect(Double(toward) / Double(n) > 0.9)
        #expect(Double(turned) / Double(n) < 0.05)
    }

    /// Phones measured on a gimbal fail at about a third of orientations at 5 m (Heinrich et al. 2023). Turning B's
    /// phone in steps of 10 degrees while A faces it: B's back faces A past 120 degrees off its boresight, where the
    /// antenna is 5 dB down and the link at 5 m falls under the fade's midpoint; 12 of the 36 headings lose more than
    /// half the exchanges (one more or less at the edge).
    @Test func aThirdOfTheOrientationsFailAtFiveMetres() throws {
        var failing = 0
        for step in 0..<36 {
            let b = Pose(position: Vector3(5, 0, 0),
                         orientation: Orientation(heading: Double.pi + Angle.radians(fromDegrees: Double(step) * 10 + 5)))
            let got = try Self.received(Self.clear, PairGeometry(Fixtures.origin, b), count: 1000, seed: UInt64(step)).count
            if got < 500 { failing += 1 }
        }
        #expect(abs(failing - 12) <= 1, "\(failing) of 36")
    }

    /// A body in the way costs its loss (10 dB), which at 4 m turns a solid link (97% received) into a failing one
    /// (10%: 88% faded, and a fifth of the rest lost to the obstruction), and makes the distance read long (the
    /// excess path, 30 cm on average).
    @Test func aBodyInTheWayWeakensAndLengthensTheLink() throws {
        var c = RadioConfiguration()
        c.antennaDelaySigma = 0
        let truth = Fixtures.pair(distance: 4)
        var radio = try Fixtures.link(c, seed: 9)
        let n = 8000
        let clear = (0..<n).compactMap { radio.exchange(geometry: truth, at: Double($0) / 10, path: .clear) }
        let blocked = (0..<n).compactMap { radio.exchange(geometry: truth, at: Double($0) / 10, path: PathObstruction(bodies: 1)) }
        #expect(clear.allSatisfy(\.lineOfSight) && blocked.allSatisfy { !$0.lineOfSight })
        #expect(Double(clear.count) / Double(n) > 0.93)
        #expect(Double(blocked.count) / Double(n) < 0.13)
        let excess = try #require(Statistics(blocked.compactMap(\.distance).map { $0 - 4 })).mean
        #expect(excess > 0.2 && excess < 0.4)
        #expect(blocked.allSatisfy { $0.angleAtInitiator == nil })
    }
}
