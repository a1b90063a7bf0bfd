import DeviceInterface
import Foundation
import Sessions

/// Settings of one session's estimator.
package struct EstimatorConfiguration: Sendable, Equatable {
    package var range = RangeFilterConfiguration()
    package var direction = DirectionSmootherConfiguration()

    package init() {}
}

/// An ``EstimatorConfiguration`` held once for the many estimators a room makes from it (``Shared``).
package struct SharedEstimatorConfiguration: Sendable {
    package let range: Shared<RangeFilterConfiguration>
    package let direction: Shared<DirectionSmootherConfiguration>

    package init(_ configuration: EstimatorConfiguration) {
        range = Shared(configuration.range)
        direction = Shared(configuration.direction)
    }
}

/// The estimator of one session: turns this side's raw measurements into the updates an app would receive.
package struct SessionEstimator: Sendable, Equatable {
    package private(set) var rangeFilter: RangeFilter
    package private(set) var directionSmoother: DirectionSmoother
    /// Whether the last update's distance was supported by its measurement (started, accepted or restarted the
    /// filter), rather than held while the gate refused it. Detectors that count readings count only these.
    package private(set) var distanceIsFresh = false

    package init(configuration: EstimatorConfiguration = EstimatorConfiguration()) {
        self.init(shared: SharedEstimatorConfiguration(configuration))
    }

    package init(shared: SharedEstimatorConfiguration) {
        rangeFilter = RangeFilter(shared: shared.range)
        directionSmoother = DirectionSmoother(shared: shared.direction)
    }

    /// The smoothed direction toward the peer as the last update gave it, `nil` without one.
    package var smoothedDirection: SIMD3<Float>? {
        directionSmoother.smoothed?.bearing.map { SIMD3<Float>($0.direction) }
    }

    /// Feeds this side's view of one exchange and returns the update.
    ///
    /// - Parameters:
    ///   - distance: the raw distance, `nil` out of range.
    ///   - angle: this side's angle measurement, `nil` when none was made.
    ///   - time: the exchange's time, seconds.
    package mutating func update(distance: Double?, angle: AngleMeasurement?, at time: Double) -> NearbyUpdate {
        var estimate: Float?
        distanceIsFresh = false
        if let distance {
            distanceIsFresh = rangeFilter.update(distance, at: time) != .refused
            estimate = Float(max(rangeFilter.estimate, 0))
        }
        return directionSmoother.update(distance: estimate, angle: angle, at: time)
    }
}

extension DirectionSmoother {
    /// The update an app receives: `distance` as given, with this side's angle smoothed in (when it has one).
    mutating func update(distance: Float?, angle: AngleMeasurement?, at time: Double) -> NearbyUpdate {
        guard let angle else {
            return NearbyUpdate(
                distance: distance, direction: nil, horizontalAngle: nil,
                verticalEstimate: isCurrent(at: time) ? verticalEstimate() : .unknown, timestamp: time)
        }
        let smoothed = update(angle, at: time)
        return NearbyUpdate(
            distance: distance, direction: smoothed.bearing.map { SIMD3<Float>($0.direction) },
            horizontalAngle: Float(smoothed.horizontalAngle), verticalEstimate: verticalEstimate(), timestamp: time)
    }

    /// Reads the level from the smoothed elevation: the same level within the configured half-angle; above or
    /// below once the elevation is also twice its own spread away from level; otherwise off level, sign unsure.
    func verticalEstimate() -> VerticalEstimate {
        guard let v = smoothed?.verticalCosine else { return .unknown }
        // v is sin(elevation), and sin grows with the angle: comparing sines spares an arc sine per update.
        if abs(v) <= sin(configuration.sameLevelHalfAngle) { return .same }
        let w = configuration.weight
        // The spread of an exponential average of weight w is sqrt(w / (2 - w)) times the spread of one sample.
        let spread = (verticalVariance * w / (2 - w)).squareRoot()
        if abs(v) > 2 * spread { return v > 0 ? .above : .below }
        return .aboveOrBelow
    }
}
