import Foundation
import Geometry

/// What one device's antennas measured of the direction of the other: the direction cosine along its x axis
/// (horizontal pair) and, where the layout has a vertical baseline, along its y axis.
public struct AngleMeasurement: Sendable, Equatable {
    /// Cosine of the angle between the arrival direction and the device's x axis: sin(horizontal angle).
    public let horizontalCosine: Double
    /// The same along the y axis: sin(elevation); `nil` without a vertical baseline.
    public let verticalCosine: Double?

    public init(horizontalCosine: Double, verticalCosine: Double?) {
        self.horizontalCosine = horizontalCosine
        self.verticalCosine = verticalCosine
    }

    /// The horizontal angle as a phase-difference array measures it: asin(u), radians.
    public var horizontalAngle: Double {
        asin(min(max(horizontalCosine, -1), 1))
    }

    /// The full direction, in front of the device, when both cosines were measured.
    ///
    /// Two baselines in the phone's plane cannot tell front from back; the field of view is in front, so the
    /// solution is put there. Noise can push u^2 + v^2 past 1: the direction then lies in the phone's plane.
    public var bearing: Bearing? {
        guard let v = verticalCosine else { return nil }
        let u = horizontalCosine
        let planar = u * u + v * v
        if planar >= 1 {
            return Bearing(direction: Vector3(u, v, 0))
        }
        return Bearing(direction: Vector3(u, v, -(1 - planar).squareRoot()))
    }
}
