import DeviceInterface
import Foundation
import GSL
import Geometry
import Radio
import Testing
import TestSupport

/// The radio under 30 cm (docs/radio-model.md, "The near field"): the level's bias past APS011's strongest row, the
/// level held at the antennas' near field, and what a negative time of flight gives. Two phones facing each other in
/// line of sight, with no antenna bias, so that a reading's mean error is the level's bias alone.
@Suite struct NearFieldTests {
    static let count = 20_000

    static func configuration(_ negative: RadioConfiguration.NegativeFlight) -> RadioConfiguration {
        var c = RadioConfiguration()
        c.antennaDelaySigma = 0
        c.linkModel = .lineOfSight
        c.negativeFlight = negative
        // The tail has its own tests (TailTests).
        c.outlierShare = 0
        return c
    }

    /// The model's own figures at `distance`: the mean error and the spread of one reading.
    static func model(_ c: RadioConfiguration, _ distance: Double) -> (bias: Double, sigma: Double) {
        let snr = c.signalToNoise(distance: distance, gainA: 0, gainB: 0, extraLoss: 0)
        let weak = c.weakSignalSigma * c.weakSignalSigma * c.weakness(snr: snr)
        return (c.levelBias(pathLoss: c.pathLoss(distance: distance), less: c.calibrationBias),
                (c.lineOfSightSigma * c.lineOfSightSigma + weak).squareRoot())
    }

    /// The share of readings the model takes below zero at `distance`: the normal's tail past the distance.
    static func negativeShare(_ c: RadioConfiguration, _ distance: Double) -> Double {
        let (bias, sigma) = model(c, distance)
        return 0.5 * erfc((distance + bias) / (sigma * 2.squareRoot()))
    }

    static func sample(_ c: RadioConfiguration, _ distance: Double, seed: UInt64) throws -> [RangingMeasurement] {
        var radio = try Fixtures.link(c, seed: seed)
        return Fixtures.sample(&radio, geometry: Fixtures.pair(distance: distance), count: count)
    }

    /// Biased: from 10 to 30 cm the readings' mean error is the level's bias, past the −0.95 cm APS011's table held
    /// before (−6.3 cm at 30 cm, −13.9 cm at 10 cm), to within 2.5 mm (the mean's standard error is 0.6 mm, a
    /// tick's rounding at most 2.3 mm), and their spread the model's 8.5 cm to 3%.
    @Test(arguments: [0.10, 0.20, 0.30])
    func readingsAreBiasedShortByTheLevel(_ distance: Double) throws {
        let c = Self.configuration(.zero)
        let (bias, sigma) = Self.model(c, distance)
        #expect(bias < -0.06, "the level's bias at \(distance) m is \(bias) m, no stronger than the table's end")
        let errors = try Self.sample(c, distance, seed: 31).compactMap(\.timeOfFlightDistance).map { $0 - distance }
        let s = try #require(Statistics(errors))
        #expect(abs(s.mean - bias) < 0.0025, "mean error \(s.mean) m against the model's \(bias) m")
        #expect(abs(s.standardDeviation - sigma) < 0.03 * sigma, "spread \(s.standardDeviation) m")
    }

    /// Clamped: from 2 to 10 cm most readings' timestamps give a negative distance, and the phone reports each as
    /// 0 m: the share read as 0 is the model's normal tail to within 0.015 (68% at 10 cm, 99.7% at 2 cm).
    @Test(arguments: [0.02, 0.05, 0.10])
    func negativeReadingsAreReportedAsZero(_ distance: Double) throws {
        let c = Self.configuration(.zero)
        let readings = try Self.sample(c, distance, seed: 32)
        #expect(abs(Double(readings.count) / Double(Self.count) - (1 - c.lineOfSightDropout)) < 0.005)
        let zeros = readings.filter { $0.distance == 0 }
        // A time of flight of exactly 0 ticks reads 0 m as well.
        #expect(zeros.allSatisfy { ($0.timeOfFlightDistance ?? 1) <= 0 })
        #expect(readings.allSatisfy { ($0.distance ?? -1) >= 0 })
        let share = Double(zeros.count) / Double(readings.count)
        let expected = Self.negativeShare(c, distance)
        #expect(expected > 0.6)
        #expect(abs(share - expected) < 0.015, "\(share) read 0 m against the model's \(expected)")
    }

    /// Failed: a chip that treats a negative time of flight as an error loses those exchanges instead, so the
    /// received share falls to the model's (1 − 2%) × (1 − tail) to within 0.015 (0.3% at 2 cm, 32% at 10 cm),
    /// and no reading is negative.
    @Test(arguments: [0.02, 0.05, 0.10])
    func negativeReadingsFailTheExchange(_ distance: Double) throws {
        let c = Self.configuration(.fail)
        let readings = try Self.sample(c, distance, seed: 33)
        let received = Double(readings.count) / Double(Self.count)
        let expected = (1 - c.lineOfSightDropout) * (1 - Self.negativeShare(c, distance))
        #expect(abs(received - expected) < 0.015, "\(received) received against the model's \(expected)")
        #expect(readings.allSatisfy { ($0.timeOfFlightDistance ?? -1) >= 0 })
    }

    /// Under the antennas' near field (2 cm) the level stops growing: at 1 cm the bias is the 2-cm one, so the
    /// readings are 1 cm shorter; and the bias grows as the phones close, from 30 cm to 2 cm.
    @Test func theLevelStopsGrowingInsideTheAntennasNearField() throws {
        let c = Self.configuration(.zero)
        #expect(Self.model(c, 0.01).bias == Self.model(c, 0.02).bias)
        let biases = [0.30, 0.20, 0.10, 0.05, 0.02].map { Self.model(c, $0).bias }
        #expect(zip(biases, biases.dropFirst()).allSatisfy { $1 < $0 - 0.02 }, "\(biases)")
        let means = try [0.01, 0.02].map { d in
            try #require(Statistics(try Self.sample(c, d, seed: 34).compactMap(\.timeOfFlightDistance))).mean
        }
        #expect(abs(means[1] - means[0] - 0.01) < 0.0025, "\(means)")
    }
}
