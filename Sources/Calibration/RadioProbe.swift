import Foundation
import Estimation
import GSL
import Geometry
import Radio

/// Samples many exchanges between two static devices at a chosen distance and bearing, and scores the raw and
/// filtered estimates against the truth: the calibration view of the radio model.
///
/// Device A (the initiator) stands at the origin facing east; B stands at the requested distance, azimuth and
/// elevation in A's frame, facing A. Every figure is about A's view of B.
package struct RadioProbe: Sendable {
    /// What to sample.
    package struct Settings: Sendable, Equatable {
        /// True distance, metres.
        package var distance: Double = 2
        /// True azimuth of B in A's frame, radians.
        package var azimuth: Double = 0
        /// True elevation of B in A's frame, radians.
        package var elevation: Double = 0
        /// Number of exchanges.
        package var samples: Int = 10_000
        /// Exchanges per second; sets the time step the filter and the link state see.
        package var rate: Double = 10
        /// The run seed.
        package var seed: UInt64 = 1
        package var radio = RadioConfiguration()
        package var estimator = EstimatorConfiguration()

        package init() {}
    }

    package let settings: Settings

    package init(settings: Settings) {
        self.settings = settings
    }

    /// Runs the exchanges and summarises them.
    ///
    /// - Throws: ``PairRadioError`` for a bad radio configuration or a GSL failure.
    /// - Complexity: O(samples log samples), for the quantiles.
    package func run() throws(PairRadioError) -> RadioProbeReport {
        let s = settings
        let a = Pose(position: .zero, orientation: Orientation(heading: 0))
        let toB = a.orientation.toWorld(Bearing(azimuth: s.azimuth, elevation: s.elevation).direction)
        let bPosition = toB * s.distance
        let b = Pose(position: bPosition, orientation: .facing(a.position, from: bPosition))
        let truth = PairGeometry(a, b)

        var radio = try PairRadio(initiatorID: 0, responderID: 1, runSeed: s.seed, configuration: s.radio)
        var estimator = SessionEstimator(configuration: s.estimator)

        var raw: [Double] = []
        var filtered: [Double] = []
        var azimuthErrors: [Double] = []
        var elevationErrors: [Double] = []
        var rawAngular: [Double] = []
        var smoothedAngular: [Double] = []
        raw.reserveCapacity(s.samples)
        filtered.reserveCapacity(s.samples)
        var lost = 0
        var outOfRange = 0
        var obstructed = 0
        var withoutDirection = 0
        var clamped = 0
        let trueHorizontal = asin(truth.bearingFromA.direction.x)
        let trueVertical = asin(truth.bearingFromA.direction.y)

        for i in 0..<s.samples {
            let time = Double(i) / s.rate
            guard let m = radio.exchange(geometry: truth, at: time) else {
                lost += 1
                continue
            }
            if !m.lineOfSight { obstructed += 1 }
            let update = estimator.update(distance: m.distance, angle: m.angleAtInitiator, at: time)
            if let d = m.timeOfFlightDistance, let e = update.distance {
                // Scored before the chip's clamp at zero, so that a drift of metres shows as metres.
                raw.append(d - truth.distance)
                if d < 0 { clamped += 1 }
                filtered.append(Double(e) - truth.distance)
            } else {
                outOfRange += 1
            }
            if let angle = m.angleAtInitiator {
                azimuthErrors.append(angle.horizontalAngle - trueHorizontal)
                if let v = angle.verticalCosine { elevationErrors.append(asin(v) - trueVertical) }
                if let bearing = angle.bearing { rawAngular.append(bearing.angle(to: truth.bearingFromA)) }
            }
            if let direction = update.direction {
                let smoothed = Bearing(direction: Vector3(direction))
                smoothedAngular.append(smoothed.angle(to: truth.bearingFromA))
            } else {
                withoutDirection += 1
            }
        }

        let measured = s.samples - lost
        let degrees = 180 / Double.pi
        return RadioProbeReport(
            samples: s.samples,
            dropoutShare: Double(lost) / Double(max(s.samples, 1)),
            outOfRangeShare: Double(outOfRange) / Double(max(measured, 1)),
            nonLineOfSightShare: Double(obstructed) / Double(max(measured, 1)),
            rawDistance: ErrorSummary(raw),
            filteredDistance: ErrorSummary(filtered),
            gateRefusals: estimator.rangeFilter.refusedCount,
            filterRestarts: estimator.rangeFilter.restartCount,
            azimuthDegrees: ErrorSummary(azimuthErrors)?.scaled(by: degrees),
            elevationDegrees: ErrorSummary(elevationErrors)?.scaled(by: degrees),
            rawDirectionDegrees: ErrorSummary(rawAngular)?.scaled(by: degrees),
            smoothedDirectionDegrees: ErrorSummary(smoothedAngular)?.scaled(by: degrees),
            noDirectionShare: Double(withoutDirection) / Double(max(measured, 1)),
            clampedShare: Double(clamped) / Double(max(measured, 1)))
    }
}

/// The probe's findings; distances in metres, angles in degrees. Field names are the JSON output's, and stable.
package struct RadioProbeReport: Sendable, Equatable, Codable {
    /// Exchanges attempted.
    package let samples: Int
    /// Share of exchanges lost (no measurement at all).
    package let dropoutShare: Double
    /// Share of received exchanges without a distance (beyond the maximum range).
    package let outOfRangeShare: Double
    /// Share of received exchanges in non line of sight.
    package let nonLineOfSightShare: Double
    /// Raw distance error (measured minus true), from the timestamps before the chip's clamp at zero.
    package let rawDistance: ErrorSummary?
    /// Filtered distance error.
    package let filteredDistance: ErrorSummary?
    /// Measurements the range filter's gate refused.
    package let gateRefusals: Int
    /// Times the range filter restarted after a run of refusals.
    package let filterRestarts: Int
    /// Raw horizontal-angle error (asin of the horizontal cosine, measured minus true).
    package let azimuthDegrees: ErrorSummary?
    /// Raw elevation error (asin of the vertical cosine, measured minus true).
    package let elevationDegrees: ErrorSummary?
    /// Angle between the raw measured direction and the true one (always positive).
    package let rawDirectionDegrees: ErrorSummary?
    /// Angle between the smoothed direction and the true one (always positive).
    package let smoothedDirectionDegrees: ErrorSummary?
    /// Share of received exchanges whose update had no direction.
    package let noDirectionShare: Double
    /// Share of received exchanges whose timestamps gave a negative distance, reported as 0 m (the error exceeded
    /// the distance: single-sided ranging with clocks far apart).
    package let clampedShare: Double
}

extension RadioProbe {
    /// The distances the near-field table samples, metres: touching to where APS011's table begins to hold.
    package static let nearFieldDistances: [Double] = [0.02, 0.05, 0.10, 0.15, 0.20, 0.25, 0.30]

    /// Runs the probe at each of `distances` with the other settings unchanged, each from the same seed.
    ///
    /// - Throws: ``PairRadioError`` for a bad radio configuration or a GSL failure.
    package func nearField(distances: [Double] = nearFieldDistances) throws(PairRadioError) -> [NearFieldRow] {
        var rows: [NearFieldRow] = []
        for distance in distances {
            var s = settings
            s.distance = distance
            rows.append(NearFieldRow(distance: distance, report: try RadioProbe(settings: s).run()))
        }
        return rows
    }
}

/// One distance of the near-field table.
package struct NearFieldRow: Sendable, Equatable, Codable {
    /// True distance, metres.
    package let distance: Double
    package let report: RadioProbeReport
}
