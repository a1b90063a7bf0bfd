import Foundation

/// Each pair's distance as its devices read it from Bluetooth signal strength: the readings smoothed as apps smooth
/// them (an exponential average of the received power), turned into metres by log-distance path loss with the
/// advertised power at 1 m. What a device knows of a peer it has not ranged yet.
package struct BluetoothDistances {
    /// The received power at 1 m the peers advertise, dBm, and the path loss exponent the app assumes.
    package let referencePower: Float
    package let exponent: Float
    /// The newest reading's weight in the average.
    package let smoothing: Float
    /// The least share of its distance a pair may truly be at: two spreads of the averaged shadowing (the app
    /// assumes the shadowing's spread of one reading, `shadowingSigma`).
    package let floor: Float
    private var smoothed: [Float]
    /// The distance of each pair, metres, by pair index; NaN where the latest reading heard nothing.
    package private(set) var distances: [Float]
    /// How many readings changed a distance there was already (the others only add pairs met since).
    package private(set) var revision = 0

    package init(pairs: Int = 0, referencePower: Double = -59, exponent: Double = 2, smoothing: Double = 0.3,
                shadowingSigma: Double = 6) {
        self.referencePower = Float(referencePower)
        self.exponent = Float(exponent)
        self.smoothing = Float(smoothing)
        // An exponential average with weight α keeps α / (2 − α) of one reading's variance.
        let spread = shadowingSigma * (smoothing / (2 - smoothing)).squareRoot()
        floor = Float(pow(10, -2 * spread / (10 * exponent)))
        smoothed = [Float](repeating: .nan, count: pairs)
        distances = smoothed
    }

    /// Takes one reading of every pair met so far, or of pairs `first...` only (dBm, by pair index; NaN: not heard,
    /// which forgets the average).
    package mutating func take(_ readings: [Float], from first: Int = 0) {
        precondition(readings.count >= smoothed.count, "a reading for every pair")
        if first < smoothed.count { revision += 1 }
        // Pairs met since the last reading: nothing heard of them yet.
        smoothed += repeatElement(.nan, count: readings.count - smoothed.count)
        distances += repeatElement(.nan, count: readings.count - distances.count)
        let alpha = smoothing
        // 10^((P0 - P) / 10n) as e^(ln 10 (P0 - P) / 10n).
        let scale = Float(M_LN10) / (10 * exponent)
        let p0 = referencePower
        smoothed.withUnsafeMutableBufferPointer { s in
            distances.withUnsafeMutableBufferPointer { d in
                for p in first..<readings.count {
                    let r = readings[p]
                    guard r.isFinite else {
                        s[p] = .nan
                        d[p] = .nan
                        continue
                    }
                    let v = s[p].isFinite ? alpha * r + (1 - alpha) * s[p] : r
                    s[p] = v
                    d[p] = exp(scale * (p0 - v))
                }
            }
        }
    }
}
