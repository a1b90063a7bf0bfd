/// A peak of a phone's accelerometer (gravity removed): when, how strong (m/s^2), and, when the phone found it in
/// its own samples (``SampledImpact``), how wide (seconds), which way it pushed (a unit vector in the phone's frame),
/// how upright the push was (its upward share: 1 straight up, -1 straight down, 0 level) and the time between the phone's samples.
public struct Impact: Sendable, Equatable {
    public let time: Double
    public let magnitude: Float
    public let width: Double
    public let direction: SIMD3<Float>?
    public let vertical: Float
    public let interval: Double
    /// When the phone could know it (a sampled jolt ends a sample or two after its peak); a labelled peak at once.
    public let known: Double

    public init(time: Double, magnitude: Float, width: Double = 0, direction: SIMD3<Float>? = nil, vertical: Float = 0,
                interval: Double = 0, known: Double? = nil) {
        self.known = known ?? time
        self.time = time
        self.magnitude = magnitude
        self.width = width
        self.direction = direction
        self.vertical = vertical
        self.interval = interval
    }
}
