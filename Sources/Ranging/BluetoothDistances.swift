import Foundation

/// Each pair's distance as its devices read it from Bluetooth signal strength: the readings smoothed as apps smooth
/// them (an exponential average of the received power), turned into metres by log-distance path loss with the
/// advertised power at 1 m. What a device knows of a peer it has not ranged yet.
public struct BluetoothDistances {
    /// The received power at 1 m the peers advertise, dBm, and the path loss exponent the app assumes.
    public let referencePower: Float
    public let exponent: Float
    /// The newest reading's weight in the average.
    public let smoothing: Float
    private var smoothed: [Float]
    /// The distance of each pair, metres, by pair index; NaN where the latest reading heard nothing.
    public private(set) var distances: [Float]

    public init(pairs: Int, referencePower: Double = -59, exponent: Double = 2, smoothing: Double = 0.3) {
        self.referencePower = Float(referencePower)
        self.exponent = Float(exponent)
        self.smoothing = Float(smoothing)
        smoothed = [Float](repeating: .nan, count: pairs)
        distances = smoothed
    }

    /// Takes one reading of every pair (dBm, by pair index; NaN: not heard, which forgets the average).
    public mutating func take(_ readings: [Float]) {
        precondition(readings.count == smoothed.count, "a reading for every pair")
        let alpha = smoothing
        // 10^((P0 - P) / 10n) as e^(ln 10 (P0 - P) / 10n).
        let scale = Float(M_LN10) / (10 * exponent)
        let p0 = referencePower
        smoothed.withUnsafeMutableBufferPointer { s in
            distances.withUnsafeMutableBufferPointer { d in
                for p in readings.indices {
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
