import DeviceInterface
import Foundation
import GSL
import Geometry

/// How the phones' accelerometers see the world: peaks of the acceleration with gravity removed, m/s^2.
///
/// A touch is a sharp tap both phones feel at the same instant; everything else a hand-held phone feels is noise
/// to a touch detector: the steps of a walk, the hand stopping at the end of a gesture, the hand's own jolts.
package struct AccelerometerSettings: Sendable, Equatable {
    /// Steps per second while walking.
    package var cadence = 1.8
    /// A step's peak: log-normal with this median, m/s^2, ...
    package var stepMedian = 3.0
    /// ... and this spread of its logarithm.
    package var stepSpread = 0.35
    /// A hand's own jolts (a shrug, a turn of the wrist): this many a second, at any time ...
    package var joltRate = 0.2
    /// ... exponential with this mean, m/s^2.
    package var joltMean = 2.5
    /// The hand stopping after a movement: Gaussian peak with this mean and spread, m/s^2.
    package var stopMean = 3.0
    package var stopSigma = 1.5
    /// Two phones tapping: log-normal peak with this median, m/s^2, and spread of its logarithm.
    package var touchMedian = 18.0
    package var touchSpread = 0.35
    /// The sampling's uncertainty on a peak's time: uniform within +- this, seconds (a 100 Hz accelerometer).
    package var jitter = 0.005
    /// Peaks older than this are forgotten, seconds.
    package var memory = 3.0
    package init() {}
}

/// Every phone's accelerometer peaks of the last few seconds, made as the world moves.
package struct Accelerometers {
    package let settings: AccelerometerSettings
    /// Each device's peaks, oldest first.
    package private(set) var peaks: [[Impact]]
    private var last: [Vector3]
    private var speeds: [Double]
    private var nextStep: [Double]
    /// The pairs of phones whose cases touch now, as `low << 32 | high`, sorted.
    private var meeting: [Int64] = []
    private let random: RandomSource

    /// Still threshold and walking threshold of a phone's speed, m/s.
    static let still = 0.02
    static let moving = 0.08
    static let walking = 0.3

    /// No phones yet: ``place(_:)`` puts them where they start.
    package init(seed: UInt64, settings: AccelerometerSettings = AccelerometerSettings()) throws {
        self.settings = settings
        random = try RandomSource(runSeed: seed, stream: StreamIdentity(kind: .sensors, first: 0, second: 0))
        peaks = []
        last = []
        speeds = []
        nextStep = []
    }

    /// Phones at rest at `positions`, nothing felt yet.
    mutating func place(_ positions: [Vector3]) {
        peaks = Array(repeating: [], count: positions.count)
        last = positions
        speeds = Array(repeating: 0, count: positions.count)
        nextStep = Array(repeating: 0, count: positions.count)
    }

    /// Phones `a` and `b` met: both feel the tap.
    private mutating func touch(_ a: Int, _ b: Int, at time: Double) {
        for d in [a, b] {
            let m = settings.touchMedian * exp(settings.touchSpread * random.gaussian(sigma: 1))
            add(d, at: time + random.uniform(in: -settings.jitter..<settings.jitter), magnitude: m)
        }
    }

    /// Senses one world step of `dt` seconds ending at `time`, the phones now at `positions`.
    ///
    /// - Parameters:
    ///   - close: the pairs of phones whose centres are closer than half a metre, as the scorer names them (a tap at
    ///     every true contact is made from the truth: under a ``TruthScramble`` it lands on other phones).
    ///   - met: when in the step the truth saw each pair's bodies meet, by the pair's key; a pair not in it is
    ///     tapped at the step's end.
    mutating func sense(_ positions: [Vector3], close: [CloseBodies], at time: Double, dt: Double,
                        met: [Int64: Double] = [:]) {
        let s = settings
        // Phones whose bodies met since the step before tap, in pair order.
        var now: [Int64] = []
        for pair in close where pair.separation <= PhoneBody.touching {
            now.append(Int64(pair.a) << 32 | Int64(pair.b))
        }
        for key in now where !Self.contains(meeting, key) {
            touch(Int(key >> 32), Int(key & 0xFFFF_FFFF), at: met[key] ?? time)
        }
        meeting = now
        for d in positions.indices {
            let speed = (positions[d] - last[d]).length / dt
            let before = speeds[d]
            last[d] = positions[d]
            speeds[d] = speed
            if speed >= Self.walking {
                if nextStep[d] <= time - dt {
                    nextStep[d] = time + random.uniform() / s.cadence
                } else if nextStep[d] <= time {
                    add(d, at: nextStep[d], magnitude: s.stepMedian * exp(s.stepSpread * random.gaussian(sigma: 1)))
                    nextStep[d] += (0.95 + 0.1 * random.uniform()) / s.cadence
                }
            }
            if before >= Self.moving && speed < Self.still {
                add(d, at: time - random.uniform() * dt, magnitude: max(0, s.stopMean + random.gaussian(sigma: s.stopSigma)))
            }
            if random.bernoulli(s.joltRate * dt) {
                add(d, at: time - random.uniform() * dt, magnitude: random.exponential(mean: s.joltMean))
            }
            while let first = peaks[d].first, first.time < time - s.memory { peaks[d].removeFirst() }
        }
    }

    private static func contains(_ sorted: [Int64], _ key: Int64) -> Bool {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low] == key
    }

    private mutating func add(_ d: Int, at time: Double, magnitude: Double) {
        let impact = Impact(time: time, magnitude: Float(magnitude))
        var k = peaks[d].count
        while k > 0, peaks[d][k - 1].time > time { k -= 1 }
        peaks[d].insert(impact, at: k)
    }
}
