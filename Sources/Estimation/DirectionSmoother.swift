import DeviceInterface

/// Settings of the direction smoother.
package struct DirectionSmootherConfiguration: Sendable, Equatable {
    /// Weight of the newest angle measurement in the exponential average (1 = no smoothing).
    package var weight: Double = 0.35
    /// A gap without angle measurements longer than this, seconds, forgets the average.
    package var maximumGap: Double = 0.5
    /// Elevations within +- this angle (radians) read as the same level.
    package var sameLevelHalfAngle: Double = 20 * Double.pi / 180

    package init() {}
}

/// Smooths the direction cosines (u, v) measured by the antenna pairs.
///
/// Averaging the cosines rather than angles or unit vectors is linear in what the antennas measure, has no wrap at
/// +-180 degrees, and keeps the spread of v for the vertical estimate.
package struct DirectionSmoother: Sendable, Equatable {
    private let shared: Shared<DirectionSmootherConfiguration>
    package var configuration: DirectionSmootherConfiguration { shared.value }
    /// The smoothed cosines; `nil` before the first angle measurement or after a long gap.
    package private(set) var smoothed: AngleMeasurement?
    /// Exponentially weighted variance of the vertical cosine around its average.
    package private(set) var verticalVariance: Double = 0
    private var lastTime: Double = 0

    package init(configuration: DirectionSmootherConfiguration = DirectionSmootherConfiguration()) {
        shared = Shared(configuration)
    }

    /// A smoother under settings shared with others.
    package init(shared: Shared<DirectionSmootherConfiguration>) {
        self.shared = shared
    }

    /// Feeds one angle measurement taken at `time`; returns the smoothed cosines.
    @discardableResult
    package mutating func update(_ measurement: AngleMeasurement, at time: Double) -> AngleMeasurement {
        let w = configuration.weight
        defer { lastTime = time }
        guard let previous = smoothed, time - lastTime <= configuration.maximumGap,
              (previous.verticalCosine == nil) == (measurement.verticalCosine == nil)
        else {
            smoothed = measurement
            verticalVariance = 0
            return measurement
        }
        let u = previous.horizontalCosine + w * (measurement.horizontalCosine - previous.horizontalCosine)
        var v: Double?
        if let pv = previous.verticalCosine, let mv = measurement.verticalCosine {
            let deviation = mv - pv
            v = pv + w * deviation
            verticalVariance = (1 - w) * (verticalVariance + w * deviation * deviation)
        }
        let next = AngleMeasurement(horizontalCosine: u, verticalCosine: v)
        smoothed = next
        return next
    }

    /// Whether the average is recent enough at `time` to be reported.
    package func isCurrent(at time: Double) -> Bool {
        smoothed != nil && time - lastTime <= configuration.maximumGap
    }
}
