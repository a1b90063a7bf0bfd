import Calibration
import Foundation
import Geometry
import Radio
import Testing

@Suite struct RadioProbeTests {
    private func report(_ change: (inout RadioProbe.Settings) -> Void = { _ in }) throws -> RadioProbeReport {
        var s = RadioProbe.Settings()
        s.samples = 20_000
        s.radio.linkModel = .lineOfSight
        change(&s)
        return try RadioProbe(settings: s).run()
    }

    /// The Gaussian core, without the tail's gross outliers (TailTests measure them).
    @Test func lineOfSightFiguresMatchTheModel() throws {
        let r = try report { $0.radio.antennaDelaySigma = 0; $0.radio.outlierShare = 0 }
        let raw = try #require(r.rawDistance)
        let filtered = try #require(r.filteredDistance)
        #expect(abs(raw.standardDeviation - 0.09) < 0.004)
        // At the probe's 2 m the received level, 6 dB under the 1-m calibration's, reads 3.0 cm long.
        #expect(abs(raw.bias - 0.0303) < 0.003)
        // Static devices at 10 Hz: with its default 1 m/s^2 manoeuvre allowance the filter keeps about 55% of the
        // noise (it would keep less with a stiffer model, at the price of lag on braking approaches).
        #expect(filtered.standardDeviation < 0.6 * raw.standardDeviation)
        // At the probe's 2 m the receiver's noise adds 2.4 x 2 degrees to the 5.5 of a strong signal: 7.3.
        let azimuth = try #require(r.azimuthDegrees)
        #expect(abs(azimuth.standardDeviation - 7.3) < 0.25)
        #expect(abs(r.dropoutShare - 0.02) < 0.004)
        #expect(r.outOfRangeShare == 0 && r.nonLineOfSightShare == 0 && r.noDirectionShare == 0)
        #expect(raw.count == Int((1 - r.dropoutShare) * 20_000 + 0.5))
    }

    @Test func sameSeedSameReport() throws {
        let a = try report { $0.radio.linkModel = .markov }
        let b = try report { $0.radio.linkModel = .markov }
        let c = try report { $0.radio.linkModel = .markov; $0.seed = 2 }
        #expect(a == b)
        #expect(a != c)
    }

    @Test func farAwayHasNoDistance() throws {
        let r = try report { $0.distance = 16; $0.samples = 1000 }
        #expect(r.outOfRangeShare == 1)
        #expect(r.rawDistance == nil && r.filteredDistance == nil)
        #expect(r.noDirectionShare == 1)
    }

    @Test func obstructedLinkIsBiased() throws {
        // At 1 m, where the fade (the body's 10 dB taken) loses 0.5%: the dropouts are the obstruction's 20%. The
        // excess is the multipath's 30 cm and, a tenth of the time, an undetected direct path's 1 m: 37 cm.
        let r = try report {
            $0.radio.linkModel = .nonLineOfSight; $0.radio.antennaDelaySigma = 0; $0.distance = 1; $0.radio.outlierShare = 0
        }
        #expect(abs(try #require(r.rawDistance).bias - 0.37) < 0.02)
        #expect(r.nonLineOfSightShare == 1 && r.noDirectionShare == 1)
        #expect(abs(r.dropoutShare - 0.2) < 0.012)
        #expect(r.azimuthDegrees == nil)
    }

    /// Single-sided ranging drifts by (eB - eA) x Treply / 2: at seed 1 the clocks are far enough apart that the
    /// timestamps read about 4.6 m short at 2 m. The raw row shows those metres with the line-of-sight noise on them, and how
    /// often the chip's clamp read them as 0 m; the filtered row is what an app sees (0 m).
    @Test func singleSidedDriftShowsItsMetres() throws {
        // Without gross outliers, which read from 0 up whatever the clocks.
        let ss = try report {
            $0.radio.scheme = .singleSided; $0.radio.antennaDelaySigma = 0; $0.seed = 1; $0.radio.outlierShare = 0
        }
        let raw = try #require(ss.rawDistance)
        #expect(raw.bias < -2.5 && raw.bias > -10)
        #expect(abs(raw.standardDeviation - 0.09) < 0.005)
        #expect(ss.clampedShare == 1)
        #expect(abs(try #require(ss.filteredDistance).bias + 2) < 1e-6)
        let ds = try report { $0.radio.antennaDelaySigma = 0; $0.seed = 1; $0.radio.outlierShare = 0 }
        #expect(ds.clampedShare == 0)
        // Double-sided keeps only the level's 3.0 cm at 2 m.
        #expect(abs(try #require(ds.rawDistance).bias - 0.0303) < 0.01)
    }

    @Test func badConfigurationIsAnError() {
        #expect(throws: PairRadioError.self) {
            try report { $0.radio.maximumRange = -1 }
        }
    }
}
