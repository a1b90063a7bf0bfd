import DeviceInterface
import Foundation
import GSL
import Geometry
import Radio

/// A phone's accelerometer as a chip makes it: its rate, its noise, its offset, its range and its steps, and the
/// low-pass filter it samples through. Defaults are a phone-class MEMS part's (Bosch BMI270 and BMI160 data
/// sheets); sources in docs/sensors.md.
package struct IMUSettings: Sendable, Equatable {
    /// Standard gravity, m/s².
    package static let gravity = 9.80665

    /// The data rates a chip offers, Hz: phones give apps up to 100 to 200 Hz, their chips up to 800 (BMI160's
    /// accelerometer, docs/sensors.md).
    package static let rates = 1.0...800
    /// Samples a second (the data rate), within ``rates``.
    package var rate = 100.0
    /// Output noise density, m/s² per √Hz: 160 µg/√Hz (BMI270).
    package var noiseDensity = 160e-6 * IMUSettings.gravity
    /// Each axis's zero-g offset, one standard deviation, m/s²: ±50 mg typical over the part's life (BMA280; Bosch
    /// states typical values as one sigma).
    package var biasSigma = 0.05 * IMUSettings.gravity
    /// Full scale, m/s²: ±16 g, where a hard knock clips.
    package var range = 16 * IMUSettings.gravity
    /// One step of the 16-bit output at ±16 g (2,048 steps per g), m/s².
    package var resolution = IMUSettings.gravity / 2048
    /// The filter's 3-dB cut-off as a share of the rate: 40.5 Hz at 100 Hz in the normal filter mode (BMI160).
    package var bandwidthShare = 0.405

    /// How the platform stamps and delivers the samples (``SensorProfile``; a bare chip's: exactly on time, none
    /// lost). Each stamp's error, one standard deviation, as a share of the sample interval ...
    package var stampJitter = 0.0
    /// ... how late a phone's stamps run behind its own clock at most, seconds (each phone's lag is drawn once
    /// between 0 and this: the sensor's time base synchronised with the phone's to within it) ...
    package var stampLag = 0.0
    /// ... and gaps in the stream, this many a second, each losing the samples of an exponentially drawn length
    /// with this mean, seconds.
    package var gapRate = 0.0
    package var gapLength = 0.2

    /// The gyroscope beside the accelerometer, sampled at the same instants: its noise density, rad/s per √Hz
    /// (BMI270: 0.008 °/s per √Hz) ...
    package var gyroNoiseDensity = 0.008 * Double.pi / 180
    /// ... each axis's zero-rate offset, one standard deviation, rad/s (BMI270: ±0.5 °/s typical) ...
    package var gyroBiasSigma = 0.5 * Double.pi / 180
    /// ... its full scale, rad/s (±2,000 °/s, the BMI270's largest) ...
    package var gyroRange = 2000 * Double.pi / 180
    /// ... and one step of its 16-bit output at that scale, rad/s.
    package var gyroResolution = 2000 * Double.pi / 180 / 32768
    /// Whether the gyroscope runs: a phone powers it only while an app asks for its samples (the command line's
    /// reference app reads none; an app of the app-testing library may).
    package var gyroscope = false

    package init() {}

    /// The filter's time constant, seconds (a first-order low-pass with the chip's cut-off).
    package var filterTimeConstant: Double { 1 / (2 * .pi * bandwidthShare * rate) }

    /// One sample's noise, one standard deviation, m/s²: the density over the filter's noise bandwidth (π/2 times
    /// its cut-off for a first-order filter).
    package var sampleNoise: Double { noiseDensity * (Double.pi / 2 * bandwidthShare * rate).squareRoot() }

    /// The first setting out of range, named, or `nil`.
    package func problem() -> String? {
        if !Self.rates.contains(rate) {
            let (low, high) = (Int(Self.rates.lowerBound), Int(Self.rates.upperBound))
            return "the accelerometer rate must be between \(low) and \(high) Hz, got \(rate)"
        }
        if !(noiseDensity >= 0 && noiseDensity <= 1) { return "noiseDensity must be between 0 and 1 m/s² per √Hz, got \(noiseDensity)" }
        if !(biasSigma >= 0 && biasSigma <= 10) { return "biasSigma must be between 0 and 10 m/s², got \(biasSigma)" }
        if !(range >= 2 * Self.gravity && range <= 64 * Self.gravity) { return "range must be between 2 g and 64 g, got \(range) m/s²" }
        if !(resolution >= 0 && resolution <= 1) { return "resolution must be between 0 and 1 m/s², got \(resolution)" }
        if !(bandwidthShare > 0 && bandwidthShare <= 0.5) { return "bandwidthShare must be above 0 and at most 0.5, got \(bandwidthShare)" }
        let platform: [(String, Double, ClosedRange<Double>, String)] = [
            ("stampJitter", stampJitter, 0...0.2, "of the interval"), ("the sensors' stamp lag", stampLag, 0...1, "s"),
            ("gapRate", gapRate, 0...10, "a second"), ("gapLength", gapLength, 0.001...10, "s"),
            ("gyroNoiseDensity", gyroNoiseDensity, 0...1, "rad/s per √Hz"), ("gyroBiasSigma", gyroBiasSigma, 0...1, "rad/s"),
            ("gyroRange", gyroRange, 1...100, "rad/s"), ("gyroResolution", gyroResolution, 0...0.1, "rad/s"),
        ]
        for (name, value, range, unit) in platform where !(value.isFinite && range.contains(value)) {
            return "\(name) must be between \(range.lowerBound) and \(range.upperBound) \(unit), got \(value)"
        }
        return nil
    }
}

/// What moves a phone at an instant, as its motion sensors feel it: its smooth acceleration (world frame, m/s²,
/// without gravity: a hand's moves, which the filter passes, their content lying under 10 Hz), its orientation, and
/// the rate it turns at (rad/s about its own axes).
package struct SensedMotion {
    package var acceleration: Vector3
    package var orientation: Orientation
    package var rotationRate: Vector3

    package init(acceleration: Vector3, orientation: Orientation, rotationRate: Vector3 = .zero) {
        self.acceleration = acceleration
        self.orientation = orientation
        self.rotationRate = rotationRate
    }
}

/// One phone's motion sensors as a chip and its platform make them: the accelerometer samples its phone's motion
/// at the chip's rate, through its filter, with its noise, offset, range and steps; the gyroscope beside it the rate
/// the phone turns at, at the same instants. The platform stamps each sample on the phone's own clock, late by the
/// phone's lag and off by its jitter, and loses the samples of its gaps. The motion is the world's (a hand's smooth
/// moves, the pulses of contacts); nothing is labelled.
package struct Accelerometer {
    package let settings: IMUSettings
    /// This part's zero-g offset on each axis, m/s², and its gyroscope's zero-rate offset, rad/s, for its life.
    package let bias: Vector3
    package let gyroBias: Vector3
    package let clock: DeviceClock
    /// How late this phone's stamps run behind its clock, seconds.
    package let lag: Double
    /// World time of the next sample: the chip's sampling starts at a phase of its own.
    package private(set) var next: Double
    /// The next gap in the stream: when it starts and ends.
    private var gap: (start: Double, end: Double)
    private var lastStamp = -Double.infinity
    private let random: RandomSource
    /// The platform's draws (stamps, gaps), apart from the chip's own.
    private let platform: RandomSource
    /// The gyroscope's noise, apart from both: the accelerometer's samples are the same whether it runs or not.
    private let spinning: RandomSource?

    /// Device `device`'s sensors, drawn from its own streams of the run.
    package init(device: Int, runSeed: UInt64, clock: DeviceClock,
                 settings: IMUSettings = IMUSettings()) throws(GSLError) {
        self.settings = settings
        self.clock = clock
        random = try RandomSource(runSeed: runSeed, stream: StreamIdentity(kind: .sensors, first: UInt64(device), second: 1))
        platform = try RandomSource(runSeed: runSeed,
                                    stream: StreamIdentity(kind: .sensors, first: UInt64(device), second: 2))
        bias = Vector3(random.gaussian(sigma: settings.biasSigma), random.gaussian(sigma: settings.biasSigma),
                       random.gaussian(sigma: settings.biasSigma))
        next = random.uniform() / settings.rate
        gyroBias = platform.gaussians(sigma: settings.gyroBiasSigma)
        spinning = settings.gyroscope
            ? try RandomSource(runSeed: runSeed, stream: StreamIdentity(kind: .sensors, first: UInt64(device), second: 4))
            : nil
        lag = platform.uniform() * settings.stampLag
        gap = (.infinity, .infinity)
        if settings.gapRate > 0 { gap = drawGap(after: 0) }
    }

    private func drawGap(after time: Double) -> (start: Double, end: Double) {
        let start = time + platform.exponential(mean: 1 / settings.gapRate)
        return (start, start + platform.exponential(mean: settings.gapLength))
    }

    /// The samples due up to world time `time`, appended to `out` (and the gyroscope's to `turns`).
    ///
    /// - Parameters:
    ///   - motion: the phone's motion at a world time.
    ///   - pulses: the contact pulses the phone felt, which the filter smooths (they last milliseconds).
    package mutating func sample(
        until time: Double, motion: (Double) -> SensedMotion,
        pulses: [ContactPulse], into out: inout [AccelerometerSample], turns: inout [GyroSample]
    ) {
        let s = settings
        let tau = s.filterTimeConstant
        let noise = s.sampleNoise
        let gyroNoise = s.gyroNoiseDensity * (Double.pi / 2 * s.bandwidthShare * s.rate).squareRoot()
        // Past 40 time constants after its end a pulse's filtered push is under e⁻⁴⁰ (4e-18) of its peak: nothing a
        // chip's steps can show, and not worth an exponential a sample while the pulse is kept.
        let faded = 40 * tau
        while next <= time {
            let t = next
            next += 1 / s.rate
            while t >= gap.end { gap = drawGap(after: gap.end) }
            if t >= gap.start { continue }
            let m = motion(t)
            var world = m.acceleration + Vector3(0, 0, IMUSettings.gravity)
            for p in pulses where p.start < t && t - p.start - p.duration < faded {
                world += Self.filtered(p, at: t, timeConstant: tau)
            }
            let device = m.orientation.toDevice(world) + bias
            let drawn = random.gaussians(sigma: noise)
            func read(_ v: Double, _ n: Double, range: Double, step: Double) -> Float {
                let clipped = min(max(v + n, -range), range)
                // Ties to even, the processor's own rounding: it differs from rounding ties away from zero only on
                // a reading of exactly half a step.
                guard step > 0 else { return Float(clipped) }
                return Float((clipped / step).rounded(.toNearestOrEven) * step)
            }
            var stamp = clock.reading(at: t) + lag
            if s.stampJitter > 0 { stamp += platform.gaussian(sigma: s.stampJitter / s.rate) }
            // A platform's stamps never go back.
            stamp = max(stamp, lastStamp.nextUp)
            lastStamp = stamp
            out.append(AccelerometerSample(
                timestamp: stamp, x: read(device.x, drawn.x, range: s.range, step: s.resolution),
                y: read(device.y, drawn.y, range: s.range, step: s.resolution),
                z: read(device.z, drawn.z, range: s.range, step: s.resolution)))
            guard let spinning else { continue }
            let rate = m.rotationRate + gyroBias
            let spin = spinning.gaussians(sigma: gyroNoise)
            turns.append(GyroSample(
                timestamp: stamp, x: read(rate.x, spin.x, range: s.gyroRange, step: s.gyroResolution),
                y: read(rate.y, spin.y, range: s.gyroRange, step: s.gyroResolution),
                z: read(rate.z, spin.z, range: s.gyroRange, step: s.gyroResolution)))
        }
    }

    /// A half-sine pulse through a first-order low-pass filter of time constant `tau`, at world time `t`: the
    /// filter's exact response (rising while the pulse lasts, decaying after), world frame.
    package static func filtered(_ p: ContactPulse, at t: Double, timeConstant tau: Double) -> Vector3 {
        let w = Double.pi / p.duration
        let wt = w * tau
        let scale = p.peak / (1 + wt * wt)
        func during(_ u: Double) -> Double { scale * (sin(w * u) - wt * cos(w * u) + wt * exp(-u / tau)) }
        let u = t - p.start
        guard u > 0 else { return .zero }
        let value = u <= p.duration ? during(u) : during(p.duration) * exp(-(u - p.duration) / tau)
        return p.direction * value
    }
}
