import DeviceInterface

/// A phone's own sense of whether its holder walks, from its accelerometer alone, as a phone's motion coprocessor
/// tells its ranging service: the swing of the acceleration's magnitude about its slow mean, over the last second.
/// While it swings by at least ``walkingSwing``, the holder walks at ``walkingSpeed``; otherwise stands.
package struct Pedometer: Sendable {
    /// The swing (root mean square about the 2-s mean) at or over which a holder walks, m/s²: 0.1 g, an assumption
    /// in the range of the thresholds pedometers use. A walk's heel strikes swing the magnitude by more; a hand's
    /// slow moves and a still phone's noise by less.
    package static let walkingSwing: Float = 0.98
    /// The speed a walking holder is taken to walk at, m/s: adults' comfortable gait speed, 1.3 to 1.5 m/s
    /// (Bohannon, Age and Ageing 26, 1997).
    package static let walkingSpeed: Float = 1.4

    private var mean: Float = .nan
    private var swing: Float = 0
    private var lastTimestamp: Double = .nan

    package init() {}

    /// The holder's speed as the phone believes it, m/s.
    package var speed: Float { swing.squareRoot() >= Self.walkingSwing ? Self.walkingSpeed : 0 }

    /// Takes one sample.
    package mutating func take(_ sample: AccelerometerSample) {
        let magnitude = (sample.x * sample.x + sample.y * sample.y + sample.z * sample.z).squareRoot()
        defer { lastTimestamp = sample.timestamp }
        guard mean.isFinite, lastTimestamp.isFinite else {
            mean = magnitude
            return
        }
        let dt = Float(min(max(sample.timestamp - lastTimestamp, 0), 0.1))
        mean += (magnitude - mean) * min(dt / 2, 1)
        let d = magnitude - mean
        swing += (d * d - swing) * min(dt / 1, 1)
    }
}
