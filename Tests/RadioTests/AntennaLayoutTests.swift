import Foundation
import GSL
import Geometry
import Radio
import Testing
import TestSupport

@Suite struct AntennaLayoutTests {
    @Test func degenerateLayoutIsRefused() {
        #expect(throws: GSLError.self) { try AntennaLayout(baselines: [SIMD2(0, 0), SIMD2(0, 0)]) }
    }

    @Test func horizontalPairGivesAngleButNoDirection() throws {
        var c = Fixtures.noiseless
        c.antennaLayout = .horizontalPair
        var radio = try Fixtures.link(c, seed: 1)
        let received = radio.exchange(geometry: Fixtures.pair(distance: 2, azimuthDegrees: 30), at: 0)
        let m = try #require(received)
        let angle = try #require(m.angleAtInitiator)
        #expect(angle.verticalCosine == nil && angle.bearing == nil)
        #expect(abs(Angle.degrees(fromRadians: angle.horizontalAngle) - 30) < 1e-9)
    }

    /// Three half-wavelength baselines over-determine the two cosines: the least-squares solution spreads the
    /// phase noise, and the boresight error drops from 6 degrees (L) to 6 / sqrt(1.5) = 4.9 degrees.
    @Test func triangleIsMoreAccurateThanL() throws {
        var c = Fixtures.noiseless
        c.boresightAngleSigma = Angle.radians(fromDegrees: 6)
        func sigma(_ layout: AntennaLayout) throws -> Double {
            c.antennaLayout = layout
            var radio = try Fixtures.link(c, seed: 8)
            let errors = Fixtures.sample(&radio, geometry: Fixtures.pair(distance: 2), count: 20_000)
                .compactMap(\.angleAtInitiator).map { Angle.degrees(fromRadians: $0.horizontalAngle) }
            return try #require(Statistics(errors)).standardDeviation
        }
        let l = try sigma(.lShaped)
        let t = try sigma(.triangle)
        #expect(abs(l - 6) < 0.2)
        #expect(abs(t - 6 / 1.5.squareRoot()) < 0.2)
    }

    @Test(arguments: [(20.0, 10.0), (-35.0, -25.0), (0.0, 40.0)])
    func noiselessDirectionIsExact(_ angles: (Double, Double)) throws {
        for layout in [AntennaLayout.lShaped, .triangle] {
            var c = Fixtures.noiseless
            c.antennaLayout = layout
            var radio = try Fixtures.link(c, seed: 1)
            let g = Fixtures.pair(distance: 2, azimuthDegrees: angles.0, elevationDegrees: angles.1)
            let received = radio.exchange(geometry: g, at: 0)
            let m = try #require(received)
            let bearing = try #require(m.angleAtInitiator?.bearing)
            #expect(bearing.angle(to: g.bearingFromA) < 1e-9)
            let back = try #require(m.angleAtResponder?.bearing)
            #expect(back.angle(to: g.bearingFromB) < 1e-9)
        }
    }
}
