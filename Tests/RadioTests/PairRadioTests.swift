import DeviceInterface
import Foundation
import GSL
import Geometry
import Radio
import Testing
import TestSupport

@Suite struct PairRadioTests {
    @Test func sameSeedSameMeasurementsDifferentSeedDifferent() throws {
        var c = RadioConfiguration()
        c.meanLineOfSightDuration = 3
        let geometry = Fixtures.pair(distance: 3, azimuthDegrees: 20)
        func run(_ seed: UInt64) throws -> [RangingMeasurement] {
            var radio = try PairRadio(initiatorID: 4, responderID: 9, runSeed: seed, configuration: c)
            return Fixtures.sample(&radio, geometry: geometry, count: 2000)
        }
        let first = try run(77)
        let again = try run(77)
        let other = try run(78)
        #expect(first == again)
        #expect(first.count > 1700)
        #expect(first != other)
        let sameDistances = zip(first, other).filter { $0.distance == $1.distance }.count
        #expect(sameDistances < 20)
    }

    @Test func deviceHardwareDependsOnItsIdAndTheSeedOnly() throws {
        let c = RadioConfiguration()
        let a = try DeviceRadio(id: 5, runSeed: 1, configuration: c)
        #expect(a == (try DeviceRadio(id: 5, runSeed: 1, configuration: c)))
        #expect(a != (try DeviceRadio(id: 6, runSeed: 1, configuration: c)))
        let offsets = try (0..<2000).map { try DeviceRadio(id: UInt64($0), runSeed: 3, configuration: c).clockOffset }
        #expect(offsets.allSatisfy { abs($0) <= 20e-6 })
        // Uniform within +-20 ppm: the standard deviation is 40 / sqrt(12) = 11.5 ppm.
        let sd = try #require(Statistics(offsets)).standardDeviation
        #expect(abs(sd - 11.547e-6) < 0.6e-6)
    }

    /// 20,000 line-of-sight exchanges at 3 m between devices with antenna biases of 4 cm and 2 cm (3 cm for the
    /// pair) and 9 cm of noise. The mean's standard error is 0.6 mm; the tick adds up to 4.7 mm of rounding.
    @Test func distanceErrorMatchesBiasAndSigma() throws {
        var c = Fixtures.noiseless
        c.lineOfSightSigma = 0.09
        var radio = try Fixtures.link(
            c, seed: 11,
            initiator: DeviceRadio(clockOffset: 12e-6, clockPhaseTicks: 1e9, antennaDelayBias: 0.04),
            responder: DeviceRadio(clockOffset: -7e-6, clockPhaseTicks: 5e11, antennaDelayBias: 0.02))
        let errors = Fixtures.sample(&radio, geometry: Fixtures.pair(distance: 3), count: 20_000)
            .compactMap(\.distance).map { $0 - 3 }
        let s = try #require(Statistics(errors))
        #expect(s.count == 20_000)
        #expect(abs(s.mean - 0.03) < 0.004)
        #expect(abs(s.standardDeviation - 0.09) < 0.09 * 0.03)
    }

    /// With the defaults (device biases drawn per device, noise per exchange, the level's bias), most line-of-sight
    /// errors stay under 20 cm, as measured on phones: facing at 2.5 m the error is the level's +4.7 cm with a
    /// spread of 10.2 cm (the pair's bias, 6/√2 cm, and the noise, 9.3 cm at 22 dB), so 92.5% of them.
    @Test func defaultsKeepMostErrorsUnder20Centimetres() throws {
        var c = RadioConfiguration()
        c.linkModel = .lineOfSight
        var errors: [Double] = []
        for pair in 0..<400 {
            var radio = try PairRadio(
                initiatorID: UInt64(pair), responderID: UInt64(pair + 1000), runSeed: 5, configuration: c)
            errors += Fixtures.sample(&radio, geometry: Fixtures.pair(distance: 2.5), count: 50)
                .compactMap(\.distance).map { $0 - 2.5 }
        }
        let share = Double(errors.filter { abs($0) < 0.2 }.count) / Double(errors.count)
        #expect(errors.count > 19_000)
        #expect(abs(share - 0.925) < 0.02, "\(share)")
    }

    /// The leading edge's bias with the received level, as Decawave's APS011 (table 2, 64-MHz PRF) gives it: the
    /// table at its points, interpolated between them, held beyond them.
    @Test func theLeadingEdgeBiasIsTheTable() {
        let bias = RadioConfiguration.leadingEdgeBias
        #expect(abs(bias(-61, 0) + 0.110) < 1e-12 && abs(bias(-77, 0)) < 1e-12 && abs(bias(-93, 0) - 0.081) < 1e-12)
        #expect(abs(bias(-76, 0) + 0.0135) < 1e-12, "halfway between -2.7 and 0 cm")
        #expect(bias(-40, 0) == bias(-61, 0) && bias(-130, 0) == bias(-93, 0))
        // Stronger than the table, the bias keeps falling by the near field's slope.
        #expect(abs(bias(-41, 0.008) - (-0.110 - 20 * 0.008)) < 1e-12 && bias(-62, 0.008) == bias(-62, 0))
    }

    /// In line of sight a pair reads short near (2.7 cm at 50 cm; past the table's strongest row, at 62 cm, by
    /// 0.8 cm more for each dB: 6.3 cm at 30 cm, 18.7 cm at 5 cm), nothing at the 1-m calibration, and long farther (+3.0 cm at 2 m, +6.6 at 3 m, +11.9 at 5 m, +14.6 at 9 m), twice that at a
    /// share of 2; obstructed, it takes the obstruction's own excess instead. Noiseless but for the timestamps'
    /// 15.65-ps ticks, which leave 2,000 exchanges' mean within 2.5 mm of the truth whatever the share: the share's
    /// effect is measured against the same link without it, to 3 mm.
    @Test(arguments: [(0.05, -0.1873), (0.3, -0.0628), (0.5, -0.0273), (1.0, 0.0), (2.0, 0.0303), (3.0, 0.0656), (5.0, 0.1192),
                      (9.0, 0.1456)])
    func theLevelBiasesLineOfSightByDistance(_ distance: Double, _ expected: Double) throws {
        func meanError(_ change: (inout RadioConfiguration) -> Void) throws -> Double {
            var c = Fixtures.noiseless
            c.levelBiasShare = 1
            change(&c)
            var radio = try Fixtures.link(c, seed: 3)
            let errors = Fixtures.sample(&radio, geometry: Fixtures.pair(distance: distance), count: 2000)
                .compactMap(\.timeOfFlightDistance).map { $0 - distance }
            #expect(errors.count == 2000)
            return try #require(Statistics(errors)).mean
        }
        let none = try meanError { $0.levelBiasShare = 0 }
        let plain = try meanError { _ in } - none
        let twice = try meanError { $0.levelBiasShare = 2 } - none
        let obstructed = try meanError {
            $0.linkModel = .nonLineOfSight
            $0.nonLineOfSightExcessMean = 0
            $0.undetectedPathExcessMean = 0
            $0.nonLineOfSightSigma = 0
        } - none
        #expect(abs(none) < 0.0025, "\(none)")
        #expect(abs(plain - expected) < 0.003, "\(plain)")
        #expect(abs(twice - 2 * expected) < 0.003, "\(twice)")
        #expect(abs(obstructed) < 0.003, "\(obstructed)")
    }

    @Test func angleErrorIsSixDegreesAtBoresightAndGrowsAsOneOverCosine() throws {
        var c = Fixtures.noiseless
        c.boresightAngleSigma = Angle.radians(fromDegrees: 6)
        func azimuthErrors(_ degrees: Double) throws -> [Double] {
            var radio = try Fixtures.link(c, seed: UInt64(degrees) + 1)
            return Fixtures.sample(&radio, geometry: Fixtures.pair(distance: 2, azimuthDegrees: degrees), count: 20_000)
                .compactMap(\.angleAtInitiator).map { Angle.degrees(fromRadians: $0.horizontalAngle) - degrees }
        }
        let atBoresight = try azimuthErrors(0)
        let atFortyFive = try azimuthErrors(45)
        #expect(atBoresight.count == 20_000 && atFortyFive.count == 20_000)
        let sd0 = try #require(Statistics(atBoresight)).standardDeviation
        #expect(abs(sd0 - 6) < 0.2)
        // At 45 degrees a few draws wrap past the phase edge; the robust spread ignores them, as it should.
        let sd45 = Fixtures.robustSigma(atFortyFive)
        #expect(abs(sd45 - 6 / cos(Double.pi / 4)) < 0.4)
        let growth = sd45 / Fixtures.robustSigma(atBoresight)
        #expect(abs(growth - 2.0.squareRoot()) < 0.08)
    }

    @Test(arguments: [61.0, 75.0, 100.0, 180.0])
    func noDirectionOutsideTheFieldOfView(_ azimuth: Double) throws {
        // The field of view, not the fade: behind the phone the link is 10 dB down and would lose a fifth at 2 m.
        var c = RadioConfiguration()
        c.fadeSNR = -200
        c.fadeWidth = 0
        var radio = try Fixtures.link(c, seed: 3)
        let m = Fixtures.sample(&radio, geometry: Fixtures.pair(distance: 2, azimuthDegrees: azimuth), count: 1000)
        #expect(m.count > 900)
        #expect(m.allSatisfy { $0.angleAtInitiator == nil })
        #expect(m.allSatisfy { $0.distance != nil })
    }

    @Test func directionInsideTheFieldOfView() throws {
        var c = RadioConfiguration()
        c.linkModel = .lineOfSight
        var radio = try Fixtures.link(c, seed: 3)
        let m = Fixtures.sample(&radio, geometry: Fixtures.pair(distance: 2, azimuthDegrees: 59), count: 1000)
        #expect(m.count > 950)
        #expect(m.allSatisfy { $0.angleAtInitiator != nil && $0.angleAtResponder != nil })
    }

    /// The configured maximum range is a hard limit; with the fade turned off, nothing is lost on either side of it.
    @Test func noDistanceBeyondTheMaximumRange() throws {
        var c = RadioConfiguration()
        c.linkModel = .lineOfSight
        c.lineOfSightDropout = 0
        c.fadeSNR = -200
        c.fadeWidth = 0
        c.maximumRange = 9
        var radio = try Fixtures.link(c, seed: 4)
        let far = Fixtures.sample(&radio, geometry: Fixtures.pair(distance: 9.2), count: 1000)
        #expect(far.count == 1000)
        #expect(far.allSatisfy { $0.distance == nil && $0.angleAtInitiator == nil })
        let near = Fixtures.sample(&radio, geometry: Fixtures.pair(distance: 8.8), count: 1000)
        #expect(near.allSatisfy { $0.distance != nil })
    }

    /// Forced non line of sight between unbiased devices 1 m apart: the mean error is the excess's, a mixture of
    /// the multipath's exponential (30 cm) and, a tenth of the time, an undetected direct path's (1 m): 37 cm; the
    /// spread is the mixture's (47.4 cm) and the Gaussian part's, that of the floor (15 cm) and the receiver's noise
    /// 10 dB down (1.5 cm x sqrt(10)): sqrt(0.15^2 + 0.0474^2 + 0.2251) = 50.0 cm; a fifth of the exchanges are lost
    /// (the fade adds 0.5% at 20 dB) and none has a direction. Without outliers, which TailTests measure.
    @Test func nonLineOfSightIsBiasedSpreadAndLossy() throws {
        var c = RadioConfiguration()
        c.antennaDelaySigma = 0
        c.outlierShare = 0
        c.linkModel = .nonLineOfSight
        var radio = try Fixtures.link(c, seed: 21)
        let m = Fixtures.sample(&radio, geometry: Fixtures.pair(distance: 1), count: 20_000)
        let s = try #require(Statistics(m.compactMap(\.distance).map { $0 - 1 }))
        #expect(abs(s.mean - 0.37) < 0.015, "\(s.mean)")
        #expect(abs(s.standardDeviation - 0.500) < 0.02, "\(s.standardDeviation)")
        let lost = 1 - Double(m.count) / 20_000
        #expect(abs(lost - 0.204) < 0.012)
        #expect(m.allSatisfy { !$0.lineOfSight && $0.angleAtInitiator == nil && $0.angleAtResponder == nil })
    }

    /// At 1 m the fade loses nothing measurable: what is lost is the line-of-sight floor, 2%.
    @Test func lineOfSightDropoutShare() throws {
        var c = RadioConfiguration()
        c.linkModel = .lineOfSight
        var radio = try Fixtures.link(c, seed: 22)
        let received = Fixtures.sample(&radio, geometry: Fixtures.pair(distance: 1), count: 20_000).count
        #expect(abs(1 - Double(received) / 20_000 - 0.02) < 0.004)
    }

    @Test func badConfigurationIsRefusedWithTheFieldName() throws {
        var c = RadioConfiguration()
        c.lineOfSightDropout = 1.5
        #expect(throws: RadioConfigurationError.self) { try Fixtures.link(c, seed: 1) }
        do {
            _ = try PairRadio(initiatorID: 1, responderID: 2, runSeed: 1, configuration: c)
        } catch {
            #expect(error.description == "radio configuration: lineOfSightDropout must be between 0 and 1, got 1.5")
        }
        var level = RadioConfiguration()
        level.levelBiasShare = 3
        let refused = #expect(throws: RadioConfigurationError.self) { try level.validate() }
        #expect(refused?.description == "radio configuration: levelBiasShare must be between 0 and 2, got 3.0")
    }
}
