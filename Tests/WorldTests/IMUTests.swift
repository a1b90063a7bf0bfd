import Bump
import DeviceInterface
import Foundation
import Geometry
import Radio
import Testing
import World

@Suite struct IMUTests {
    private let clock = DeviceClock(uptimeAtStart: 5_000, rate: 12e-6)
    private let flat = Orientation(heading: 0, pitch: -.pi / 2)

    private func still(_ orientation: Orientation) -> (Double) -> (acceleration: Vector3, orientation: Orientation) {
        { _ in (.zero, orientation) }
    }

    /// A phone lying screen-up reads gravity's reaction on z, plus its part's offset, with the chip's noise; the
    /// samples come at the chip's rate, stamped on the phone's clock.
    @Test func aPhoneAtRestReadsGravityItsOffsetAndItsNoise() throws {
        var imu = try Accelerometer(device: 3, runSeed: 7, clock: clock)
        var samples: [AccelerometerSample] = []
        imu.sample(until: 20, motion: still(flat), pulses: [], into: &samples)
        #expect(abs(samples.count - 2000) <= 1)
        let n = Double(samples.count)
        let mean = samples.reduce(Vector3.zero) { $0 + Vector3(Double($1.x), Double($1.y), Double($1.z)) } / n
        let expected = Vector3(0, 0, IMUSettings.gravity) + imu.bias
        let sigma = imu.settings.sampleNoise
        #expect((mean - expected).length < 5 * sigma / n.squareRoot() + imu.settings.resolution, "\(mean) \(expected)")
        let spread = (samples.reduce(0.0) { $0 + pow(Double($1.z) - mean.z, 2) } / (n - 1)).squareRoot()
        #expect(abs(spread / sigma - 1) < 0.15, "\(spread) against \(sigma)")
        #expect(sigma > 0.012 && sigma < 0.013)
        // The offsets are the part's: within 4 sigma of zero on each axis, and another phone's differ.
        #expect([imu.bias.x, imu.bias.y, imu.bias.z].allSatisfy { abs($0) < 4 * imu.settings.biasSigma })
        let other = try Accelerometer(device: 4, runSeed: 7, clock: clock)
        #expect(other.bias != imu.bias)
        #expect((try Accelerometer(device: 3, runSeed: 7, clock: clock)).bias == imu.bias)
        // The phone's clock stamps the samples: a hundredth of a second apart on it, drift included.
        let gaps = zip(samples.dropFirst(), samples).map { $0.timestamp - $1.timestamp }
        #expect(gaps.allSatisfy { abs($0 - 0.01 * (1 + 12e-6)) < 1e-9 })
        #expect(samples[0].timestamp > 5_000 && samples[0].timestamp <= clock.reading(at: 0.01))
    }

    /// Held upright in portrait, gravity's reaction is along the phone's top edge.
    @Test func anUprightPhoneReadsGravityOnItsTopAxis() throws {
        var s = IMUSettings()
        s.noiseDensity = 0
        s.biasSigma = 0
        var imu = try Accelerometer(device: 0, runSeed: 1, clock: clock, settings: s)
        var samples: [AccelerometerSample] = []
        imu.sample(until: 0.5, motion: still(Orientation(heading: 1)), pulses: [], into: &samples)
        #expect(samples.allSatisfy { abs(Double($0.y) - IMUSettings.gravity) < s.resolution && abs($0.x) < 1e-3 && abs($0.z) < 1e-3 })
    }

    /// The filter's exact response to a half-sine matches a fine numerical integration of the filter, keeps the
    /// pulse's area (the phone's change of speed), and lowers its peak; a slower chip sees less of it.
    @Test func theFilterSmoothsAPulseAndKeepsItsArea() throws {
        // A push along the phone's right edge, which its x axis reads.
        let pulse = ContactPulse(start: 1, duration: 0.005, peak: 70, direction: flat.right)
        let tau = IMUSettings().filterTimeConstant
        var y = 0.0, worst = 0.0, area = 0.0, top = 0.0
        let h = 1e-7
        var t = 1.0
        while t < 1.2 {
            y += h * (pulse.acceleration(at: t + h / 2).dot(flat.right) - y) / tau
            t += h
            worst = max(worst, abs(y - Accelerometer.filtered(pulse, at: t, timeConstant: tau).dot(flat.right)))
            area += h * Accelerometer.filtered(pulse, at: t, timeConstant: tau).dot(flat.right)
            top = max(top, y)
        }
        #expect(worst < 0.01 * pulse.peak, "\(worst)")
        #expect(abs(area - pulse.velocityChange) < 0.01 * pulse.velocityChange)
        func sampledPeak(rate: Double) throws -> Float {
            var s = IMUSettings()
            s.rate = rate
            s.noiseDensity = 0
            s.biasSigma = 0
            var imu = try Accelerometer(device: 0, runSeed: 1, clock: DeviceClock(uptimeAtStart: 0, rate: 0), settings: s)
            var samples: [AccelerometerSample] = []
            imu.sample(until: 1.2, motion: still(flat), pulses: [pulse], into: &samples)
            return samples.map { abs($0.x) }.max() ?? 0
        }
        // A 100-Hz chip's filter halves this 5-ms push, and its samples catch anything from a quarter of what is
        // left; an 800-Hz chip's wider filter passes most of it.
        #expect(top < 0.5 * pulse.peak, "\(top)")
        let fast = Double(try sampledPeak(rate: 800)), slow = Double(try sampledPeak(rate: 100))
        #expect(fast > top && fast < pulse.peak, "\(fast) \(top)")
        #expect(slow > 0.25 * top && slow <= top + 0.01, "\(slow) \(top)")
    }

    /// A knock beyond the chip's range reads its full scale, no more.
    @Test func aHardKnockClipsAtTheRange() throws {
        var s = IMUSettings()
        s.rate = 800
        var imu = try Accelerometer(device: 0, runSeed: 1, clock: clock, settings: s)
        var samples: [AccelerometerSample] = []
        let knock = ContactPulse(start: 0.1, duration: 0.004, peak: 2_000, direction: flat.right)
        imu.sample(until: 0.2, motion: still(flat), pulses: [knock], into: &samples)
        let peak = samples.map { Double(abs($0.x)) }.max() ?? 0
        #expect(abs(peak - s.range) < s.resolution, "\(peak)")
    }

    @Test func settingsOutOfRangeAreNamed() {
        var s = IMUSettings()
        #expect(s.problem() == nil)
        s.rate = 1000
        #expect(s.problem() == "the accelerometer rate must be between 1 and 800 Hz, got 1000.0")
    }
}
