import DeviceInterface
/// What a phone makes of a jolt in its own samples: when it peaked (on the phone's clock), how hard (its departure
/// from the phone's resting reading, m/s²), how long it stayed above half that (its width, seconds), which way it
/// pushed (a unit vector in the phone's frame), how upright that push was (the cosine between it and the resting
/// reading, which is gravity's reaction: 1 straight up, -1 straight down, 0 level), and the time between the
/// phone's samples.
package struct SampledImpact: Sendable, Equatable {
    package let time: Double
    package let peak: Float
    package let width: Double
    package let direction: SIMD3<Float>
    package let vertical: Float
    package let interval: Double
    /// When the phone could know the jolt: the sample that ended it.
    package let known: Double

    package init(time: Double, peak: Float, width: Double, direction: SIMD3<Float>, vertical: Float, interval: Double,
                known: Double) {
        self.known = known
        self.time = time
        self.peak = peak
        self.width = width
        self.direction = direction
        self.vertical = vertical
        self.interval = interval
    }
}

/// Finds the jolts in one phone's accelerometer samples, as an app would: it follows the phone's resting reading
/// (gravity and the chip's offset, as the phone is held) with a slow average, and a jolt is a run of samples that
/// depart from it by at least `threshold`, ended when they fall back under half of it. Runs on the device: it sees
/// the phone's own samples and nothing else.
package struct ImpactExtractor: Sendable {
    package struct Settings: Sendable, Equatable {
        /// A departure from rest at or over this starts a jolt, m/s²: 80 times the noise of a 100-Hz sample (0.0125
        /// m/s²; 0.035 at 800 Hz), under the gentlest touch's push after the chip's filter. Lower finds still gentler
        /// touches and leaves less margin for jolts the world does not make (docs/simulation.md sweeps it).
        package var threshold: Float = 1.0
        /// The resting reading follows the samples with this time constant, seconds (it holds still during a jolt):
        /// a phone turned a quarter in two seconds departs from it by under 1 m/s², and a faster turn's departure is a
        /// wide one.
        package var restTimeConstant = 0.1
        /// A jolt longer than this is cut, seconds, and the resting reading starts again from where the phone is (a
        /// long departure is a move, not a jolt).
        package var longest = 0.3

        package init() {}
    }

    package let settings: Settings
    private var rest: SIMD3<Double>?
    private var last: Double?
    /// The time between the last two samples: one sample's share of a jolt's width.
    private var interval = 0.0
    private var run: Run?

    private struct Run {
        let start: Double
        var peakTime: Double
        var peak: Float
        var direction: SIMD3<Float>
        var values: [(Double, Float)]
        /// The resting reading when the jolt began, held through it.
        let rest: SIMD3<Double>
    }

    package init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Takes the next sample; returns the jolt that it ended, if any.
    package mutating func take(_ s: AccelerometerSample) -> SampledImpact? {
        let v = SIMD3<Double>(Double(s.x), Double(s.y), Double(s.z))
        let dt = last.map { max(s.timestamp - $0, 0) } ?? 0
        last = s.timestamp
        if dt > 0 { interval = dt }
        guard let resting = rest else {
            rest = v
            return nil
        }
        let departure = v - resting
        let squared = (departure * departure).sum()
        // Most samples are a phone at rest, well under the threshold: compared squared (with a margin that keeps the
        // rounding of the exact test below out of it), they need no square root and no run.
        if run == nil, squared < 0.999 * Double(settings.threshold) * Double(settings.threshold) {
            follow(v, dt)
            return nil
        }
        let m = Float(squared.squareRoot())
        if let start = run?.start {
            let long = s.timestamp - start > settings.longest
            if m >= settings.threshold / 2 && !long {
                // In place: a copy of the run taken out and put back copied its samples at every sample of a jolt
                // (a walker's steps keep the finder in runs).
                run!.values.append((s.timestamp, m))
                if m > run!.peak {
                    run!.peak = m
                    run!.peakTime = s.timestamp
                    run!.direction = SIMD3<Float>(departure / Double(m))
                }
                return nil
            }
            let current = run!
            run = nil
            // A departure that lasts is the phone held a new way: rest there.
            if long { rest = v } else { follow(v, dt) }
            return Self.finish(current, interval: interval, known: s.timestamp)
        }
        if m >= settings.threshold {
            var values: [(Double, Float)] = []
            // Room for a step's run at 100 Hz without growing the array three times.
            values.reserveCapacity(16)
            values.append((s.timestamp, m))
            run = Run(start: s.timestamp, peakTime: s.timestamp, peak: m, direction: SIMD3<Float>(departure / Double(m)),
                      values: values, rest: resting)
            return nil
        }
        follow(v, dt)
        return nil
    }

    private mutating func follow(_ v: SIMD3<Double>, _ dt: Double) {
        guard let resting = rest else { return }
        let share = min(dt / settings.restTimeConstant, 1)
        rest = resting + (v - resting) * share
    }

    /// The jolt's width: the time its samples stayed at or over half its peak (one sample's at least).
    private static func finish(_ run: Run, interval: Double, known: Double) -> SampledImpact {
        // The first and last samples at or over half the peak, read in place: a walker's every step ends a run.
        let half = run.peak / 2
        let first = run.values.first { $0.1 >= half }?.0 ?? run.peakTime
        let last = run.values.last { $0.1 >= half }?.0 ?? run.peakTime
        let width = last - first + interval
        let restLength = (run.rest * run.rest).sum().squareRoot()
        let up = restLength > 0 ? SIMD3<Float>(run.rest / restLength) : .zero
        return SampledImpact(time: run.peakTime, peak: run.peak, width: width, direction: run.direction,
                             vertical: (up * run.direction).sum(), interval: interval, known: known)
    }
}
