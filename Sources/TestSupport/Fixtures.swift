import DeviceInterface
import GSL
import Geometry
import Radio

/// Fixtures shared by the test suites: standard poses and radio links with known hardware.
package enum Fixtures {
    /// Device A at the origin, upright, its back facing east.
    package static let origin = Pose(position: .zero, orientation: Orientation(heading: 0))

    /// A pair: A at the origin facing east, B at `distance` along the given bearing in A's frame, facing A.
    package static func pair(distance: Double, azimuthDegrees: Double = 0,
                             elevationDegrees: Double = 0) -> PairGeometry {
        let bearing = Bearing(
            azimuth: Angle.radians(fromDegrees: azimuthDegrees), elevation: Angle.radians(fromDegrees: elevationDegrees))
        let position = origin.orientation.toWorld(bearing.direction) * distance
        let b = Pose(position: position, orientation: .facing(origin.position, from: position))
        return PairGeometry(origin, b)
    }

    /// How far beyond the interference range the planners' tests take a pair to be in hearing: what the default
    /// radio's estimates may read long by, as the run passes it.
    package static let hearingMargin = Float(RadioConfiguration().estimatesReadLongBy)

    /// A configuration with every error source off: exact distance and angle, nothing lost.
    package static var noiseless: RadioConfiguration {
        var c = RadioConfiguration()
        c.antennaDelaySigma = 0
        c.lineOfSightSigma = 0
        c.boresightAngleSigma = 0
        c.weakSignalSigma = 0
        c.weakSignalAngleSigma = 0
        c.levelBiasShare = 0
        c.outlierShare = 0
        c.fadeSNR = -200
        c.fadeWidth = 0
        c.lineOfSightDropout = 0
        c.nonLineOfSightDropout = 0
        c.linkModel = .lineOfSight
        return c
    }

    /// A link between two devices with the given hardware, drawing from its own seeded stream.
    package static func link(
        _ configuration: RadioConfiguration, seed: UInt64,
        initiator: DeviceRadio = DeviceRadio(clockOffset: 0), responder: DeviceRadio = DeviceRadio(clockOffset: 0)
    ) throws -> PairRadio {
        try PairRadio(
            initiator: initiator, responder: responder, configuration: configuration,
            random: RandomSource(seed: seed))
    }

    /// Runs `count` exchanges at `rate` Hz over a fixed geometry and returns the received measurements.
    package static func sample(
        _ radio: inout PairRadio, geometry: PairGeometry, count: Int, rate: Double = 10
    ) -> [RangingMeasurement] {
        (0..<count).compactMap { radio.exchange(geometry: geometry, at: Double($0) / rate) }
    }

    /// The standard deviation estimated from the median absolute deviation around zero: insensitive to the rare
    /// phase wraps near the edge of the field of view, which a plain standard deviation would count at full weight.
    package static func robustSigma(_ errors: [Double]) -> Double {
        guard let s = Statistics(errors.map(abs)) else { return .nan }
        return s.median / 0.674_489_750_196_081_7
    }
}
