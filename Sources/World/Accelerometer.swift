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
        return nil
    }
}

/// One phone's accelerometer: samples its phone's motion at the chip's rate, through its filter, with its noise,
/// offset, range and steps, on its own clock. The motion is the world's (a hand's smooth moves, the pulses of
/// contacts); nothing is labelled.
package struct Accelerometer {
    package let settings: IMUSettings
    /// This part's zero-g offset on each axis, m/s², for its life.
    package let bias: Vector3
    package let clock: DeviceClock
    /// World time of the next sample: the chip's sampling starts at a phase of its own.
    package private(set) var next: Double
    private let random: RandomSource

    /// Device `device`'s accelerometer, drawn from its own stream of the run.
    package init(device: Int, runSeed: UInt64, clock: DeviceClock,
                 settings: IMUSettings = IMUSettings()) throws(GSLError) {
        self.settings = settings
        self.clock = clock
        random = try RandomSource(runSeed: runSeed, stream: StreamIdentity(kind: .sensors, first: UInt64(device), second: 1))
        bias = Vector3(random.gaussian(sigma: settings.biasSigma), random.gaussian(sigma: settings.biasSigma),
                       random.gaussian(sigma: settings.biasSigma))
        next = random.uniform() / settings.rate
    }

    /// The samples due up to world time `time`, appended to `out`.
    ///
    /// - Parameters:
    ///   - motion: the phone's smooth acceleration (world frame, m/s², without gravity) and orientation at a world
    ///     time: a hand's moves, which the filter passes (their content lies under 10 Hz).
    ///   - pulses: the contact pulses the phone felt, which the filter smooths (they last milliseconds).
    package mutating func sample(
        until time: Double, motion: (Double) -> (acceleration: Vector3, orientation: Orientation),
        pulses: [ContactPulse], into out: inout [AccelerometerSample]
    ) {
        let s = settings
        let tau = s.filterTimeConstant
        let noise = s.sampleNoise
        // Past 40 time constants after its end a pulse's filtered push is under e⁻⁴⁰ (4e-18) of its peak: nothing a
        // chip's steps can show, and not worth an exponential a sample while the pulse is kept.
        let faded = 40 * tau
        while next <= time {
            let t = next
            let (acceleration, orientation) = motion(t)
            var world = acceleration + Vector3(0, 0, IMUSettings.gravity)
            for p in pulses where p.start < t && t - p.start - p.duration < faded {
                world += Self.filtered(p, at: t, timeConstant: tau)
            }
            let device = orientation.toDevice(world) + bias
            let drawn = random.gaussians(sigma: noise)
            func read(_ v: Double, _ n: Double) -> Float {
                let clipped = min(max(v + n, -s.range), s.range)
                // Ties to even, the processor's own rounding: it differs from rounding ties away from zero only on
                // a reading of exactly half a step.
                guard s.resolution > 0 else { return Float(clipped) }
                return Float((clipped / s.resolution).rounded(.toNearestOrEven) * s.resolution)
            }
            out.append(AccelerometerSample(timestamp: clock.reading(at: t), x: read(device.x, drawn.x),
                                           y: read(device.y, drawn.y), z: read(device.z, drawn.z)))
            next += 1 / s.rate
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
