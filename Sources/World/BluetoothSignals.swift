import Foundation
import GSL
import Geometry

/// How the phones' Bluetooth radios hear each other: log-distance path loss with log-normal shadowing, the model
/// indoor received-signal-strength studies fit (docs/airtime.md gives the figures and their sources).
package struct BluetoothSettings: Sendable, Equatable {
    /// Received power at 1 m, dBm (the "measured power" an advertisement carries, typically about −59 dBm).
    package var referencePower = -59.0
    /// Path loss exponent: 2 in free space, 1.6 to 3.5 indoors.
    package var exponent = 2.0
    /// Shadowing: the spread of one reading about the path loss, dB.
    package var shadowingSigma = 6.0
    /// Readings weaker than this are not heard, dBm (phones' receivers hear down to about −90 to −100 dBm).
    package var sensitivity = -90.0
    /// Seconds between two readings of one pair (a phone scans its peers' advertisements about once a second).
    package var interval = 1.0

    package init() {}

    /// Where the mean reading falls to the sensitivity, metres: half the readings there are heard, fewer beyond.
    package var reach: Double { pow(10, (referencePower - sensitivity) / (10 * exponent)) }

    /// Beyond this distance no reading is drawn, metres: the mean reading is 12 dB (two shadowing spreads) under the
    /// sensitivity there, and a planner has nothing to learn from a stray reading that far.
    var farthest: Double { pow(10, (referencePower - sensitivity + 2 * shadowingSigma) / (10 * exponent)) }
}

/// The Bluetooth signal strength of every pair that has met, as the phones read it, made by the world from the
/// true distance once a reading interval: the observation a device may rank or place pairs by before it has ranged
/// them.
///
/// Each pair draws from its own stream, so that a pair's readings do not depend on which other pairs exist or in
/// which order they met.
package struct BluetoothSignals {
    package let settings: BluetoothSettings
    private let seed: UInt64
    /// A stream a pair, side by side: a venue reads millions of pairs.
    private let streams = RandomStreams()
    /// The latest reading of each pair, by pair index, dBm; NaN where none was heard.
    package private(set) var readings: [Float] = []

    package init(seed: UInt64, settings: BluetoothSettings = BluetoothSettings()) {
        self.settings = settings
        self.seed = seed
    }

    /// Reads pairs `from..<count` at `poses` (by default all of them), pair `p` being the devices `pair(p)`.
    ///
    /// - Throws: a GSL allocation error (a new pair's stream).
    package mutating func read(
        _ poses: [Pose], from first: Int = 0, pairs count: Int, _ pair: (Int) -> (Int, Int)
    ) throws(GSLError) {
        while streams.count < count {
            let (a, b) = pair(streams.count)
            try streams.append(runSeed: seed, stream: StreamIdentity(
                kind: .bluetooth, first: UInt64(min(a, b)), second: UInt64(max(a, b))))
            readings.append(.nan)
        }
        let farthest = settings.farthest * settings.farthest
        let s = settings
        readings.withUnsafeMutableBufferPointer { out in streams.withDraws { streams in
            for p in first..<count {
                let (a, b) = pair(p)
                let d2 = (poses[a].position - poses[b].position).lengthSquared
                guard d2 < farthest else { out[p] = .nan; continue }
                // 10 n log10(d) = 5 n log10(d²).
                let rssi = s.referencePower - 5 * s.exponent * log10(max(d2, 1e-4))
                    + streams.gaussian(p, sigma: s.shadowingSigma)
                out[p] = rssi >= s.sensitivity ? Float(rssi) : .nan
            }
        } }
    }
}
