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

    private func still(_ orientation: Orientation) -> (Double) -> SensedMotion {
        { _ in SensedMotion(acceleration: .zero, orientation: orientation) }
    }


    /// A phone lying screen-up reads gravity's reaction on z, plus its part's offset, with the chip's noise; the
    /// samples come at the chip's rate, stamped on the phone's clock.
    @Test func aPhoneAtRestReadsGravityItsOffsetAndItsNoise() throws {
        var imu = try Accelerometer(device: 3, runSeed: 7, clock: clock)
        var samples: [AccelerometerSample] = []
        var turns: [GyroSample] = []
        imu.sample(until: 20, motion: still(flat), pulses: [], into: &samples, turns: &turns)
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
        var turns: [GyroSample] = []
        imu.sample(until: 0.5, motion: still(Orientation(heading: 1)), pulses: [], into: &samples, turns: &turns)
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
            var turns: [GyroSample] = []
            imu.sample(until: 1.2, motion: still(flat), pulses: [pulse], into: &samples, turns: &turns)
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
        var turns: [GyroSample] = []
        let knock = ContactPulse(start: 0.1, duration: 0.004, peak: 2_000, direction: flat.right)
        imu.sample(until: 0.2, motion: still(flat), pulses: [knock], into: &samples, turns: &turns)
        let peak = samples.map { Double(abs($0.x)) }.max() ?? 0
        #expect(abs(peak - s.range) < s.resolution, "\(peak)")
    }

    @Test func settingsOutOfRangeAreNamed() {
        var s = IMUSettings()
        #expect(s.problem() == nil)
        s.rate = 1000
        #expect(s.problem() == "the accelerometer rate must be between 1 and 800 Hz, got 1000.0")
        s.rate = 100
        s.stampLag = 2
        #expect(s.problem() == "the sensors' stamp lag must be between 0.0 and 1.0 s, got 2.0")
        s.stampLag = 0
        s.gyroRange = .nan
        #expect(s.problem() == "gyroRange must be between 1.0 and 100.0 rad/s, got nan")
    }

    /// The gyroscope reads the rate the phone turns at about its own axes, at the accelerometer's instants: a phone
    /// lying screen-up turning counter-clockwise reads it on z; held upright, the same turn reads on its top axis.
    @Test func theGyroscopeReadsTheTurnAboutThePhonesOwnAxes() throws {
        let turned = Orientation(heading: 0.1, pitch: -.pi / 2)
        let lying = turned.rotationRate(since: flat, over: 0.1)
        #expect((lying - Vector3(0, 0, 1)).length < 1e-9, "\(lying)")
        let upright = Orientation(heading: 0.1).rotationRate(since: Orientation(heading: 0), over: 0.1)
        #expect((upright - Vector3(0, 1, 0)).length < 1e-9, "\(upright)")
        // A large turn keeps its angle: a quarter turn in a second reads π/2 rad/s, not its sine.
        let quarter = Orientation(heading: .pi / 2).rotationRate(since: Orientation(heading: 0), over: 1)
        #expect(abs(quarter.y - .pi / 2) < 1e-9)

        var on = IMUSettings()
        on.gyroscope = true
        var imu = try Accelerometer(device: 2, runSeed: 9, clock: clock, settings: on)
        var samples: [AccelerometerSample] = []
        var turns: [GyroSample] = []
        let turning: (Double) -> SensedMotion = { _ in
            SensedMotion(acceleration: .zero, orientation: flat, rotationRate: Vector3(0, 0, 1))
        }
        imu.sample(until: 10, motion: turning, pulses: [], into: &samples, turns: &turns)
        // A phone runs its gyroscope only when asked; its accelerometer's samples are the same either way.
        var off = try Accelerometer(device: 2, runSeed: 9, clock: clock)
        var alone: [AccelerometerSample] = []
        var none: [GyroSample] = []
        off.sample(until: 10, motion: turning, pulses: [], into: &alone, turns: &none)
        #expect(none.isEmpty && alone == samples)
        #expect(turns.count == samples.count && abs(turns.count - 1000) <= 1)
        #expect(zip(turns, samples).allSatisfy { $0.timestamp == $1.timestamp })
        let n = Double(turns.count)
        let mean = turns.reduce(Vector3.zero) { $0 + Vector3(Double($1.x), Double($1.y), Double($1.z)) } / n
        // Noise 0.008 °/s/√Hz over the 63.6-Hz noise bandwidth: 1.1e-3 rad/s a sample.
        let sigma = imu.settings.gyroNoiseDensity * (Double.pi / 2 * 40.5).squareRoot()
        #expect((mean - Vector3(0, 0, 1) - imu.gyroBias).length < 5 * sigma / n.squareRoot() + imu.settings.gyroResolution,
                "\(mean)")
        #expect([imu.gyroBias.x, imu.gyroBias.y, imu.gyroBias.z].allSatisfy { abs($0) < 4 * imu.settings.gyroBiasSigma })
    }

    /// A platform stamps late by each phone's lag, off by its jitter, never backwards; Android's stream has gaps.
    @Test func platformsStampLateWithJitterAndLoseSamplesInGaps() throws {
        let exact = DeviceClock(uptimeAtStart: 100, rate: 0)
        var lags: [Double] = []
        for device in 0..<20 {
            var imu = try Accelerometer(device: device, runSeed: 3, clock: exact, settings: SensorProfile.ios.imu)
            var samples: [AccelerometerSample] = []
            var turns: [GyroSample] = []
            imu.sample(until: 5, motion: still(flat), pulses: [], into: &samples, turns: &turns)
            #expect(abs(samples.count - 500) <= 1)
            lags.append(imu.lag)
            // Each stamp: the true instant (on the chip's grid) plus the phone's lag plus 1% of an interval's jitter.
            let first = imu.next - Double(samples.count) * 0.01
            let errors = samples.indices.map { k in samples[k].timestamp - (100 + first + Double(k) * 0.01 + imu.lag) }
            let spread = (errors.map { $0 * $0 }.reduce(0, +) / Double(errors.count)).squareRoot()
            #expect(spread > 0.8e-4 && spread < 1.2e-4, "\(spread)")
            #expect(zip(samples.dropFirst(), samples).allSatisfy { $0.timestamp > $1.timestamp })
        }
        #expect(lags.allSatisfy { $0 >= 0 && $0 <= 0.01 } && Set(lags).count == 20)
        #expect(lags.max()! - lags.min()! > 0.005)

        var android = try Accelerometer(device: 1, runSeed: 3, clock: exact, settings: SensorProfile.android.imu)
        var samples: [AccelerometerSample] = []
        var turns: [GyroSample] = []
        android.sample(until: 1_200, motion: still(flat), pulses: [], into: &samples, turns: &turns)
        let intervals = zip(samples.dropFirst(), samples).map { $0.timestamp - $1.timestamp }
        let gaps = intervals.filter { $0 > 0.02 }
        // One gap a minute on average over 20 minutes, a fifth of a second each on average: 20 expected.
        #expect(gaps.count >= 8 && gaps.count <= 35, "\(gaps.count)")
        let lost = 240_000 - samples.count
        #expect(Double(lost) / Double(gaps.count) > 0.1 * 200 && Double(lost) / Double(gaps.count) < 0.4 * 200, "\(lost)")
        #expect(android.lag >= 0 && android.lag <= 0.1)
    }

    /// The profiles are what the platforms deliver: Core Motion's 100 Hz, Android's 200 without the high-rate
    /// permission and 400 with it, ±8 g each.
    @Test func profilesDeliverThePlatformsRatesAndRanges() {
        #expect(SensorProfile.allCases.map { $0.imu.rate } == [100, 200, 400])
        #expect(SensorProfile.allCases.allSatisfy { abs($0.imu.range - 8 * IMUSettings.gravity) < 1e-9 })
        #expect(SensorProfile.allCases.allSatisfy { $0.imu.problem() == nil })
        #expect(SensorProfile.android.imu.stampLag == 0.1 && SensorProfile.ios.imu.gapRate == 0)
    }
}
