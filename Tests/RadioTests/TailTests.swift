import DeviceInterface
import Foundation
import GSL
import Geometry
import Radio
import Testing
import TestSupport

/// The errors' tail (docs/radio-model.md, "The tail"): gross outliers in any state, and the undetected direct path
/// that makes the obstructed excess a mixture of two exponentials.
@Suite struct TailTests {
    static let count = 40_000

    static func errors(_ c: RadioConfiguration, distance: Double, seed: UInt64) throws -> [Double] {
        var radio = try Fixtures.link(c, seed: seed)
        return Fixtures.sample(&radio, geometry: Fixtures.pair(distance: distance), count: count)
            .compactMap(\.timeOfFlightDistance).map { $0 - distance }
    }

    /// A noiseless link at 5 m with 1% outliers: only the outliers stray more than a centimetre (the ticks'
    /// rounding stays under 5 mm), they are 1% of the readings to within four standard errors (0.2%), and they
    /// spread evenly from 0 to 8 m (mean 4 m to 0.35 m, three standard errors). Without outliers none strays.
    @Test func grossOutliersReadAnythingFromZeroToTheSpan() throws {
        var c = Fixtures.noiseless
        c.outlierShare = 0.01
        let errors = try Self.errors(c, distance: 5, seed: 41)
        #expect(errors.count == Self.count)
        let strays = errors.filter { abs($0) > 0.01 }
        let share = Double(strays.count) / Double(errors.count)
        #expect(abs(share - 0.01) < 4 * (0.01 * 0.99 / Double(Self.count)).squareRoot(), "\(share)")
        #expect(strays.allSatisfy { $0 >= -5 && $0 < 3 })
        let mean = try #require(Statistics(strays.map { $0 + 5 })).mean
        #expect(abs(mean - 4) < 0.35, "\(mean)")
        c.outlierShare = 0
        #expect(try Self.errors(c, distance: 5, seed: 41).allSatisfy { abs($0) < 0.01 })
    }

    /// Obstructed, noiseless but for the excess: the excess is exponential of mean 30 cm, and with a tenth of the
    /// direct paths undetected (excess of mean 1 m) its mean is 0.9 × 0.30 + 0.1 × 1.0 = 0.37 m and its share
    /// beyond 2 m 0.1 e^−2 + 0.9 e^−2/0.3 = 1.47%, against 0.13% without: the tail the mixture brings.
    @Test func anUndetectedDirectPathMakesTheObstructedTailHeavy() throws {
        var c = Fixtures.noiseless
        c.linkModel = .nonLineOfSight
        c.nonLineOfSightSigma = 0
        c.nonLineOfSightExcessMean = 0.3
        c.undetectedPathExcessMean = 1
        c.outlierShare = 0
        func measure(_ share: Double) throws -> (mean: Double, beyond: Double) {
            c.undetectedPathShare = share
            let errors = try Self.errors(c, distance: 3, seed: 42)
            #expect(errors.count == Self.count)
            return (try #require(Statistics(errors)).mean,
                    Double(errors.filter { $0 > 2 }.count) / Double(errors.count))
        }
        let mixed = try measure(0.1), plain = try measure(0)
        #expect(abs(mixed.mean - 0.37) < 0.012, "\(mixed)")
        #expect(abs(mixed.beyond - 0.0147) < 0.0025, "\(mixed)")
        #expect(abs(plain.mean - 0.30) < 0.01, "\(plain)")
        #expect(plain.beyond < 0.003, "\(plain)")
    }
}
